// The depthwise stages on one float32 plane with the sums held in AVX-512 registers: the same
// fused multiply-adds in the same order as the row loops of conv_depthwise.cpp (which they
// replace where they apply), so the same bits, without a load and store of the output (or of
// the lane sums) per kernel tap and without scalar tails.
#pragma once

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

// Whether this build has them (AVX-512); conv_depthwise.cpp falls back to its row loops.
bool depthwiseRegisterKernelsAvailable();
// Where they apply (kernels of at most 64 taps): every stride 1 for the stencil, stride 1 along
// W for the filter lanes.
bool depthwiseStencilApplies(const ConvGeometry& g);
bool depthwiseFilterLanesApply(const ConvGeometry& g);

// One output plane: out = Σ over the taps in order of w[tap] · in shifted, from +0, each a fused
// multiply-add; taps that read outside `in` are skipped. scatter: out is an X plane and in a Y
// plane (gradInput of a convolution); otherwise the reverse (the forward convolution).
void depthwiseStencilPlane(const ConvGeometry& g, bool scatter, const float* w, const float* in, float* out);

// lanes[tap * 16 + l] += y · x over one (image, channel) plane, tap by tap, Y rows in order, lane
// l taking positions lo + l, lo + l + 16, ... of each row's valid range [lo, hi) (as dotLanes).
void depthwiseFilterLanesPlane(const ConvGeometry& g, const float* y, const float* x, float* lanes);

}  // namespace opscope::kernels
