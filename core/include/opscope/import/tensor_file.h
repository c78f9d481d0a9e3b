// One tensor from a numpy, PyTorch or safetensors file, named as on the command line:
//   FILE.npy        FILE.npz:KEY        FILE.pt        FILE.pt:KEY (a dict or list of tensors)
//   FILE.safetensors:KEY (a Hugging Face checkpoint; the key may be left out for a file of one)
//   FILE.safetensors.index.json:KEY (a sharded one: the tensor is read from the shard it names)
//   FILE.pth, FILE.bin (torch.save under other names: pytorch_model.bin), with :KEY as for .pt
// What the CLI's --bind and the msprobe importer share.
#pragma once

#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/import/tensor_entry.h"

namespace opscope::import {

// True when the text names a .npy, .npz, .pt or .safetensors file (with or without ":KEY").
bool isTensorFileSpec(const std::string& text);
// The file a spec names ("d.npz" of "d.npz:x"); "" when it names no tensor file.
std::string tensorFilePath(const std::string& spec);
// Throws FormatError naming the file (missing, unreadable, malformed, or no such key). An .npz or a
// .safetensors of one tensor needs no key.
HostTensor readTensorFile(const std::string& spec);
// The keys a file offers for FILE:KEY (an .npz's arrays, a .pt dict's or list's tensors, a
// .safetensors' tensors), in file order; none for an .npy or a .pt of one bare tensor. Reads no
// tensor data. Throws FormatError as readTensorFile does.
std::vector<std::string> tensorFileKeys(const std::string& file);
// Every tensor the file holds (key, dtype, shape) from its headers or pickle: no tensor data is
// decoded (an .npz's members are read). Throws FormatError as readTensorFile does.
std::vector<TensorEntry> describeTensorFile(const std::string& file);

}  // namespace opscope::import
