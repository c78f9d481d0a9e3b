// One tensor from a numpy or PyTorch file, named as on the command line:
//   FILE.npy        FILE.npz:KEY        FILE.pt        FILE.pt:KEY (a dict or list of tensors)
// What the CLI's --bind and the msprobe importer share.
#pragma once

#include <string>

#include "opscope/host_tensor.h"

namespace opscope::import {

// True when the text names a .npy, .npz or .pt file (with or without ":KEY").
bool isTensorFileSpec(const std::string& text);
// Throws FormatError naming the file (missing, unreadable, malformed, or no such key).
HostTensor readTensorFile(const std::string& spec);

}  // namespace opscope::import
