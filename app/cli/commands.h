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

// info, run, compare, trace show, trace export, import msprobe, export repro, import repro, report
// merge, standards, operators.
const std::vector<Command>& commands();

// Each command's spec and function, from its cmd_*.cpp file.
Command infoCommand();
Command runCommand();
Command compareCommand();
Command traceShowCommand();
Command traceExportCommand();
Command importMsprobeCommand();
Command exportReproCommand();
Command importReproCommand();
Command reportMergeCommand();
Command standardsCommand();
Command operatorsCommand();

}  // namespace opscope::cli
