// opscope-cli report merge: the JSON reports of several runs (shards of one run on a cluster,
// or runs over different files) as one report in the same schema.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

#include "cli_common.h"
#include "commands.h"
#include "opscope/h5/atomic_write.h"

namespace opscope::cli {

using json = nlohmann::ordered_json;

CommandSpec reportMergeSpec() {
    CommandSpec s;
    s.name = "report merge";
    s.usage = "report merge REPORT.json... -o ALL.json";
    s.summary = "merge the JSON reports of several runs (e.g. --shard I/N on a cluster) into one";
    s.description =
        "Cases are concatenated in the order of the files; reports of the shards of one run (--shard I/N with\n"
        "the same N) are put back in the order of the unsharded run. The summary is recounted. The reports\n"
        "must agree on product, dtype and standard. Exit code as for 'run': 1 when a case failed or could\n"
        "not run.";
    s.options = {{"-o", "ALL.json", false, "the merged report (written atomically; never over an input)"}};
    s.minPositionals = 1;
    s.examples = "  opscope-cli report merge shard_*.json -o all.json\n";
    return s;
}

namespace {

json readReport(const std::string& path) {
    requireReadableFile(path);
    std::ifstream in(path);
    const json r = json::parse(in, nullptr, false);
    if (r.is_discarded() || !r.is_object() || !r.contains("opscope_report") || !r.contains("cases") ||
        !r["cases"].is_array() || r.value("command", "") != "run")
        throw CliError("'" + path + "' is not a JSON report of 'opscope-cli run' (written by --report OUT.json)");
    return r;
}

}  // namespace

int runReportMerge(const ParsedArgs& a) {
    if (!a.has("-o")) throw CliError("'report merge' needs -o ALL.json (the merged report)");
    const std::string out = a.value("-o");
    if (out.size() < 5 || out.compare(out.size() - 5, 5, ".json") != 0)
        throw CliError("-o '" + out + "' must end in .json");
    checkOutputPath(out, a.positionals, "-o");
    std::vector<json> reports;
    for (const std::string& p : a.positionals) reports.push_back(readReport(p));
    const json& first = reports.front();
    for (std::size_t i = 1; i < reports.size(); ++i)
        for (const char* key : {"product", "dtype", "standard"})
            if (reports[i].value(key, json()) != first.value(key, json()))
                throw CliError("'" + a.positionals[i] + "' was run with " + key + " " +
                               reports[i].value(key, json()).dump() + " but '" + a.positionals[0] + "' with " +
                               first.value(key, json()).dump() + ": merge only reports of the same settings");
    // Shards of one run (same N, each index once) go back into the unsharded order.
    std::set<std::string> shards;
    int count = -1;
    bool sharded = true;
    for (const json& r : reports) {
        const std::string s = r.contains("shard") && r["shard"].is_string() ? r["shard"].get<std::string>() : "";
        const std::size_t slash = s.find('/');
        if (s.empty() || slash == std::string::npos || !shards.insert(s).second)
            sharded = false;
        else if (count == -1)
            count = std::stoi(s.substr(slash + 1));
        else if (count != std::stoi(s.substr(slash + 1)))
            sharded = false;
    }
    json cases = json::array();
    std::vector<std::string> skipped;
    for (const json& r : reports) {
        for (const json& c : r["cases"]) cases.push_back(c);
        if (r.contains("skipped") && r["skipped"].is_array())
            for (const json& k : r["skipped"])
                if (k.is_string() && std::find(skipped.begin(), skipped.end(), k.get<std::string>()) == skipped.end())
                    skipped.push_back(k.get<std::string>());
    }
    if (sharded)
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
    for (auto it = first.begin(); it != first.end(); ++it) {
        if (it.key() == "cases" || it.key() == "skipped" || it.key() == "summary" || it.key() == "shard") continue;
        merged[it.key()] = it.value();
    }
    merged["merged_from"] = a.positionals;
    merged["shard"] = nullptr;
    merged["summary"] = {
        {"cases", cases.size()}, {"passed", passed}, {"failed", failed}, {"errors", errors}, {"exit_code", exitCode}};
    merged["skipped"] = skipped;
    merged["cases"] = std::move(cases);
    try {
        std::vector<std::filesystem::path> inputs(a.positionals.begin(), a.positionals.end());
        h5::AtomicFileWriter writer(out, inputs);
        {
            std::ofstream f(writer.tempPath(), std::ios::binary | std::ios::trunc);
            f << merged.dump(1) << "\n";
            f.close();
            if (!f) throw IoError("writing '" + writer.tempPath().string() + "' failed");
        }
        writer.commit();
    } catch (const IoError& e) {
        throw CliError(std::string("cannot write the merged report: ") + e.what());
    }
    std::cout << "merged " << reports.size() << " report" << (reports.size() == 1 ? "" : "s") << ": "
              << merged["summary"]["cases"].get<std::size_t>() << " cases, " << passed << " passed, " << failed
              << " failed, " << errors << " errors -> " << out << "\n";
    return exitCode == kExitPass ? kExitPass : kExitFail;
}

}  // namespace opscope::cli
