// RmsNormGrad kernels. x, dy are [rows, cols] (rows = the leading axes x[0:n], cols = gamma's
// axes x[n:]), stored densely in their dtype (float32, float16 or bfloat16); rstd is [rows] and
// gamma [cols], both float32. Formulas: ops/rms_norm_grad/README.md.
#pragma once

#include <cstdint>

#include "opscope/dtype.h"

namespace opscope::kernels {

struct RmsNormGradShape {
    int64_t rows = 0, cols = 0;
};

// How many row partitions the fused pass uses: one per thread while each still gets enough
// work. Chosen once, when the plan is built; the results depend on it and on nothing else.
int rmsNormGradPartitions(const RmsNormGradShape& s, int threads);

// One pass over the rows, partition by partition. Per row r (dy and x read from memory once;
// the second sweep over the row hits the cache):
//   s  = sum_j dy*gamma*x                         (float lanes, summed in double)
//   dx = rstd*(dy*gamma) - x*(rstd^3 * s / cols)  written in `dtype` (rounded once)
//   partials[p, j] += dy*x*rstd                   (the partition's own float buffer)
// dy, x, dx have `dtype`; partials is [partitions, cols] float32.
void rmsNormGradRows(const RmsNormGradShape& s, DType dtype, const void* dy, const void* x, const float* rstd,
                     const float* gamma, void* dx, float* partials, int partitions);

// dgamma[j] = sum over partitions p = 0, 1, ... of partials[p, j] (double, fixed order).
void rmsNormGradGammaReduce(const RmsNormGradShape& s, const float* partials, int partitions, float* dgamma);

// Index of the first NaN or Inf among n elements of `dtype`, or -1.
int64_t findNonFinite(DType dtype, const void* data, int64_t n);

}  // namespace opscope::kernels
