// One aclnnConvolutionBackward call of an issue-14 workload on the benchmark's inputs, all three
// gradients: shared by the benchmark and the output-hash tool (tools/conv_output_hashes.cpp), so
// both run exactly the same call.
#pragma once

#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "bench_common.h"
#include "conv_workloads.h"

namespace opscope::bench {

class ConvCall {
public:
    ConvCall(const ConvWorkload& wl, aclDataType dtype)
        : dy(shapesOf(wl).dy, dtype),
          x(shapesOf(wl).x, dtype, -1, 1, 2),
          w(shapesOf(wl).w, dtype, -0.1f, 0.1f, 3),
          dx(shapesOf(wl).x, dtype),
          dw(shapesOf(wl).w, dtype),
          db({shapesOf(wl).dy[1]}, dtype),
          wl_(wl) {
        const std::vector<int64_t> zeros(wl.stride.size(), 0), bias = {shapesOf(wl).dy[1]};
        std::vector<int64_t> dilation(wl.stride.size());
        for (std::size_t a = 0; a < dilation.size(); ++a) dilation[a] = dilationOf(wl, a);
        stride_ = aclCreateIntArray(wl.stride.data(), wl.stride.size());
        padding_ = aclCreateIntArray(wl.pad.data(), wl.pad.size());
        dilation_ = aclCreateIntArray(dilation.data(), dilation.size());
        outputPadding_ = aclCreateIntArray(zeros.data(), zeros.size());
        biasSizes_ = aclCreateIntArray(bias.data(), bias.size());
        const bool maskData[3] = {true, true, true};
        mask_ = aclCreateBoolArray(maskData, 3);
    }
    ~ConvCall() {
        for (aclIntArray* a : {stride_, padding_, dilation_, outputPadding_, biasSizes_}) aclDestroyIntArray(a);
        aclDestroyBoolArray(mask_);
    }
    ConvCall(const ConvCall&) = delete;
    ConvCall& operator=(const ConvCall&) = delete;

    // Phase 1 (cubeMathType 0: KEEP_DTYPE).
    aclnnStatus prepare(uint64_t* workspaceSize, aclOpExecutor** executor) {
        return aclnnConvolutionBackwardGetWorkspaceSize(dy, x, w, biasSizes_, stride_, padding_, dilation_,
                                                        wl_.transposed, outputPadding_, static_cast<int>(wl_.groups),
                                                        mask_, 0, dx, dw, db, workspaceSize, executor);
    }

    BenchTensor dy, x, w, dx, dw, db;  // inputs with seeds 1, 2, 3; the outputs are overwritten

private:
    const ConvWorkload& wl_;
    aclIntArray *stride_ = nullptr, *padding_ = nullptr, *dilation_ = nullptr, *outputPadding_ = nullptr,
                *biasSizes_ = nullptr;
    aclBoolArray* mask_ = nullptr;
};

}  // namespace opscope::bench
