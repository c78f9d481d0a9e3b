#include "report.h"

#include <fstream>
#include <sstream>

#include "cli_common.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/import/msprobe.h"
#include "opscope/ops/device_verdict.h"

namespace opscope::cli {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void writeElement(JsonWriter& w, const std::string& key, const metrics::ElementRef& e) {
    w.key(key);
    if (e.index < 0) {
        w.null();
        return;
    }
    w.beginObject();
    w.field("index", e.index).field("coords", e.coords).field("actual", e.actual).field("reference", e.reference);
    w.field("abs_error", e.absError).field("rel_error", e.relError);
    w.endObject();
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

void writeMetricsJson(JsonWriter& w, const metrics::ComparisonMetrics& m) {
    w.beginObject();
    w.field("output_dtype", dtypeName(m.outputDtype)).field("shape", m.shape);
    w.field("count", m.count).field("finite_count", m.finiteCount);
    w.field("cosine", m.cosine).field("max_abs_error", m.maxAbsError).field("mean_abs_error", m.meanAbsError);
    w.field("max_rel_error", m.maxRelError).field("mean_rel_error", m.meanRelError).field("rmse", m.rmse);
    w.field("error_balance", m.errorBalance);
    w.field("share_rel_below_1e-2", m.shareRelBelow1e2).field("share_rel_below_1e-3", m.shareRelBelow1e3);
    w.field("share_rel_below_1e-4", m.shareRelBelow1e4);
    if (m.ulpApplicable) w.field("max_ulp_error", m.maxUlpError).field("mean_ulp_error", m.meanUlpError);
    else w.key("max_ulp_error").null().key("mean_ulp_error").null();
    w.field("small_value_count", m.smallValueCount).field("small_value_error_ratio", m.smallValueErrorRatio);
    w.field("nan_actual", m.nanActual).field("nan_reference", m.nanReference);
    w.field("inf_actual", m.infActual).field("inf_reference", m.infReference);
    w.field("nonfinite_mismatches", m.nonFiniteMismatches);
    if (m.toleranceChecked) w.field("tolerance_violations", m.toleranceViolations);
    writeElement(w, "worst_abs", m.worstAbs);
    writeElement(w, "worst_rel", m.worstRel);
    if (m.nonFiniteMismatches > 0) writeElement(w, "first_nonfinite_mismatch", m.firstMismatch);
    w.endObject();
}

void writeRunJson(std::ostream& os, const RunSummary& s) {
    JsonWriter w(os);
    w.beginObject();
    w.field("opscope_report", 1).field("command", "run").field("product", s.product).field("threads", s.threads);
    w.key("dtype");
    if (s.dtype.empty()) w.null(); else w.value(s.dtype);
    w.key("standard");
    if (s.standardOverride.empty()) w.value("default"); else w.value(s.standardOverride);
    w.key("summary").beginObject();
    w.field("cases", static_cast<int64_t>(s.results.size())).field("passed", s.passed).field("failed", s.failed);
    w.field("errors", s.errors).field("exit_code", s.exitCode());
    w.endObject();
    w.key("shard");
    if (s.shard.empty()) w.null(); else w.value(s.shard);
    w.key("skipped").value(s.skipped);
    w.key("cases").beginArray();
    for (std::size_t i = 0; i < s.results.size(); ++i) {
        const ops::CaseResult& r = s.results[i];
        w.beginObject();
        w.field("file", r.file).field("path", r.path).field("op", r.op).field("origin", r.origin);
        w.field("description", r.description).field("status", statusOf(r));
        if (i < s.order.size()) w.field("order", static_cast<int64_t>(s.order[i]));
        const std::string call = import::msprobe::callOfCasePath(r.path);
        if (!call.empty()) w.field("msprobe_call", call);
        const ops::DeviceVerdict verdict = ops::deviceVerdict(r);
        if (verdict.kind != ops::DeviceVerdict::Kind::NoDevice)
            w.field("device_verdict", ops::deviceVerdictName(verdict.kind)).field("device_explanation", verdict.line);
        if (!r.ok()) w.field("error", r.error);
        w.field("dtype", dtypeName(r.caseDtype)).field("run_dtype", dtypeName(r.runDtype));
        w.field("standard", r.standard).field("run_ms", r.runMs).field("golden_ms", r.goldenMs);
        w.key("outputs").beginArray();
        for (const ops::OutputSummary& o : r.outputs) {
            w.beginObject().field("name", o.name).field("dtype", dtypeName(o.dtype)).field("shape", o.shape).endObject();
        }
        w.endArray();
        w.key("comparisons").beginArray();
        for (const ops::Comparison& c : r.comparisons) {
            w.beginObject();
            w.field("output", c.output).field("actual", c.actual).field("reference", c.reference);
            w.field("judged", c.judged);
            if (!c.note.empty()) w.field("note", c.note);
            w.field("standard", c.judgement.standard).field("verdict", metrics::verdictName(c.judgement.verdict));
            w.field("reason", c.judgement.reason);
            w.key("metrics");
            writeMetricsJson(w, c.metrics);
            w.endObject();
        }
        w.endArray();
        w.key("notes").value(r.notes);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    w.finish();
}

void writeRunCsv(std::ostream& os, const RunSummary& s) {
    os << "file,case,op,dtype,run_dtype,output,actual,reference,judged,standard,verdict,cosine,max_abs_error,"
          "mean_abs_error,max_rel_error,mean_rel_error,rmse,error_balance,share_rel_below_1e-2,"
          "share_rel_below_1e-3,share_rel_below_1e-4,max_ulp_error,mean_ulp_error,small_value_error_ratio,"
          "nonfinite_mismatches,worst_rel_index,reason\n";
    for (const ops::CaseResult& r : s.results) {
        const std::string head = csvField(r.file) + "," + csvField(r.path) + "," + csvField(r.op) + "," +
                                 dtypeName(r.caseDtype) + "," + dtypeName(r.runDtype) + ",";
        if (!r.ok()) {
            os << head << ",,,,," << "error" << std::string(16, ',') << csvField(r.error) << "\n";
            continue;
        }
        for (const ops::Comparison& c : r.comparisons) {
            const metrics::ComparisonMetrics& m = c.metrics;
            os << head << csvField(c.output) << "," << csvField(c.actual) << "," << csvField(c.reference) << ","
               << (c.judged ? "true" : "false") << "," << csvField(c.judgement.standard) << ","
               << (c.judged ? metrics::verdictName(c.judgement.verdict) : "info") << "," << num(m.cosine) << ","
               << num(m.maxAbsError) << "," << num(m.meanAbsError) << "," << num(m.maxRelError) << ","
               << num(m.meanRelError) << "," << num(m.rmse) << "," << num(m.errorBalance) << ","
               << num(m.shareRelBelow1e2) << "," << num(m.shareRelBelow1e3) << "," << num(m.shareRelBelow1e4) << ","
               << (m.ulpApplicable ? num(m.maxUlpError) : "") << "," << (m.ulpApplicable ? num(m.meanUlpError) : "")
               << "," << num(m.smallValueErrorRatio) << "," << m.nonFiniteMismatches << "," << m.worstRel.index << ","
               << csvField(c.note.empty() ? c.judgement.reason : c.note + "; " + c.judgement.reason) << "\n";
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
            if (!out) throw std::runtime_error("cannot create '" + writer.tempPath().string() + "'");
            if (endsWith(path, ".csv")) writeRunCsv(out, s);
            else writeRunJson(out, s);
            out.close();
            if (!out) throw std::runtime_error("writing '" + writer.tempPath().string() + "' failed");
        }
        writer.commit();
    } catch (const std::runtime_error& e) {
        throw CliError(std::string("cannot write the report: ") + e.what());
    }
}

}  // namespace opscope::cli
