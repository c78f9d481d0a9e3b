#include "session/session_io.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "models/metrics_table_model.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/trace.h"

namespace opscope::gui {

namespace {

void writeMetrics(h5::File& f, const std::string& path, const OutputAnalysis& a) {
    const metrics::ComparisonMetrics& m = a.metrics;
    f.createGroup(path);
    f.writeAttribute(path, "dtype", std::string(dtypeName(a.dtype)));
    f.writeAttribute(path, "count", m.count);
    f.writeAttribute(path, "cosine", m.cosine);
    f.writeAttribute(path, "max_abs_error", m.maxAbsError);
    f.writeAttribute(path, "mean_abs_error", m.meanAbsError);
    f.writeAttribute(path, "max_rel_error", m.maxRelError);
    f.writeAttribute(path, "mean_rel_error", m.meanRelError);
    f.writeAttribute(path, "rmse", m.rmse);
    f.writeAttribute(path, "error_balance", m.errorBalance);
    f.writeAttribute(path, "max_ulp_error", m.maxUlpError);
    f.writeAttribute(path, "mean_ulp_error", m.meanUlpError);
    f.writeAttribute(path, "nan_actual", m.nanActual);
    f.writeAttribute(path, "inf_actual", m.infActual);
    f.writeAttribute(path, "non_finite_mismatches", m.nonFiniteMismatches);
    f.writeAttribute(path, "share_rel_below_1e-3", m.shareRelBelow1e3);
    std::vector<std::string> standards, verdicts, reasons;
    for (const metrics::Judgement& j : a.judgements) {
        standards.push_back(j.standard);
        verdicts.push_back(metrics::verdictName(j.verdict));
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

QJsonValue number(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QString::number(v)); }

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
    QJsonObject root;
    root["op"] = QString::fromStdString(s.plan.op);
    root["product"] = QString::fromStdString(s.plan.product);
    root["run_as"] = QString::fromStdString(s.plan.runAs);
    root["input_file"] = QString::fromStdString(s.inputFile);
    root["case"] = QString::fromStdString(s.casePath);
    root["workspace_bytes"] = double(s.plan.workspaceBytes);
    QJsonObject params;
    for (const Param& p : s.plan.params) params[QString::fromStdString(p.name)] = QString::fromStdString(paramToString(p.value));
    root["params"] = params;
    QJsonArray steps;
    for (std::size_t i = 0; i < s.plan.steps.size(); ++i) {
        QJsonObject o;
        o["index"] = int(i);
        o["name"] = QString::fromStdString(s.plan.steps[i].name);
        o["detail"] = QString::fromStdString(s.plan.steps[i].detail);
        if (i < s.steps.size()) {
            const StepState& st = s.steps[i];
            o["status"] = st.status == StepStatus::Done ? "done" : st.status == StepStatus::Failed ? "failed" : "pending";
            o["duration_us"] = st.durationUs;
            o["non_finite"] = st.nonFinite;
            if (auto v = st.verdict()) o["verdict"] = metrics::verdictName(*v);
        }
        steps.append(o);
    }
    root["steps"] = steps;
    QJsonArray outputs;
    if (s.analysis) {
        root["baseline"] = QString::fromStdString(s.analysis->baselineName);
        root["standard"] = QString::fromStdString(s.analysis->standard);
        for (const OutputAnalysis& a : s.analysis->outputs) {
            const metrics::ComparisonMetrics& m = a.metrics;
            QJsonObject o;
            o["output"] = QString::fromStdString(a.output);
            o["dtype"] = dtypeName(a.dtype);
            o["count"] = double(m.count);
            o["cosine"] = number(m.cosine);
            o["max_abs_error"] = number(m.maxAbsError);
            o["mean_abs_error"] = number(m.meanAbsError);
            o["max_rel_error"] = number(m.maxRelError);
            o["mean_rel_error"] = number(m.meanRelError);
            o["rmse"] = number(m.rmse);
            o["error_balance"] = number(m.errorBalance);
            o["max_ulp_error"] = number(m.maxUlpError);
            o["non_finite_mismatches"] = double(m.nonFiniteMismatches);
            QJsonArray verdicts;
            for (const metrics::Judgement& j : a.judgements) {
                QJsonObject v;
                v["standard"] = QString::fromStdString(j.standard);
                v["verdict"] = metrics::verdictName(j.verdict);
                v["reason"] = QString::fromStdString(j.reason);
                verdicts.append(v);
            }
            o["verdicts"] = verdicts;
            outputs.append(o);
        }
    }
    root["outputs"] = outputs;
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

void writeFileAtomically(const std::string& path, const QByteArray& bytes, const std::vector<std::string>& inputs) {
    std::vector<std::filesystem::path> in(inputs.begin(), inputs.end());
    h5::AtomicFileWriter w(path, in);
    {
        std::ofstream f(w.tempPath(), std::ios::binary);
        f.write(bytes.constData(), bytes.size());
        if (!f) throw std::runtime_error("cannot write " + w.tempPath().string());
    }
    w.commit();
}

}  // namespace opscope::gui
