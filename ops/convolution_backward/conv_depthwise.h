// Depthwise convolutions (one X channel and one Y channel per group: groups = C = K) without
// im2col or GEMM: per channel plane, each kernel tap is a shifted multiply-add over row
// segments (the im2col pieces, conv_im2col.h). A GEMM of one row and one column per group would
// spend its time packing. Products of the rounded operands, float32 sums, in a fixed order.
#pragma once

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

// X[n, c] = Σ_taps w[c, tap] · Y[n, c] shifted (gradInput of a convolution); parallel over planes.
void depthwiseScatterInput(const ConvGeometry& g, const float* w, const float* y, float* x);

// Y[n, c] = Σ_taps w[c, tap] · X[n, c] shifted (forward convolution: gradInput of a transposed one).
void depthwiseGatherOutput(const ConvGeometry& g, const float* w, const float* x, float* y);

// dW[c, tap] = Σ_n Σ_positions Y[n, c, p] · X[n, c, p shifted by tap]; parallel over channels,
// images summed in order (16 lane sums per tap): the same bits for any thread count.
void depthwiseFilterGrad(const ConvGeometry& g, const float* y, const float* x, float* dw);

}  // namespace opscope::kernels
