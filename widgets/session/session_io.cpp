#include "session/session_io.h"

#include <cmath>
#include <optional>
#include <sstream>
#include <filesystem>
#include <fstream>

#include "models/metrics_table_model.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/json_writer.h"
#include "opscope/metric_fields.h"
#include "opscope/trace.h"

namespace opscope::gui {

namespace {

// The session's metrics as attributes, one per metric_fields.h key (NaN where a metric does not
// apply: HDF5 attributes have no null), with the verdict under each standard.
void writeMetrics(h5::File& f, const std::string& path, const OutputAnalysis& a) {
    f.createGroup(path);
    f.writeAttribute(path, "dtype", std::string(dtypeName(a.dtype)));
    f.writeAttribute(path, "compared", a.compared);
    if (!a.note.empty()) f.writeAttribute(path, "note", a.note);
    if (a.compared) {
        for (const metrics::MetricField& field : metrics::metricFields()) {
            const std::optional<double> v = field.value(a.metrics);
            if (field.format == metrics::FieldFormat::Count && v)
                f.writeAttribute(path, field.key, static_cast<int64_t>(*v));
            else
                f.writeAttribute(path, field.key, v.value_or(std::nan("")));
        }
        for (const metrics::ElementField& field : metrics::elementFields())
            f.writeAttribute(path, std::string(field.key) + "_index", field.element(a.metrics).index);
    }
    std::vector<std::string> standards, verdicts, reasons;
    for (const metrics::Judgement& j : a.judgements) {
        standards.push_back(j.standard);
        verdicts.push_back(a.compared ? metrics::verdictName(j.verdict) : "not judged");
        reasons.push_back(j.reason);
    }
    f.writeAttribute(path, "standards", standards);
    f.writeAttribute(path, "verdicts", verdicts);
    f.writeAttribute(path, "reasons", reasons);
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

void writeSessionGroup(h5::File& f, const SessionSnapshot& s) {
    const std::string root = "/session";
    f.createGroup(root);
    f.writeAttribute(root, "op", s.plan.op);
    f.writeAttribute(root, "product", s.plan.product);
    f.writeAttribute(root, "run_as", s.plan.runAs);
    f.writeAttribute(root, "input_file", s.inputFile);
    f.writeAttribute(root, "case", s.casePath);
    f.writeAttribute(root, "workspace_bytes", static_cast<int64_t>(s.plan.workspaceBytes));
    if (s.analysis) {
        f.writeAttribute(root, "baseline", s.analysis->baselineName);
        f.writeAttribute(root, "standard", s.analysis->standard);
    }
    h5::WriteOptions opt;
    opt.compress = true;
    if (s.outputs)
        for (const auto& [name, t] : *s.outputs) h5::writeTensor(f, root + "/outputs/" + name, t, opt);
    if (s.baseline)
        for (const auto& [name, t] : *s.baseline) h5::writeTensor(f, root + "/reference/" + name, t, opt);
    if (s.analysis)
        for (const OutputAnalysis& a : s.analysis->outputs) writeMetrics(f, root + "/metrics/" + a.output, a);
}

void saveSessionOnWorker(ops::PreparedCall& call, const std::string& path, const SessionSnapshot& s,
                         std::size_t resumeAt) {
    Executor& e = call.executor();
    {
        TraceFileWriter trace(path, TraceLevel::Full);
        e.addObserver(&trace);
        try {
            call.bindWorkspace();
            e.runToEnd();
        } catch (...) {
            e.removeObserver(&trace);
            throw;
        }
        e.removeObserver(&trace);
    }
    h5::File f = h5::File::openReadWrite(path);
    writeSessionGroup(f, s);
    f.close();
    // Back to where the user was (the replay is deterministic).
    call.bindWorkspace();
    if (resumeAt > 0) e.runUntil(resumeAt);
}

QByteArray reportCsv(const SessionSnapshot& s) {
    std::string out = "op,output,dtype,item,value\n";
    if (s.analysis) {
        const QStringList names = MetricsTableModel::metricNames();
        for (const OutputAnalysis& a : s.analysis->outputs) {
            const std::string prefix = csvField(s.plan.op) + "," + csvField(a.output) + "," + dtypeName(a.dtype) + ",";
            for (const metrics::Judgement& j : a.judgements)
                out += prefix + csvField("verdict " + j.standard) + "," + metrics::verdictName(j.verdict) + "\n";
            for (int i = 0; i < names.size(); ++i)
                out += prefix + csvField(names[i].toStdString()) + "," +
                       csvField(MetricsTableModel::metricText(a, i).toStdString()) + "\n";
        }
    }
    return QByteArray::fromStdString(out);
}

QByteArray reportJson(const SessionSnapshot& s) {
    std::ostringstream os;
    JsonWriter w(os);
    w.beginObject();
    w.field("op", s.plan.op).field("product", s.plan.product).field("run_as", s.plan.runAs);
    w.field("input_file", s.inputFile).field("case", s.casePath);
    w.field("workspace_bytes", static_cast<int64_t>(s.plan.workspaceBytes));
    w.key("params").beginObject();
    for (const Param& p : s.plan.params) w.field(p.name, paramToString(p.value));
    w.endObject();
    w.key("steps").beginArray();
    for (std::size_t i = 0; i < s.plan.steps.size(); ++i) {
        w.beginObject().field("index", static_cast<int64_t>(i)).field("name", s.plan.steps[i].name);
        w.field("detail", s.plan.steps[i].detail);
        if (i < s.steps.size()) {
            const StepState& st = s.steps[i];
            w.field("status", st.status == StepStatus::Done     ? "done"
                              : st.status == StepStatus::Failed ? "failed"
                                                                : "pending");
            w.field("duration_us", st.durationUs).field("non_finite", st.nonFinite);
            if (auto v = st.verdict()) w.field("verdict", metrics::verdictName(*v));
        }
        w.endObject();
    }
    w.endArray();
    if (s.analysis) {
        // The comparisons in the CLI report's schema (ops::writeComparisonJson), so one parser
        // reads both.
        w.field("baseline", s.analysis->baselineName).field("standard", s.analysis->standard);
        w.field("verdict", ops::overallName(s.analysis->overall()));
        w.key("comparisons").beginArray();
        for (const ops::Comparison& c : s.analysis->comparisons) ops::writeComparisonJson(w, c);
        w.endArray();
    }
    w.endObject();
    w.finish();
    return QByteArray::fromStdString(os.str());
}

void writeFileAtomically(const std::string& path, const QByteArray& bytes, const std::vector<std::string>& inputs) {
    h5::writeFileAtomically(path, bytes.toStdString(),
                            std::vector<std::filesystem::path>(inputs.begin(), inputs.end()));
}

}  // namespace opscope::gui
