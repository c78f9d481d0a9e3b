// Scalar float64 references for convolution (1D/2D/3D, grouped, dilated, strided, transposed):
// direct loops over the definition, obviously correct, slow, sharing nothing with the fast
// kernels. Tensors are flattened row-major: x [N, C, (D,) (H,) W]; weight [Cout, Cin/groups, k...]
// for a convolution and [Cin, Cout/groups, k...] for a transposed one (PyTorch's layouts).
#pragma once

#include <cstdint>
#include <vector>

namespace opscope::reference {

struct ConvParams {
    // One entry per spatial axis (1, 2 or 3). padBegin/padEnd are the leading/trailing
    // padding (PyTorch's symmetric padding p is padBegin = padEnd = p).
    std::vector<int64_t> stride, padBegin, padEnd, dilation, outputPadding;
    int64_t groups = 1;
    bool transposed = false;
};

// Symmetric parameters for `spatial` axes: the same value on every axis.
ConvParams convParams(int spatial, int64_t stride, int64_t pad, int64_t dilation, int64_t groups = 1,
                      bool transposed = false, int64_t outputPadding = 0);

// Shape of the forward output:
//   convolution: o = floor((i + padBegin + padEnd - dilation*(k-1) - 1) / stride) + 1
//   transposed:  o = (i-1)*stride - padBegin - padEnd + dilation*(k-1) + outputPadding + 1
std::vector<int64_t> convOutputShape(const std::vector<int64_t>& inputShape, const std::vector<int64_t>& weightShape,
                                     const ConvParams& p);

// y = conv(x, w) + bias (bias empty: none).
std::vector<double> convForward(const std::vector<double>& x, const std::vector<int64_t>& xShape,
                                const std::vector<double>& w, const std::vector<int64_t>& wShape,
                                const std::vector<double>& bias, const ConvParams& p);

struct ConvBackwardResult {
    std::vector<double> gradInput, gradWeight, gradBias;
};

// Gradients of L = sum(gradOut * convForward(x, w, b)) with respect to x, w and b.
ConvBackwardResult convBackward(const std::vector<double>& gradOut, const std::vector<int64_t>& gradOutShape,
                                const std::vector<double>& x, const std::vector<int64_t>& xShape,
                                const std::vector<double>& w, const std::vector<int64_t>& wShape, const ConvParams& p);

// gradBias alone: gradOut summed over N and the spatial axes, per channel.
std::vector<double> convBiasGrad(const std::vector<double>& gradOut, const std::vector<int64_t>& gradOutShape);

// A float32 operand as the cube unit multiplies it under HF32: the significand rounded to 12 bits
// (11 stored), ties to even; overflow gives Inf. Computed on the value, not on the bits as the
// kernels' Cast(HF32) step does, so that a test can hold the two against each other.
double roundToHFloat32(double v);

}  // namespace opscope::reference
