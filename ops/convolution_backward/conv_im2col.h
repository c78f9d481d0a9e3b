// im2col / col2im over a tile of positions of the small side Y (see ConvGeometry). Row
// r = (cx - cx0)*K + (kd*kH + kh)*kW + kw of the column matrix holds, for each position p of the
// tile, X[cx, p*stride - pad + k*dilation] (zero where that falls in the padding).
#pragma once

#include <cstdint>
#include <vector>

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

// One kernel tap over one row segment of a tile (fixed od, oh; consecutive ow): the segment's
// positions t + j, j in [lo, hi), read X row xOff at column iw0 + j*stride[2].
struct Piece {
    int64_t row;     // kernel tap index (row within one channel's block of K rows)
    int64_t t;       // offset of the segment in the tile
    int64_t len;     // segment length
    int64_t xOff;    // offset of the X row within one channel, -1 when the row lies in the padding
    int64_t iw0;     // X column of the segment's first position (may be outside [0, W))
    int64_t lo, hi;  // positions [lo, hi) of the segment read inside the row
};

// Every (tap, segment) of the tile [p0, p0 + len) of Y, taps in row order. The vector is the
// calling thread's own and is overwritten by its next call.
const std::vector<Piece>& piecesOf(const ConvGeometry& g, int64_t p0, int64_t len);

// cols[r * ld + t] for channels [cx0, cx1) of `x` (channel 0 of one image's group) and the
// positions [p0, p0 + len) of Y.
void im2colTile(const ConvGeometry& g, const float* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len, float* cols,
                int64_t ld);
// The same from bf16 storage into bf16 columns (uint16_t: the bits of each value).
void im2colTile(const ConvGeometry& g, const uint16_t* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len,
                uint16_t* cols, int64_t ld);

// The adjoint: x[cx, ...] += cols[r * ld + t], taps in row order (a fixed summation order).
void col2imTile(const ConvGeometry& g, const float* cols, int64_t ld, int64_t cx0, int64_t cx1, int64_t p0, int64_t len,
                float* x);

}  // namespace opscope::kernels
