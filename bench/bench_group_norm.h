// One GroupNormBackward call with all three gradients through the public API: the operator's
// benchmark times it at size, the trace-cost benchmark at a size where the kernel is negligible.
#pragma once

#include <vector>

#include "aclnnop/aclnn_group_norm_backward.h"
#include "bench_common.h"

namespace opscope::bench {

class GroupNormCall {
public:
    // x is [N, C, spatial...]; mean and rstd [N, G], gamma [C].
    GroupNormCall(const std::vector<int64_t>& xShape, int64_t G, aclDataType dtype)
        : N_(xShape[0]),
          C_(xShape[1]),
          HxW_(spatialSize(xShape)),
          G_(G),
          dy_(xShape, dtype),
          x_(xShape, dtype, -2, 2, 2),
          mean_({N_, G}, dtype, -0.1f, 0.1f, 3),
          rstd_({N_, G}, dtype, 0.5f, 2.f, 4),
          gamma_({C_}, dtype, 0.5f, 1.5f, 5),
          dx_(xShape, dtype),
          dg_({C_}, dtype),
          db_({C_}, dtype) {
        const bool all[3] = {true, true, true};
        mask_ = aclCreateBoolArray(all, 3);
    }
    ~GroupNormCall() { aclDestroyBoolArray(mask_); }
    GroupNormCall(const GroupNormCall&) = delete;
    GroupNormCall& operator=(const GroupNormCall&) = delete;

    // Phase 1, phase 2 and synchronize (runAndSync).
    void run(benchmark::State& state, aclrtStream stream) const {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st = aclnnGroupNormBackwardGetWorkspaceSize(dy_, x_, mean_, rstd_, gamma_, N_, C_, HxW_, G_,
                                                                      mask_, dx_, dg_, db_, &ws, &exe);
        runAndSync(state, st, ws, exe, aclnnGroupNormBackward, stream);
    }
    // What one call streams (dy, x read; dx written), and every tensor it touches.
    size_t streamedBytes() const { return dy_.bytes() + x_.bytes() + dx_.bytes(); }
    size_t touchedBytes() const {
        return streamedBytes() + mean_.bytes() + rstd_.bytes() + gamma_.bytes() + dg_.bytes() + db_.bytes();
    }

private:
    static int64_t spatialSize(const std::vector<int64_t>& shape) {
        int64_t n = 1;
        for (std::size_t i = 2; i < shape.size(); ++i) n *= shape[i];
        return n;
    }

    int64_t N_, C_, HxW_, G_;
    BenchTensor dy_, x_, mean_, rstd_, gamma_, dx_, dg_, db_;
    aclBoolArray* mask_ = nullptr;
};

}  // namespace opscope::bench
