// The human-readable face of a run: one row per comparison, notes under failures, a summary.
#pragma once

#include <ostream>

#include "report.h"

namespace opscope::cli {

// verbose: print every comparison's reason, not only those of failures and warnings.
void printRunTable(std::ostream& os, const RunSummary& s, bool verbose);
// One row per case: its worst comparison, with the reasons of failures underneath.
void printBriefTable(std::ostream& os, const RunSummary& s);

}  // namespace opscope::cli
