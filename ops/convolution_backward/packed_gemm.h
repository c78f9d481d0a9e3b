// The GEMM under every convolution stage: packed operands and a 12x32 AVX-512 micro-kernel,
// in two arithmetic kinds —
//   Float32: float32 operands and sums (vfmadd);
//   BFloat16: operands exact in bfloat16 (held in float32 with the low 16 bits zero), products
//             exact, sums in float32: what the cube does, with the bits of AVX512-BF16 dot
//             products (vdpbf16ps), run on either of two engines (Bf16Engine).
// Builds without AVX-512 (or without AVX512-BF16 for BFloat16) fall back to Eigen's float32
// GEMM, which is the same arithmetic class. Single-threaded: the stages parallelise.
#pragma once

#include <cstdint>
#include <vector>

namespace opscope::kernels {

enum class GemmKind { Float32, BFloat16 };

// True when this build runs `kind` on the packed AVX-512 kernel (else Eigen).
bool packedGemmAvailable(GemmKind kind);
// True when the BFloat16 kind also takes operands straight from bf16 storage (uint16_t: the bits
// of each value), which only the AVX512-BF16 kernel does; they pack to the same units as their
// float32 widening, so the results have the same bits.
bool bf16StorageAvailable();
const char* gemmDescription(GemmKind kind);  // for the executor's "gemm" parameter

// How the BFloat16 kind's sums run where the packed bf16 kernel is available:
//   DotProducts: one vdpbf16ps per pair of k (k, k+1);
//   Float32Fmas: two float32 FMAs per pair, k+1 first, with denormals flushed (MXCSR FTZ and DAZ)
//                as vdpbf16ps always flushes them.
// Both give the same bits, NaN, infinities and denormals included (test_packed_gemm), so the
// choice is speed only: where vdpbf16ps issues at half the FMA rate (bench: BM_PeakFma) the FMAs
// are faster, although they are twice as many instructions.
enum class Bf16Engine { DotProducts, Float32Fmas };
// The engine in use: OPSCOPE_BF16_GEMM=dot|fma, else the faster of the two, measured once at
// first use on in-cache panels (~1 ms).
Bf16Engine bf16Engine();
void setBf16Engine(Bf16Engine engine);  // tests and benchmarks
const char* bf16EngineName(Bf16Engine engine);

// A (M x K, A(i, k) = a[i*ars + k*acs]) packed once for several products, e.g. a weight that
// multiplies every column tile.
class PackedA {
public:
    PackedA() = default;
    void pack(GemmKind kind, int64_t M, int64_t K, const float* a, int64_t ars, int64_t acs);     // reuses storage
    void pack(GemmKind kind, int64_t M, int64_t K, const uint16_t* a, int64_t ars, int64_t acs);  // bf16 storage
    GemmKind kind() const { return kind_; }
    int64_t rows() const { return M_; }
    int64_t depth() const { return K_; }
    bool onFmas() const { return fmas_; }  // BFloat16 packed for the Float32Fmas engine

private:
    friend void gemm(const PackedA&, int64_t, const float*, int64_t, int64_t, float*, int64_t, bool);
    friend void gemm(const PackedA&, int64_t, const uint16_t*, int64_t, int64_t, float*, int64_t, bool);
    template <class T>
    void packBlocks(int64_t M, int64_t K, const T* a, int64_t ars, int64_t acs);
    GemmKind kind_ = GemmKind::Float32;
    int64_t M_ = 0, K_ = 0;
    const float* a_ = nullptr;  // the Eigen fallback multiplies A in place
    int64_t ars_ = 0, acs_ = 0;
    bool fmas_ = false;
    std::vector<uint32_t> data_;   // per k block: panels of 12 rows along k (bf16: pairs along k,
                                   // or on the FMAs two float32 slots per pair: k+1, then k)
    std::vector<int64_t> blocks_;  // offset of each k block in data_
};

// C (M x N, row stride ldc) = A · B, or C += A · B with `accumulate`, where
// B(k, j) = b[k*brs + j*bcs]. Sums per element in a fixed order: same bits on every call.
void gemm(const PackedA& a, int64_t N, const float* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
          bool accumulate);

void gemm(const PackedA& a, int64_t N, const uint16_t* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
          bool accumulate);  // bf16 storage: needs bf16StorageAvailable() and a BFloat16 A

// The same with A packed on the fly.
void gemm(GemmKind kind, int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs, const float* b,
          int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate);

void gemmBf16Storage(GemmKind kind, int64_t M, int64_t N, int64_t K, const uint16_t* a, int64_t ars, int64_t acs,
                     const uint16_t* b, int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate);

// The same with A(i, k) = a[rowOffset[i] + kIndex[k]] read in place, never packed: each
// micro-kernel step broadcasts A's values straight from its 12 rows. For an A whose packing would
// be a transpose (rows along k: a column block, or windows of a padded input read as one) when B
// is the smaller operand to pack. bf16: each unit (k, k+1), k even, must be adjacent in memory
// (kIndex[k+1] = kIndex[k] + 1). The same steps per element as gemm(), so the same bits.
void gemmInPlaceA(GemmKind kind, int64_t M, int64_t N, int64_t K, const float* a, const int64_t* rowOffset,
                  const int32_t* kIndex, const float* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
                  bool accumulate);
void gemmInPlaceA(GemmKind kind, int64_t M, int64_t N, int64_t K, const uint16_t* a, const int64_t* rowOffset,
                  const int32_t* kIndex, const uint16_t* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
                  bool accumulate);  // bf16 storage

}  // namespace opscope::kernels
