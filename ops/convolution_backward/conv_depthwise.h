// Depthwise convolutions (one X channel and one Y channel per group: groups = C = K) without
// im2col or GEMM: per channel plane, each kernel tap is a shifted multiply-add over row
// segments (the im2col pieces, conv_im2col.h). A GEMM of one row and one column per group would
// spend its time packing. Products of the rounded operands, float32 sums, in a fixed order.
// T is float, or uint16_t: bf16 storage (each value's bits), whose planes are widened exactly
// into a float32 buffer of the chunk as they are used: the same bits as from float32 inputs.
#pragma once

#include "convolution_backward_kernel.h"

namespace opscope::kernels {

// X[n, c] = Σ_taps w[c, tap] · Y[n, c] shifted (gradInput of a convolution); parallel over planes.
template <class T>
void depthwiseScatterInput(const ConvGeometry& g, const T* w, const T* y, float* x);

// Y[n, c] = Σ_taps w[c, tap] · X[n, c] shifted (forward convolution: gradInput of a transposed one).
template <class T>
void depthwiseGatherOutput(const ConvGeometry& g, const T* w, const T* x, float* y);

// dW[c, tap] = Σ_n Σ_positions Y[n, c, p] · X[n, c, p shifted by tap]; parallel over channels,
// images summed in order (16 lane sums per tap): the same bits for any thread count.
template <class T>
void depthwiseFilterGrad(const ConvGeometry& g, const T* y, const T* x, float* dw);

}  // namespace opscope::kernels
