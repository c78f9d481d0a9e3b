// A planned 2-D aclnnConvolutionBackward that asks for gradInput alone (stride and dilation 1, no
// padding, no bias sizes, cubeMathType 0): for the tests that look at one launch of it.
#pragma once

#include <cstdint>

#include "aclnnop/aclnn_convolution_backward.h"
#include "device_tensor.h"

namespace opscope::test {

struct ConvGradInputCall {
    IntArray one{{1, 1}}, zero{{0, 0}};
    BoolArray mask{{true, false, false}};
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;

    // Phase 1; the executor and its workspace size are left in exe and ws.
    aclnnStatus plan(const aclTensor* dy, const aclTensor* x, const aclTensor* w, int groups, aclTensor* dx) {
        return aclnnConvolutionBackwardGetWorkspaceSize(dy, x, w, nullptr, one, one, one, false, zero, groups, mask, 0,
                                                        dx, nullptr, nullptr, &ws, &exe);
    }
};

}  // namespace opscope::test
