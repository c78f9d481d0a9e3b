// Reading one dataset of any HDF5 file for the debugger, off the GUI thread: vetted first in a
// child process (h5/vetting.h), then read. What the tree's "View", "Compare with" and binding
// a dataset to an argument all go through.
#pragma once

#include <string>

#include "opscope/host_tensor.h"

namespace opscope::gui {

// Throws std::runtime_error with one sentence: a damaged file, no such object, or an object
// that is not a dataset ("'/a' in 'x.h5' is a group, not a dataset").
HostTensor readDatasetVetted(const std::string& file, const std::string& path);

}  // namespace opscope::gui
