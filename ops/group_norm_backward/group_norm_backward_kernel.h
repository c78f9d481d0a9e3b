// GroupNormBackward kernels on dense float32 (the plan widens fp16/bf16 before and rounds
// after). Layout: x, dy are [N, C, HxW]; mean, rstd are [N, G]; gamma is [C] or null (= 1).
#pragma once

#include <cstdint>

namespace opscope::kernels {

struct GroupNormShape {
    int64_t N = 0, C = 0, HxW = 0, G = 1;
    int64_t channelsPerGroup() const { return C / G; }
};

// ds[n,c] = sum_hw dy*x, db[n,c] = sum_hw dy.
void groupNormReduce(const GroupNormShape& s, const float* dy, const float* x, float* ds, float* db);

// The reduction above fused with dx, group by group, so each group's dy and x are read from
// memory once and re-read from cache for dx.
void groupNormReduceAndInputGrad(const GroupNormShape& s, const float* dy, const float* x, const float* mean,
                                 const float* rstd, const float* gamma, float* ds, float* db, float* dx);

// dgamma[c] = sum_n (ds - db*mean)*rstd, dbeta[c] = sum_n db; either output may be null.
void groupNormGammaBetaGrad(const GroupNormShape& s, const float* ds, const float* db, const float* mean,
                            const float* rstd, float* dgamma, float* dbeta);

}  // namespace opscope::kernels
