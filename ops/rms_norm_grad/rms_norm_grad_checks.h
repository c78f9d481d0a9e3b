// aclnnRmsNormGrad phase-1 validation: every documented check, in the numbered order of
// ops/rms_norm_grad/README.md, each failing with the aclnn status code and a message that names
// the argument and the values seen.
#pragma once

#include <cstdint>

#include "opscope/objects.h"
#include "opscope/product.h"

namespace opscope::rms_norm {

// The raw C arguments.
struct RmsNormGradArgs {
    const aclTensor *dy, *x, *rstd, *gamma, *dxOut, *dgammaOut;
};

// A validated call: x is [x[0:leadingAxes] (rows), x[leadingAxes:] (gamma's axes)].
struct RmsNormGradProblem {
    const TensorView *dy = nullptr, *x = nullptr, *rstd = nullptr, *gamma = nullptr;
    const TensorView *dxOut = nullptr, *dgammaOut = nullptr;
    int64_t leadingAxes = 0;
    Product product = Product::AtlasA2;  // the inference series adds a CheckFinite step
};

RmsNormGradProblem validateRmsNormGrad(const RmsNormGradArgs& args, Product product);

}  // namespace opscope::rms_norm
