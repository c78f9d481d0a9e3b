// The opscope-cli commands: each has a spec (options, help) and a function returning the exit code.
#pragma once

#include <string>
#include <vector>

#include "args.h"

namespace opscope::cli {

struct Command {
    CommandSpec spec;
    int (*run)(const ParsedArgs& args);
};

// info, run, compare, trace show, trace export, standards, operators.
const std::vector<Command>& commands();

CommandSpec infoSpec();
int runInfo(const ParsedArgs& args);
CommandSpec runSpec();
int runRun(const ParsedArgs& args);
CommandSpec compareSpec();
int runCompare(const ParsedArgs& args);
CommandSpec traceShowSpec();
int runTraceShow(const ParsedArgs& args);
CommandSpec traceExportSpec();
int runTraceExport(const ParsedArgs& args);
CommandSpec importMsprobeSpec();
int runImportMsprobe(const ParsedArgs& args);
CommandSpec reportMergeSpec();
int runReportMerge(const ParsedArgs& args);
CommandSpec standardsSpec();
int runStandards(const ParsedArgs& args);
CommandSpec operatorsSpec();
int runOperators(const ParsedArgs& args);

}  // namespace opscope::cli
