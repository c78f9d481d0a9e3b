#include "report_merge.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <set>

#include "cli_common.h"
#include "opscope/file_text.h"
#include "opscope/metric_fields.h"

namespace opscope::cli {

using json = ReportJson;

namespace {

// Shards of one run: every report names a shard I/N with the same N, and no I twice.
bool areShardsOfOneRun(const std::vector<json>& reports) {
    std::set<std::string> shards;
    std::string count;
    for (const json& r : reports) {
        const std::string s = r.contains("shard") && r["shard"].is_string() ? r["shard"].get<std::string>() : "";
        const std::size_t slash = s.find('/');
        if (slash == std::string::npos || !shards.insert(s).second) return false;
        if (count.empty()) count = s.substr(slash + 1);
        if (s.substr(slash + 1) != count) return false;
    }
    return true;
}

void requireSameSettings(const std::vector<json>& reports, const std::vector<std::string>& names) {
    const json& first = reports.front();
    for (std::size_t i = 1; i < reports.size(); ++i)
        for (const char* key : {"product", "dtype", "standard"})
            if (reports[i].value(key, json()) != first.value(key, json()))
                throw CliError("'" + names[i] + "' was run with " + key + " " + reports[i].value(key, json()).dump() +
                               " but '" + names[0] + "' with " + first.value(key, json()).dump() +
                               ": merge only reports of the same settings");
}

double number(const json& v) {
    return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();  // null: non-finite
}

std::vector<int64_t> ints(const json& v) {
    std::vector<int64_t> out;
    if (v.is_array())
        for (const json& x : v) out.push_back(x.is_number_integer() ? x.get<int64_t>() : 0);
    return out;
}

metrics::ComparisonMetrics metricsFromJson(const json& j) {
    metrics::ComparisonMetrics m;
    m.outputDtype = dtypeFromName(j.value("output_dtype", "float32"));
    m.shape = ints(j.value("shape", json::array()));
    for (const metrics::MetricField& f : metrics::metricFields()) {
        const json v = j.value(f.key, json());
        const bool applies = !v.is_null() || f.value(m).has_value();  // null: non-finite, or does not apply
        if (applies) f.set(m, number(v));
    }
    for (const metrics::ElementField& f : metrics::elementFields()) {
        const json e = j.value(f.key, json());
        if (!e.is_object()) continue;
        metrics::ElementRef& r = f.elementToSet(m);
        r.index = e.value("index", int64_t{-1});
        r.coords = ints(e.value("coords", json::array()));
        r.actual = number(e.value("actual", json()));
        r.reference = number(e.value("reference", json()));
        r.absError = number(e.value("abs_error", json()));
        r.relError = number(e.value("rel_error", json()));
    }
    return m;
}

// Each key's string, "" when it is absent.
void readStrings(const json& j, std::initializer_list<std::pair<const char*, std::string*>> fields) {
    for (const auto& [key, out] : fields) *out = j.value(key, "");
}

ops::Comparison comparisonFromJson(const json& j) {
    ops::Comparison c;
    readStrings(j, {{"output", &c.output},
                    {"actual", &c.actual},
                    {"reference", &c.reference},
                    {"note", &c.note},
                    {"standard", &c.judgement.standard},
                    {"reason", &c.judgement.reason}});
    c.compared = j.value("compared", true);
    c.judged = j.value("judged", true);
    if (const auto v = metrics::verdictNamed(j.value("verdict", ""))) c.judgement.verdict = *v;
    if (!c.compared) c.judgement.verdict = metrics::Verdict::Fail;  // as compareOutput leaves it
    if (c.compared && j.contains("metrics") && j["metrics"].is_object()) c.metrics = metricsFromJson(j["metrics"]);
    return c;
}

}  // namespace

ops::CaseResult caseFromJson(const json& j) {
    ops::CaseResult r;
    readStrings(j, {{"file", &r.file},
                    {"path", &r.path},
                    {"op", &r.op},
                    {"origin", &r.origin},
                    {"description", &r.description},
                    {"error", &r.error},
                    {"standard", &r.standard}});
    if (j.value("status", "") == "error" && r.error.empty()) r.error = "the case could not run";
    r.caseDtype = dtypeFromName(j.value("dtype", "undefined"));
    r.runDtype = dtypeFromName(j.value("run_dtype", "undefined"));
    r.runMs = number(j.value("run_ms", json(0)));
    r.goldenMs = number(j.value("golden_ms", json(0)));
    for (const json& o : j.value("outputs", json::array()))
        r.outputs.push_back(
            {o.value("name", ""), dtypeFromName(o.value("dtype", "float32")), ints(o.value("shape", json::array()))});
    for (const json& c : j.value("comparisons", json::array())) r.comparisons.push_back(comparisonFromJson(c));
    for (const json& n : j.value("notes", json::array()))
        if (n.is_string()) r.notes.push_back(n.get<std::string>());
    return r;
}

json readReportFile(const std::string& path) {
    requireReadableFile(path);
    const std::optional<std::string> text = readFileText(path);
    json r = json::parse(text.value_or(""), nullptr, false);
    if (r.is_discarded() || !r.is_object() || !r.contains("opscope_report") || !r.contains("cases") ||
        !r["cases"].is_array() || r.value("command", "") != "run")
        throw CliError("'" + path + "' is not a JSON report of 'opscope-cli run' (written by --report OUT.json)");
    return r;
}

json mergeReports(std::vector<json> reports, const std::vector<std::string>& names) {
    requireSameSettings(reports, names);
    json cases = json::array();
    std::vector<std::string> skipped;
    for (json& r : reports) {
        for (json& c : r["cases"]) cases.push_back(std::move(c));
        for (const json& k : r.value("skipped", json::array()))
            if (k.is_string() && std::find(skipped.begin(), skipped.end(), k.get<std::string>()) == skipped.end())
                skipped.push_back(k.get<std::string>());
    }
    if (areShardsOfOneRun(reports))
        std::stable_sort(cases.begin(), cases.end(), [](const json& x, const json& y) {
            return x.value("order", int64_t{0}) < y.value("order", int64_t{0});
        });
    int passed = 0, failed = 0, errors = 0;
    for (const json& c : cases) {
        const std::string st = c.value("status", "");
        passed += st == "pass";
        failed += st == "fail";
        errors += st == "error";
    }
    const int exitCode = errors > 0 ? kExitError : failed > 0 ? kExitFail : kExitPass;
    json merged = json::object();
    for (auto it = reports.front().begin(); it != reports.front().end(); ++it)  // the cases were moved out
        if (it.key() != "cases" && it.key() != "skipped" && it.key() != "summary" && it.key() != "shard")
            merged[it.key()] = it.value();
    merged["merged_from"] = names;
    merged["shard"] = nullptr;
    merged["summary"] = {
        {"cases", cases.size()}, {"passed", passed}, {"failed", failed}, {"errors", errors}, {"exit_code", exitCode}};
    merged["skipped"] = skipped;
    merged["cases"] = std::move(cases);
    return merged;
}

RunSummary summaryFromReport(const json& report) {
    RunSummary s;
    try {
        s.product = report.value("product", "");
        s.threads = report.value("threads", 1);
        const json dtype = report.value("dtype", json());
        s.dtype = dtype.is_string() ? dtype.get<std::string>() : "";
        const std::string standard = report.value("standard", "default");
        s.standardOverride = standard == "default" ? "" : standard;
        for (const json& k : report.value("skipped", json::array()))
            if (k.is_string()) s.skipped.push_back(k.get<std::string>());
        for (const json& c : report.at("cases")) {
            s.results.push_back(caseFromJson(c));
            s.order.push_back(c.value("order", std::size_t{0}));
            const ops::CaseResult& r = s.results.back();
            (!r.ok() ? s.errors : r.passed() ? s.passed : s.failed) += 1;
        }
    } catch (const json::exception& e) {
        throw CliError(std::string("a report does not have the schema of 'opscope-cli run': ") + e.what());
    }
    return s;
}

}  // namespace opscope::cli
