#include "report_merge.h"

#include <algorithm>
#include <optional>
#include <set>

#include "cli_common.h"
#include "opscope/file_text.h"
#include "shard_coverage.h"

namespace opscope::cli {

using json = ReportJson;

namespace {

// Shards of one run: every report names a shard I/N with the same N, no I twice, and the same
// files (older reports list none).
bool areShardsOfOneRun(const std::vector<json>& reports) {
    auto shardOf = [](const json& r) { return shardField(r, "shard", "a report"); };
    const std::optional<Shard> first = shardOf(reports.front());
    const json files = reports.front().value("files", json::array());
    std::set<int> indices;
    for (const json& r : reports) {
        const std::optional<Shard> shard = shardOf(r);
        if (!first || !shard || shard->count != first->count || !indices.insert(shard->index).second ||
            r.value("files", json::array()) != files)
            return false;
    }
    return true;
}

// The files of every report, each (file, import shard) once.
json mergedFiles(const std::vector<json>& reports) {
    json files = json::array();
    for (const json& r : reports)
        for (const json& f : r.value("files", json::array()))
            if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
    return files;
}

json missingJson(const std::vector<MissingShards>& missing) {
    json out = json::array();
    for (const MissingShards& m : missing)
        out.push_back({{"kind", m.kind}, {"count", m.count}, {"missing", m.indices}, {"present_in", m.reports}});
    return out;
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

}  // namespace

json readReportFile(const std::string& path) {
    requireReadableFile(path);
    const std::optional<std::string> text = readFileText(path);
    json r = json::parse(text.value_or(""), nullptr, false);
    if (r.is_discarded() || !r.is_object() || !r.contains("opscope_report") || !r.contains("cases") ||
        !r["cases"].is_array() || r.value("command", "") != "run")
        throw CliError("'" + path + "' is not a JSON report of 'opscope-cli run' (written by --report OUT.json)");
    return r;
}

json mergeReports(std::vector<json> reports, const std::vector<std::string>& names,
                  const std::vector<MissingShards>& missing) {
    requireSameSettings(reports, names);
    json files = mergedFiles(reports);
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
        if (it.key() != "cases" && it.key() != "skipped" && it.key() != "summary" && it.key() != "shard" &&
            it.key() != "files")
            merged[it.key()] = it.value();
    merged["merged_from"] = names;
    merged["shard"] = nullptr;
    merged["summary"] = {
        {"cases", cases.size()}, {"passed", passed}, {"failed", failed}, {"errors", errors}, {"exit_code", exitCode}};
    merged["files"] = std::move(files);
    if (!missing.empty()) merged["missing_shards"] = missingJson(missing);
    merged["skipped"] = skipped;
    merged["cases"] = std::move(cases);
    return merged;
}

}  // namespace opscope::cli
