// opscope-cli report merge: the JSON reports of several runs (shards of one run on a cluster,
// or runs over different files) as one report in the same schema.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

#include "cli_common.h"
#include "commands.h"
#include "device_verdicts.h"
#include "opscope/h5/atomic_write.h"
#include "report_merge.h"
#include "shard_coverage.h"

namespace opscope::cli {

using json = ReportJson;

CommandSpec reportMergeSpec() {
    return {
        "report merge",
        "report merge REPORT.json... -o ALL.json",
        "merge the JSON reports of several runs (e.g. --shard I/N on a cluster) into one",
        "Cases are concatenated in the order of the files; reports of the shards of one run (--shard I/N with\n"
        "the same N) are put back in the order of the unsharded run. The summary is recounted. The reports\n"
        "must agree on product, dtype and standard, hold each case once, and together hold every shard: every\n"
        "I of a --shard I/N, and every import shard of the case files they ran ('import msprobe --shard').\n"
        "Exit code as for 'run': 1 when a case failed or could not run; 2 when a shard is missing.",
        {{"-o", "ALL.json", false, "the merged report (written atomically; never over an input)"},
         {"--allow-missing", "", false,
          "merge even when shards are missing; the report lists them under \"missing_shards\""},
         {"--verbose", "", false, "list every device verdict (past 20 calls, only the ones that are not agreements)"}},
        /*minPositionals=*/1,
        /*maxPositionals=*/-1,
        "  opscope-cli report merge shard_*.json -o all.json\n"};
}

int runReportMerge(const ParsedArgs& a);  // below

Command reportMergeCommand() { return {reportMergeSpec(), runReportMerge}; }

namespace {

// The merged cases' device verdicts, as their runs wrote them (writeCaseJson).
std::vector<DeviceVerdictRow> deviceVerdictRows(const json& merged) {
    std::vector<DeviceVerdictRow> rows;
    const auto cases = merged.find("cases");
    if (cases == merged.end() || !cases->is_array()) return rows;
    for (const json& c : *cases) {
        const auto text = [&c](const char* key) {
            const auto it = c.find(key);
            return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
        };
        if (c.is_object() && !text("device_verdict").empty())
            rows.push_back({verdictCallLabel(text("file"), text("path")), text("device_verdict"),
                            text("device_explanation"), text("file"), text("path")});
    }
    return rows;
}

}  // namespace

int runReportMerge(const ParsedArgs& a) {
    const std::string out = requiredOutput(a, "report merge", "ALL.json (the merged report)", ".json");
    checkOutputPath(out, a.positionals, "-o");
    for (std::size_t i = 0; i < a.positionals.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (h5::sameFile(a.positionals[j], a.positionals[i]))
                throw CliError("'" + a.positionals[i] + "' is given twice (also as '" + a.positionals[j] +
                               "'): give each report once");
    std::vector<json> reports;
    for (const std::string& p : a.positionals) reports.push_back(readReportFile(p));
    const std::size_t count = reports.size();
    const std::vector<MissingShards> missing = missingShards(reports, a.positionals);
    std::string what;
    for (const MissingShards& m : missing) what += (what.empty() ? "" : "; ") + describe(m);
    if (!missing.empty() && !a.has("--allow-missing"))
        throw CliError(
            "not every shard is here: no report holds " + what +
            " (a task that did not finish, or an import shard that found no call and wrote no file). Merge every "
            "shard's report, or pass --allow-missing to merge these and record what is missing");
    const json merged = mergeReports(std::move(reports), a.positionals, missing);
    const json& summary = merged["summary"];
    const int exitCode = summary["exit_code"].get<int>();
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
    std::cout << "merged " << count << " report" << (count == 1 ? "" : "s") << ": "
              << summary["cases"].get<std::size_t>() << " cases, " << summary["passed"].get<int>() << " passed, "
              << summary["failed"].get<int>() << " failed, " << summary["errors"].get<int>() << " errors -> " << out
              << "\n";
    if (!missing.empty()) std::cout << "missing (--allow-missing): " << what << "\n";
    printDeviceVerdicts(std::cout, deviceVerdictRows(merged), a.has("--verbose"));
    return exitCode == kExitPass ? kExitPass : kExitFail;
}

}  // namespace opscope::cli
