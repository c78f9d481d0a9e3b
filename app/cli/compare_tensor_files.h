// opscope-cli compare A B where A and B are files of several tensors (two checkpoints, two state
// dicts): every key of either file, one comparison each.
#pragma once

#include <string>

#include "args.h"
#include "opscope/metrics.h"

namespace opscope::cli {

// True when `spec` names a whole tensor file (no :KEY) that holds more than one tensor.
bool isFileOfTensors(const std::string& spec);

// Compares the two files key by key, reading two tensors at a time (a checkpoint is never held
// whole). A key one file lacks, or a pair that cannot be compared (dtype or element count), is
// not judged and fails the run, as does any failing tensor. Returns the exit code.
int compareTensorFiles(const ParsedArgs& a, const std::string& actualFile, const std::string& referenceFile,
                       const metrics::Standard& standard);

}  // namespace opscope::cli
