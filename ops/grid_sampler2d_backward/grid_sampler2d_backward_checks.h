// aclnnGridSampler2DBackward phase-1 validation: every documented check, in the numbered order
// of ops/grid_sampler2d_backward/README.md (the device's order), each failing with the aclnn
// status code and a message that names the argument and the values seen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grid_sampler2d_backward_kernel.h"
#include "opscope/objects.h"
#include "opscope/product.h"

namespace opscope::grid_sampler {

// The raw C arguments.
struct GridSamplerArgs {
    const aclTensor *gradOutput, *input, *grid;
    int64_t interpolationMode, paddingMode;
    bool alignCorners;
    const aclBoolArray* outputMask;
    const aclTensor *inputGrad, *gridGrad;
};

// A validated call. When the mask asks for nothing (null or [false, false]) only
// `nothingAsked` (the mask as text) is set: the device returns before looking at anything else.
struct GridSamplerProblem {
    std::string nothingAsked;
    const TensorView *gradOutput = nullptr, *input = nullptr, *grid = nullptr;
    const TensorView *inputGrad = nullptr, *gridGrad = nullptr;
    bool wantInputGrad = false, wantGridGrad = false;
    std::vector<bool> mask;
    kernels::GridInterpolation interpolation = kernels::GridInterpolation::Bilinear;
    kernels::GridPadding padding = kernels::GridPadding::Zeros;
    bool alignCorners = false;
    Product product = Product::AtlasA2;  // A2/A3 run the NHWC chain
};

const char* interpolationName(kernels::GridInterpolation mode);
const char* paddingName(kernels::GridPadding mode);

GridSamplerProblem validateGridSampler2DBackward(const GridSamplerArgs& args, Product product);

}  // namespace opscope::grid_sampler
