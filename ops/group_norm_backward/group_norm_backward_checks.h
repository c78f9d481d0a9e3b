// aclnnGroupNormBackward phase-1 validation: every documented check, in the numbered order of
// ops/group_norm_backward/README.md, each failing with the aclnn status code and a message that
// names the argument and the values seen.
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/objects.h"
#include "opscope/product.h"

namespace opscope::group_norm {

// The raw C arguments.
struct GroupNormArgs {
    const aclTensor *gradOut, *input, *mean, *rstd, *gamma;
    int64_t N, C, HxW, group;
    const aclBoolArray* outputMask;
    aclTensor *gradInput, *gradGammaOut, *gradBetaOut;
};

// A validated call. outputs[i] is null when outputMask[i] is false; gamma may be null (= ones).
struct GroupNormProblem {
    const TensorView *gradOut = nullptr, *input = nullptr, *mean = nullptr, *rstd = nullptr, *gamma = nullptr;
    const TensorView* outputs[3] = {nullptr, nullptr, nullptr};  // gradInput, gradGammaOut, gradBetaOut
    std::vector<bool> mask;
    int64_t N = 0, C = 0, HxW = 0, group = 1;
    int64_t total = 0;  // N * C * HxW
};

extern const char* const kOutputNames[3];

GroupNormProblem validateGroupNormBackward(const GroupNormArgs& args, Product product);

}  // namespace opscope::group_norm
