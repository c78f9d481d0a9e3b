// Hugging Face's .safetensors, read natively: an 8-byte little-endian header length N, N bytes of
// JSON {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
// "__metadata__": {...}}, then the tensors' bytes (little-endian, C order) at those offsets from
// the end of the header. A model's checkpoint is one such file of many tensors: a tensor is read
// from its own byte range only, after the header has been checked against the file's size.
#pragma once

#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/import/tensor_entry.h"

namespace opscope::import {

// Every tensor the header declares, in the order of their data in the file (no data read).
// Throws FormatError naming the file when the header is not a well-formed safetensors header
// whose every tensor lies inside the file with exactly the bytes its dtype and shape need.
std::vector<TensorEntry> describeSafetensors(const std::string& path);
std::vector<std::string> safetensorsKeys(const std::string& path);
// One tensor, by key: reads its byte range only. Throws FormatError as above, or for a key the
// file does not hold (naming the ones it does).
HostTensor readSafetensors(const std::string& path, const std::string& key);

// A checkpoint sharded over several files (model-00001-of-00004.safetensors, ...) comes with
// FILE.safetensors.index.json: {"metadata": {...}, "weight_map": {"key": "shard file name"}}. The
// index names every tensor; each is read from its shard, which must be a plain file name beside
// the index (a name with a directory in it is refused: an index never points elsewhere). Keys are
// listed shard by shard, in the order of their data. Throws FormatError naming the index (or the
// shard) for a malformed index, a shard that cannot be read, or a key the shard does not hold.
std::vector<TensorEntry> describeSafetensorsIndex(const std::string& indexPath);
std::vector<std::string> safetensorsIndexKeys(const std::string& indexPath);
HostTensor readSafetensorsIndex(const std::string& indexPath, const std::string& key);

}  // namespace opscope::import
