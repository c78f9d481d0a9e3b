// A GEMM for the bf16 cube precision: operands are bfloat16 values (held in float32, exactly
// representable in bf16), products exact, sums in float32 — what the cube does, at the speed
// of the CPU's bf16 dot-product instructions (AVX512-BF16 vdpbf16ps).
#pragma once

#include <cstdint>
#include <vector>

namespace opscope::kernels {

// True when this build has the bf16 dot-product kernel (compiled for a CPU with AVX512-BF16).
bool bf16GemmAvailable();

// A (M x K, A(i, k) = a[i*ars + k*acs]) packed once for several products, e.g. a weight that
// multiplies every column tile. Values must be exact in bfloat16.
class Bf16PackedA {
public:
    Bf16PackedA() = default;
    Bf16PackedA(int64_t M, int64_t K, const float* a, int64_t ars, int64_t acs);
    void pack(int64_t M, int64_t K, const float* a, int64_t ars, int64_t acs);  // reuses the storage
    int64_t rows() const { return M_; }
    int64_t depth() const { return K_; }
    const uint32_t* block(int64_t kBlock) const { return data_.data() + blocks_[static_cast<std::size_t>(kBlock)]; }

private:
    int64_t M_ = 0, K_ = 0;
    std::vector<uint32_t> data_;   // per k block: panels of 12 rows x pairs along k
    std::vector<int64_t> blocks_;  // offset of each k block in data_
};

// C (M x N, row stride ldc) = A · B, or C += A · B with `accumulate`, A packed beforehand.
void gemmBf16(const Bf16PackedA& a, int64_t N, const float* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
              bool accumulate);

// C (M x N, row stride ldc) = A · B, or C += A · B with `accumulate`, where
// A(i, k) = a[i*ars + k*acs] and B(k, j) = b[k*brs + j*bcs]. Every A and B value must be exact
// in bfloat16 (its low 16 bits zero). Sums: float32, k in increasing order per pair of k.
void gemmBf16(int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
              int64_t bcs, float* c, int64_t ldc, bool accumulate);

}  // namespace opscope::kernels
