// A tensor cut into blocks that follow one another in row-major order, each a contiguous run of
// its elements: what a pass over two tensors larger than memory reads, one block of each at a
// time (a streamed compare), with every block's elements in the order a whole pass meets them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opscope {

// How big a band of a pass over a big tensor is: what a streamed compare reads of each side at a
// time, and what the vetting child reads of a big dataset of a group at a time.
inline constexpr uint64_t kStreamBandBytes = uint64_t(64) << 20;

struct TensorBlock {
    std::vector<int64_t> start, count;  // one per axis
};

// Blocks of at most maxBytes (one element at least) covering `shape` in row-major order: whole
// rows of the innermost axes that fit, several indices of the next axis out at a time. None for
// an empty shape's tensor (no elements); one for a scalar.
std::vector<TensorBlock> rowMajorBlocks(const std::vector<int64_t>& shape, std::size_t elementSize, uint64_t maxBytes);

}  // namespace opscope
