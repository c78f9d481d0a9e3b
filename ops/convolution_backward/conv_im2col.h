// im2col / col2im over a tile of positions of the small side Y (see ConvGeometry). Row
// r = (cx - cx0)*K + (kd*kH + kh)*kW + kw of the column matrix holds, for each position p of the
// tile, X[cx, p*stride - pad + k*dilation] (zero where that falls in the padding).
#pragma once

#include <cstdint>

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

// cols[r * ld + t] for channels [cx0, cx1) of `x` (channel 0 of one image's group) and the
// positions [p0, p0 + len) of Y.
void im2colTile(const ConvGeometry& g, const float* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len, float* cols,
                int64_t ld);

// The adjoint: x[cx, ...] += cols[r * ld + t], taps in row order (a fixed summation order).
void col2imTile(const ConvGeometry& g, const float* cols, int64_t ld, int64_t cx0, int64_t cx1, int64_t p0, int64_t len,
                float* x);

}  // namespace opscope::kernels
