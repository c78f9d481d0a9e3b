// gradInput of a stride-1 convolution as a forward convolution of gradOutput with the flipped
// weights: dx[ci, i] = Σ_co Σ_k dy[co, i + pad - k*dil] · w[co, ci, k]
//                    = Σ_co Σ_k' dy[co, i - pad' + k'*dil] · w[co, ci, K-1-k'],  pad' = dil*(k-1) - pad,
// one GEMM of depth CYg·K per tile (instead of depth CYg and a col2im). Each output element is
// one dot product in a fixed order, written by one work item: the same bits for any thread count.
#pragma once

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

// True for a convolution (not transposed) whose gradInput takes this path: stride 1 on every
// axis, neither pointwise (no col2im to save) nor depthwise (direct kernels).
bool gradInputAsForward(const ConvGeometry& g);

// The forward convolution whose output is g's X side: Y' = X (dx), X' = Y (dy), CY' = CX,
// CXg' = CYg, the same kernel and dilation, stride 1, pad' = dil*(k-1) - pad (may be negative).
ConvGeometry flippedGeometry(const ConvGeometry& g);

// flipped[grp*CXg + ci][co][K-1-k] = w[grp*CYg + co][ci][k]: the weight of flippedGeometry(g).
void flipWeights(const ConvGeometry& g, const float* w, float* flipped);
void flipWeights(const ConvGeometry& g, const uint16_t* w, uint16_t* flipped);  // bf16 storage
// The same weights laid out for convGatherOutputPadded, along the X channel:
// flipped[((grp*CYg + co)*K + K-1-k)*CXg + ci] = w[grp*CYg + co][ci][k].
void flipWeightsByTap(const ConvGeometry& g, const float* w, float* flipped);

// Float32 kind: the forward convolution f (= flippedGeometry(g)) computed transposed,
// y^T = cols(x)^T · w^T per (image, group, tile), with the columns read in place from a
// zero-padded copy of x (conv_padded_input.h): no im2col, no col2im, no packed column block.
// Each output element is one dot product over (channel, tap) in k blocks, written by one work
// item: the same bits for any thread count (not those of the scatter, which adds taps one by one).
bool paddedGatherApplies(const ConvGeometry& f, const ConvTiling& t);
// Positions per work item: 512 (fewer packs of the weights), less where that leaves a worker
// fewer than 4 items, down to t.tile at the least; chosen per thread count, as the bits allow.
int64_t gatherTile(const ConvGeometry& f, const ConvTiling& t);
// Workspace floats: the padded copy of x (all images) and per worker one tile of y^T.
int64_t paddedGatherFloats(const ConvGeometry& f, const ConvTiling& t);
// `w`: g's weights from flipWeightsByTap (f = flippedGeometry(g)).
void convGatherOutputPadded(const ConvGeometry& f, const ConvTiling& t, const float* w, const float* x, float* y,
                            float* scratch);

}  // namespace opscope::kernels
