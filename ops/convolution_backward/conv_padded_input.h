// gradWeight's GEMM operand without im2col: the im2col matrix of one (image, group) read in place
// from a zero-padded copy of X's channels. Row r = (cx, tap) of the column matrix at the tile's
// position k is xp[rowOffset[r] + kIndex[k]]: the same values im2col writes (zeros where it reads
// the padding), so the GEMM gives the same bits, and the copy is one pass over X per image
// instead of one pass per tap and tile. A strided convolution's copy is split into its stride
// phases (per axis, the padded positions q*stride + a, phase a), so that every tap reads
// consecutive positions of one phase: stride 1 has a single phase, the plain padded copy.
#pragma once

#include <cstdint>
#include <vector>

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

struct PaddedX {
    int64_t dims[3] = {1, 1, 1};     // per axis, positions per phase: the padded extent (leading
                                     // padding, X, the rest read) over the stride, rounded up
    int64_t phaseSize = 0;           // dims[0]*dims[1]*dims[2]
    int64_t channelSize = 0;         // phaseSize * the product of the strides
    std::vector<int64_t> rowOffset;  // per im2col row of one group: cx*channelSize + the tap's offset
};
PaddedX paddedXOf(const ConvGeometry& g);

// True when X of g has a padded copy (all images and channels, shared by every worker) with
// offsets within a group in 32 bits and at most 4x X's size (or 1 Mi values): not pointwise (no im2col anyway)
// nor depthwise, no negative padding.
bool paddedCopyFits(const ConvGeometry& g);
// Elements of that copy: N * CX * channelSize.
int64_t paddedCopyElements(const ConvGeometry& g);

// True when gradWeight with tiling t reads the padded copy: at least 4 taps per position of the copy (taps over the
// product of the strides), paddedCopyFits, and for the bf16
// kind each pair of positions (k, k+1), k even, adjacent in the copy (stride 1 along W, even W
// of Y, even tiles).
bool paddedFilterApplies(const ConvGeometry& g, const ConvTiling& t);

// xp = every channel of every image of X, zero around them ([N, CX, padded channel]), in parallel.
void padInput(const ConvGeometry& g, const PaddedX& px, const float* x, float* xp);
void padInput(const ConvGeometry& g, const PaddedX& px, const uint16_t* x, uint16_t* xp);  // bf16 storage

// kIndex[k] = the offset in a padded channel of the window of Y position p0 + k, k < len.
void paddedPositions(const ConvGeometry& g, const PaddedX& px, int64_t p0, int64_t len, int32_t* kIndex);

}  // namespace opscope::kernels
