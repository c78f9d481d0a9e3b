// The device verdicts of a run as 'run' prints them and 'report merge' prints them for the
// merged shards: one line per call that holds a device's outputs, and a tally.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "opscope/ops/case_runner.h"

namespace opscope::cli {

struct DeviceVerdictRow {
    std::string call;        // the msprobe call under its step and rank, else FILE:PATH
    std::string verdict;     // ops::deviceVerdictName
    std::string line;        // ops::DeviceVerdict::line
    std::string file, path;  // the case file and the case, for the debugger's command line
};

// How a case is named among the verdicts: its msprobe call under its step and rank, else FILE:PATH.
std::string verdictCallLabel(const std::string& file, const std::string& path);

// Up to 20 rows all are listed; past that, the calls on which the emulation and the device
// agree are counted, not listed (unless `verbose`), so that the failures of a run of thousands
// of calls stay in sight. Then, for several calls, how many of each verdict, and the command that
// opens the first call the device fails in the debugger.
void printDeviceVerdicts(std::ostream& os, const std::vector<DeviceVerdictRow>& rows, bool verbose);

}  // namespace opscope::cli
