// Are all the shards here? 'report merge' asks before it counts a verdict: a Slurm task that
// died, or a shard whose import found no call, writes no report, and without this check its
// cases would silently be missing from a merged report that passes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli_common.h"
#include "report_merge.h"

namespace opscope::cli {

// The shards of one family that no report holds.
struct MissingShards {
    std::string kind;                  // "run shard" (--shard of run) or "import shard" (of the case files)
    int count = 0;                     // N
    std::vector<int> indices;          // the missing I, ascending
    std::vector<std::string> reports;  // the reports that hold the others
};

// The shard "I/N" in j[key]; nothing when it is null or absent. Throws CliError naming `where`
// for any other value.
std::optional<Shard> shardField(const ReportJson& j, const char* key, const std::string& where);

// Run shards are grouped by N and the files the runs were given; import shards (the case files'
// opscope_import_shard, listed in a report's "files") by N. Throws CliError, naming both, when
// two reports are the same run shard, two different files the same import shard, or two reports
// hold the same case of the same file (which would count it twice). `names` name the reports.
std::vector<MissingShards> missingShards(const std::vector<ReportJson>& reports, const std::vector<std::string>& names);

// "import shard 7/16 and 9/16" (at most a few indices, then how many more).
std::string describe(const MissingShards& m);

}  // namespace opscope::cli
