// GroupNormBackward kernels. dy, x and dx are dense [N, C, HxW] in the operator's `dtype`
// (float32, float16 or bfloat16): elements are widened to float32 in registers (the device
// kernel widens tiles in its local memory), and dx is rounded to `dtype` once. mean, rstd, gamma, ds,
// db, dgamma, dbeta are float32 ([N, G], [C], [N, C], [C]); gamma may be null (= ones).
#pragma once

#include <cstdint>

#include "opscope/dtype.h"

namespace opscope::kernels {

struct GroupNormShape {
    int64_t N = 0, C = 0, HxW = 0, G = 1;
    int64_t channelsPerGroup() const { return C / G; }
};

// ds[n,c] = sum_hw dy*x, db[n,c] = sum_hw dy.
void groupNormReduce(const GroupNormShape& s, DType dtype, const void* dy, const void* x, float* ds, float* db);

// The reduction above fused with dx, group by group, so each group's dy and x are read from
// memory once and re-read from cache for dx.
void groupNormReduceAndInputGrad(const GroupNormShape& s, DType dtype, const void* dy, const void* x, const float* mean,
                                 const float* rstd, const float* gamma, float* ds, float* db, void* dx);

// dgamma[c] = sum_n (ds - db*mean)*rstd, dbeta[c] = sum_n db; either output may be null.
void groupNormGammaBetaGrad(const GroupNormShape& s, const float* ds, const float* db, const float* mean,
                            const float* rstd, float* dgamma, float* dbeta);

}  // namespace opscope::kernels
