// Reading JSON reports of 'opscope-cli run' and merging them: what 'report merge' does with the
// shards of a cluster run, and what 'run --jobs N' does with its worker processes' partial
// reports, so both split (--shard I/N) and merge the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "report.h"

namespace opscope::cli {

using ReportJson = nlohmann::ordered_json;

// The report at `path`; throws CliError when it is not a JSON report of 'opscope-cli run'.
ReportJson readReportFile(const std::string& path);

// Cases concatenated in the order of the reports; the reports of the shards of one run (each
// index of the same N once) put back in the order of the unsharded run. Summary recounted,
// skipped entries once each. `names` name the reports in errors; throws CliError when they
// disagree on product, dtype or standard.
ReportJson mergeReports(std::vector<ReportJson> reports, const std::vector<std::string>& names);

// A report read back into the results it was written from (writeRunJson's schema), so a merged
// report prints as the table, verdicts and CSV of one run. Non-finite metrics, which reports
// hold as null, come back as NaN. Throws CliError naming what is malformed.
RunSummary summaryFromReport(const ReportJson& report);

// One case of a report (writeCaseJson's object) read back; throws json::exception when a field
// has the wrong type.
ops::CaseResult caseFromJson(const ReportJson& j);

}  // namespace opscope::cli
