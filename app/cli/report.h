// Run results as JSON (--json, --report OUT.json) and CSV (--report OUT.csv), and the
// atomic write of a report file that never replaces an input.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "opscope/ops/case_runner.h"
#include "opscope/json_writer.h"

namespace opscope::cli {

// A file the run was given, and the shard of the import that made it ("I/N", or "").
struct RunFile {
    std::string file;
    std::string importShard;
};

struct RunSummary {
    std::vector<ops::CaseResult> results;
    std::string product;
    int threads = 1;
    int workers = 1;                   // run --jobs: the processes that ran the cases
    std::string dtype;                 // --dtype or ""
    std::string standardOverride;      // --standard or ""
    std::vector<std::string> skipped;  // trace executors that could not be replayed, and why
    int passed = 0, failed = 0, errors = 0;
    std::vector<std::size_t> order;  // each result's position among all the cases (before --shard)
    std::string shard;               // --shard I/N or ""
    std::vector<RunFile> files;      // the files given, in order (a --op call: none)
    int exitCode() const;
};

void writeRunJson(std::ostream& os, const RunSummary& s);
// One case of writeRunJson's "cases" array; `order` (its position in the whole run) when known.
void writeCaseJson(JsonWriter& w, const ops::CaseResult& r, const std::size_t* order);
void writeRunCsv(std::ostream& os, const RunSummary& s);

// Throws CliError unless the path ends in .json or .csv.
void checkReportPath(const std::string& path);
// Writes the report atomically; `inputs` are refused as destinations.
void writeReport(const std::string& path, const RunSummary& s, const std::vector<std::string>& inputs);

}  // namespace opscope::cli
