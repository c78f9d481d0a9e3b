// PyTorch's torch.save files, read without PyTorch: the zip layout (PyTorch 1.6 and later) and
// the legacy one (_use_new_zipfile_serialization=False, and every file before 1.6). A strict
// pickle reader for exactly what torch.save writes for tensors (torch._utils._rebuild_tensor_v2
// over storages named by persistent id, _rebuild_parameter, OrderedDict, tuples, lists, dicts);
// the storages' raw bytes are zip entries data/<key>, or records after the legacy layout's
// pickles. Views keep their storage offset and strides; the result is a contiguous row-major
// copy. Only the bytes the tensor asked for spans are read (one key of a large state dict, or one
// view of a large shared storage, costs that tensor; a zip storage's CRC is checked by streaming
// it), and a damaged storage fails only the tensors that use it (in the legacy layout, the
// storages after a record that runs past the file's end too).
// Dtypes: float16/32/64, bfloat16, int8-64, uint8, bool.
#pragma once

#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/import/tensor_entry.h"

namespace opscope::import {

// The tensor saved in `path`. When the file holds a dict (or a list/tuple) of tensors, `key`
// selects one (a dict key, or an index; in nested containers, the keys joined with '/': a
// training checkpoint's "model/conv.weight"); without a key such a file is an error that lists
// the keys. Throws FormatError naming the file for anything torch.save would not have written.
HostTensor readTorchPt(const std::string& path, const std::string& key = "");
// Keys and descriptions: TensorFile (tensor_file.h), which opens the file once for many reads.

}  // namespace opscope::import
