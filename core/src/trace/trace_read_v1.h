// Trace format version 1 (OpScope before the table layout: one group per executor, step and
// tensor). Read only, so traces recorded by earlier builds still open.
#pragma once

#include <string>
#include <vector>

#include "opscope/h5/h5_file.h"
#include "opscope/trace.h"

namespace opscope::trace_v1 {

std::vector<std::string> executorGroups(const h5::File& f);  // "/executors/000000", ... in order
ExecutorTrace readExecutor(const h5::File& f, const std::string& group, TraceValues values);

}  // namespace opscope::trace_v1
