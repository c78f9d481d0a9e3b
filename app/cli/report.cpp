#include "report.h"

#include <fstream>
#include <optional>
#include <sstream>

#include "cli_common.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/metric_fields.h"
#include "opscope/import/msprobe.h"

namespace opscope::cli {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* statusOf(const ops::CaseResult& r) { return !r.ok() ? "error" : r.passed() ? "pass" : "fail"; }

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string num(double v) {
    std::ostringstream os;
    os.precision(9);
    os << v;
    return os.str();
}

}  // namespace

int RunSummary::exitCode() const { return errors > 0 ? kExitError : failed > 0 ? kExitFail : kExitPass; }

void writeRunJson(std::ostream& os, const RunSummary& s) {
    JsonWriter w(os);
    w.beginObject();
    w.field("opscope_report", 1).field("command", "run").field("product", s.product).field("threads", s.threads);
    w.key("dtype").valueOrNull(s.dtype);
    w.key("standard");
    if (s.standardOverride.empty())
        w.value("default");
    else
        w.value(s.standardOverride);
    w.key("summary").beginObject();
    w.field("cases", static_cast<int64_t>(s.results.size())).field("passed", s.passed).field("failed", s.failed);
    w.field("errors", s.errors).field("exit_code", s.exitCode());
    w.endObject();
    w.key("shard").valueOrNull(s.shard);
    w.key("files").beginArray();
    for (const RunFile& f : s.files)
        w.beginObject().field("file", f.file).key("import_shard").valueOrNull(f.importShard).endObject();
    w.endArray();
    w.key("skipped").value(s.skipped);
    w.key("cases").beginArray();
    for (std::size_t i = 0; i < s.results.size(); ++i)
        writeCaseJson(w, s.results[i], i < s.order.size() ? &s.order[i] : nullptr);
    w.endArray();
    w.endObject();
    w.finish();
}

void writeCaseJson(JsonWriter& w, const ops::CaseResult& r, const std::size_t* order) {
    w.beginObject();
    w.field("file", r.file).field("path", r.path).field("op", r.op).field("origin", r.origin);
    w.field("description", r.description).field("status", statusOf(r));
    if (order) w.field("order", static_cast<int64_t>(*order));
    const std::string call = import::msprobe::callOfCasePath(r.path);
    if (!call.empty()) w.field("msprobe_call", call);
    const ops::DeviceVerdict verdict = r.deviceVerdict();
    if (verdict.kind != ops::DeviceVerdict::Kind::NoDevice)
        w.field("device_verdict", ops::deviceVerdictName(verdict.kind)).field("device_explanation", verdict.line);
    if (!r.ok()) w.field("error", r.error);
    w.field("dtype", dtypeName(r.caseDtype)).field("run_dtype", dtypeName(r.runDtype));
    w.field("standard", r.standard).field("run_ms", r.runMs).field("golden_ms", r.goldenMs);
    w.key("outputs").beginArray();
    for (const ops::OutputSummary& o : r.outputs)
        w.beginObject().field("name", o.name).field("dtype", dtypeName(o.dtype)).field("shape", o.shape).endObject();
    w.endArray();
    w.key("comparisons").beginArray();
    for (const ops::Comparison& c : r.comparisons) ops::writeComparisonJson(w, c);
    w.endArray();
    w.key("notes").value(r.notes);
    w.endObject();
}

void writeRunCsv(std::ostream& os, const RunSummary& s) {
    // Fixed columns, then one per metric and per element of interest (its flat index).
    os << "file,case,op,dtype,run_dtype,output,actual,reference,compared,judged,standard,verdict";
    for (const metrics::MetricField& f : metrics::metricFields()) os << "," << f.key;
    for (const metrics::ElementField& f : metrics::elementFields()) os << "," << f.key << "_index";
    os << ",reason\n";
    const std::size_t metricColumns = metrics::metricFields().size() + metrics::elementFields().size();
    for (const ops::CaseResult& r : s.results) {
        const std::string head = csvField(r.file) + "," + csvField(r.path) + "," + csvField(r.op) + "," +
                                 dtypeName(r.caseDtype) + "," + dtypeName(r.runDtype) + ",";
        if (!r.ok() && r.comparisons.empty()) {
            os << head << ",,,,,,"
               << "error" << std::string(metricColumns + 1, ',') << csvField(r.error) << "\n";
            continue;
        }
        for (const ops::Comparison& c : r.comparisons) {
            const metrics::ComparisonMetrics& m = c.metrics;
            os << head << csvField(c.output) << "," << csvField(c.actual) << "," << csvField(c.reference) << ","
               << (c.compared ? "true" : "false") << "," << (c.judged ? "true" : "false") << ","
               << csvField(c.judgement.standard) << ","
               << (!c.compared ? "not judged"
                   : c.judged  ? metrics::verdictName(c.judgement.verdict)
                               : "info");
            for (const metrics::MetricField& f : metrics::metricFields()) {
                os << ",";
                if (!c.compared) continue;
                if (const std::optional<double> v = f.value(m))
                    os << (f.format == metrics::FieldFormat::Count ? std::to_string(static_cast<int64_t>(*v))
                                                                   : num(*v));
            }
            for (const metrics::ElementField& f : metrics::elementFields()) {
                const int64_t index = c.compared ? f.element(m).index : -1;
                os << ",";
                if (index >= 0) os << index;
            }
            os << "," << csvField(c.note.empty() ? c.judgement.reason : c.note + "; " + c.judgement.reason) << "\n";
        }
    }
}

void checkReportPath(const std::string& path) {
    if (!endsWith(path, ".json") && !endsWith(path, ".csv"))
        throw CliError("--report '" + path + "' must end in .json or .csv (the format follows the name)");
}

void writeReport(const std::string& path, const RunSummary& s, const std::vector<std::string>& inputs) {
    std::vector<std::filesystem::path> inputPaths(inputs.begin(), inputs.end());
    try {
        h5::AtomicFileWriter writer(path, inputPaths);
        {
            std::ofstream out(writer.tempPath(), std::ios::binary | std::ios::trunc);
            if (!out) throw IoError("cannot create '" + writer.tempPath().string() + "'");
            if (endsWith(path, ".csv"))
                writeRunCsv(out, s);
            else
                writeRunJson(out, s);
            out.close();
            if (!out) throw IoError("writing '" + writer.tempPath().string() + "' failed");
        }
        writer.commit();
    } catch (const IoError& e) {
        throw CliError(std::string("cannot write the report: ") + e.what());
    }
}

}  // namespace opscope::cli
