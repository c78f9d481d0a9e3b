// aclnnConvolutionBackward phase-1 validation and shape inference: every documented check, in
// the numbered order of ops/convolution_backward/README.md, each failing with the aclnn status
// code and a message that names the argument and the values seen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convolution_backward_kernel.h"
#include "cube_precision.h"
#include "opscope/objects.h"
#include "opscope/product.h"

namespace opscope::conv {

// The raw C arguments.
struct ConvArgs {
    const aclTensor *gradOutput, *input, *weight;
    const aclIntArray *biasSizes, *stride, *padding, *dilation;
    bool transposed;
    const aclIntArray* outputPadding;
    int groups;
    const aclBoolArray* outputMask;
    int8_t cubeMathType;
    aclTensor *gradInput, *gradWeight, *gradBias;
};

// What the cube unit computes with after cubeMathType: operands in this precision, products
// accumulated in float32.
enum class CubePrecision { Float32, HFloat32, Float16, BFloat16 };
const char* cubePrecisionName(CubePrecision p);
// cubeMathType 0..3 as the documentation names it.
const char* cubeMathTypeName(int8_t cubeMathType);

// The table of the documentation (README "Precision emulation"): the precision the product
// computes `dtype` (the promoted dtype of gradOutput, input, weight) with under cubeMathType.
// Throws 161002 for the combinations the documentation calls errors.
CubePrecision resolveCubePrecision(Product product, DType dtype, int8_t cubeMathType);

// The rounding that brings an operand stored as `stored` to the cube in `precision`; None when
// widening to float32 is exact (fp16 and bf16 fit in HF32; fp16 stays). The plan's Cast steps
// and the golden's operands follow it.
kernels::CubeRounding cubeRoundingOf(CubePrecision precision, DType stored);

// A validated call. Spatial parameters are per axis (1, 2 or 3 of them).
struct ConvProblem {
    const TensorView *gradOutput = nullptr, *input = nullptr, *weight = nullptr;
    const TensorView* outputs[3] = {nullptr, nullptr, nullptr};  // gradInput, gradWeight, gradBias
    std::vector<bool> mask;
    int spatial = 2;
    bool transposed = false;
    int64_t groups = 1;
    std::vector<int64_t> stride, padBegin, padEnd, dilation, outputPadding;
    std::vector<int64_t> padding;  // as given (2 or 4 values in 2D)
    int8_t cubeMathType = 0;
    DType promoted = DType::Float32;
    CubePrecision precision = CubePrecision::Float32;
    bool emptyInput = false;
};

ConvProblem validateConvolutionBackward(const ConvArgs& args, Product product);

// The problem as the kernels see it (see kernels::ConvGeometry): the big side X is the
// convolution's input or the transposed convolution's output (gradOutput).
kernels::ConvGeometry geometryOf(const ConvProblem& p);

}  // namespace opscope::conv
