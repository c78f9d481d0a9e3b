// gradWeight of a 1D convolution (one row per channel: conv1d, run as 2D with H = 1) tap by
// tap, without the im2col block. Along a row, the positions of a tile read each tap at one fixed
// offset, so dW[:, :, tap] += dy · X_tap^T with X_tap a strided view of one copy of the tile's
// window of X (zeros in the padding): the window is one pass over X, the im2col block K.
// Each element gets the same chain of float32 steps as through im2col (the same A, the same B
// values per column, the same k blocks), so the same bits.
#pragma once

#include <cstdint>

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

// A single row per channel on both sides (D = H = 1, no kernel, stride or padding along them),
// not pointwise nor depthwise.
bool rowsOnly(const ConvGeometry& g);

// t.filterTapRows and not t.filterPadded, rowsOnly, the float32 packed GEMM (Eigen's fallback may block a product by
// its sizes, which differ per tap), and the window of a tile fits in the tile's im2col buffer.
bool filterByTapRows(const ConvGeometry& g, const ConvTiling& t);

// acc (one group's block, [K][CY/G][CXg]: tap-major) += the tile [p0, p0 + len) of dy
// (dyTile: channel 0 of the group at p0) · X_tap^T for every tap in order, x at channel 0 of
// the image's group; `window` is the chunk's im2col buffer.
void filterTapRows(const ConvGeometry& g, const ConvTiling& t, const float* dyTile, const float* x, int64_t p0,
                   int64_t len, float* window, float* acc);

}  // namespace opscope::kernels
