// Reading JSON reports of 'opscope-cli run' and merging them: what 'report merge' does with the
// shards of a cluster run (run --jobs N gathers its workers' results through result_wire.h).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace opscope::cli {

using ReportJson = nlohmann::ordered_json;

// The report at `path`; throws CliError when it is not a JSON report of 'opscope-cli run'.
ReportJson readReportFile(const std::string& path);

struct MissingShards;

// Cases concatenated in the order of the reports; the reports of the shards of one run (each
// index of the same N once) put back in the order of the unsharded run. Summary recounted,
// skipped entries and files once each; `missing` (shard_coverage.h) recorded as
// "missing_shards". `names` name the reports in errors; throws CliError when they disagree on
// product, dtype or standard.
ReportJson mergeReports(std::vector<ReportJson> reports, const std::vector<std::string>& names,
                        const std::vector<MissingShards>& missing);

}  // namespace opscope::cli
