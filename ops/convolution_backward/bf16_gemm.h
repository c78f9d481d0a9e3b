// A GEMM for the bf16 cube precision: operands are bfloat16 values (held in float32, exactly
// representable in bf16), products exact, sums in float32 — what the cube does, at the speed
// of the CPU's bf16 dot-product instructions (AVX512-BF16 vdpbf16ps).
#pragma once

#include <cstdint>

namespace opscope::kernels {

// True when this build has the bf16 dot-product kernel (compiled for a CPU with AVX512-BF16).
bool bf16GemmAvailable();

// C (M x N, row stride ldc) = A · B, or C += A · B with `accumulate`, where
// A(i, k) = a[i*ars + k*acs] and B(k, j) = b[k*brs + j*bcs]. Every A and B value must be exact
// in bfloat16 (its low 16 bits zero). Sums: float32, k in increasing order per pair of k.
void gemmBf16(int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
              int64_t bcs, float* c, int64_t ldc, bool accumulate);

}  // namespace opscope::kernels
