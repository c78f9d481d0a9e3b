// A block of a tensor read from where its elements lie (TensorLayout): only the bytes the block
// covers, through a window of at most a MiB, in the order they lie in the file (so that a Fortran
// -order .npy or a transposed .pt view is read forward, not element by element across the file).
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/host_tensor.h"
#include "tensor_source.h"

namespace opscope::import::detail {

// The elements [start, start + count) of the tensor, as a row-major tensor of shape `count`.
// The block is checked by the caller (checkBlock).
HostTensor readTensorBlock(const TensorLayout& layout, const std::vector<int64_t>& start,
                           const std::vector<int64_t>& count);

// Throws std::invalid_argument naming `what` unless the block has the shape's rank and lies in it.
void checkBlock(const std::vector<int64_t>& shape, const std::vector<int64_t>& start, const std::vector<int64_t>& count,
                const std::string& what);

}  // namespace opscope::import::detail
