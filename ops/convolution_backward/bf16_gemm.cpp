// Design: a small packed GEMM around vdpbf16ps (16 lanes, each lane += a0*b0 + a1*b1 for a
// pair of bf16 along k, in float32). A is packed into panels of 12 rows and B into panels of 32
// columns, both as bf16 pairs along k (an odd k is padded with zero), in k blocks of 512; the
// 12x32 micro-kernel keeps 24 zmm accumulators. The operands are bf16-exact float32 values, so
// taking their high 16 bits is the exact conversion. Single-threaded: the stages parallelise.
#include "bf16_gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#if defined(__AVX512F__) && defined(__AVX512BF16__)
#include <immintrin.h>
#define OPSCOPE_BF16_DOT 1
// GCC 12 reports a false -Wmaybe-uninitialized inside its own AVX-512 shift intrinsics
// (_mm512_undefined_epi32 as the pass-through operand).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace opscope::kernels {

#ifdef OPSCOPE_BF16_DOT
namespace {

constexpr int64_t kMR = 12, kNR = 32, kKc = 512;

inline uint32_t hi16(float v) {
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    return u >> 16;
}
inline uint32_t pairOf(float lo, float hi) { return hi16(lo) | (hi16(hi) << 16); }

// The pairs of 16 rows at k and k+1 (rows contiguous): low halves from k, high from k+1.
inline __m512i pairsAcrossRows(__mmask16 live, const float* atK, const float* atK1) {
    const __m512i lo = _mm512_castps_si512(_mm512_maskz_loadu_ps(live, atK));
    const __m512i hi = atK1 ? _mm512_castps_si512(_mm512_maskz_loadu_ps(live, atK1)) : _mm512_setzero_si512();
    return _mm512_or_si512(_mm512_srli_epi32(lo, 16), _mm512_and_si512(hi, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

inline __mmask16 firstLanes(int64_t n) {
    return n >= 16 ? static_cast<__mmask16>(0xFFFF) : n <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << n) - 1);
}

// Packs rows [0, rows) x k [k0, k0 + kc) of m (element (r, k) at m[r*s + k*ks]) into panels of
// R rows: panel[p*R + r] = the pair (k0 + 2p, k0 + 2p + 1) of row r, zero past the end. The two
// unit-stride layouts (rows contiguous, or k contiguous) are vectorised; others go element-wise.
template <int64_t R>
void pack(int64_t rows, int64_t k0, int64_t kc, const float* m, int64_t s, int64_t ks, uint32_t* out) {
    const int64_t kp = (kc + 1) / 2;
    for (int64_t r0 = 0; r0 < rows; r0 += R) {
        uint32_t* panel = out + (r0 / R) * kp * R;
        const int64_t live = std::min(R, rows - r0);
        if (s == 1) {
            for (int64_t p = 0; p < kp; ++p) {
                const float* atK = m + r0 + (k0 + 2 * p) * ks;
                const float* atK1 = 2 * p + 1 < kc ? atK + ks : nullptr;
                for (int64_t q = 0; q < R; q += 16)
                    _mm512_mask_storeu_epi32(panel + p * R + q, firstLanes(R - q),
                                             pairsAcrossRows(firstLanes(live - q), atK + q, atK1 ? atK1 + q : nullptr));
            }
            continue;
        }
        for (int64_t r = 0; r < R; ++r) {
            if (r >= live) {
                for (int64_t p = 0; p < kp; ++p) panel[p * R + r] = 0u;
                continue;
            }
            const float* row = m + (r0 + r) * s + k0 * ks;
            if (ks == 1) {  // 32 consecutive values -> 16 pairs, spread over the panel's column r
                alignas(64) uint32_t pairs[16];
                for (int64_t p0 = 0; p0 < kp; p0 += 16) {
                    const int64_t left = kc - 2 * p0;
                    const __m512 lo = _mm512_maskz_loadu_ps(firstLanes(left), row + 2 * p0);
                    const __m512 hi = _mm512_maskz_loadu_ps(firstLanes(left - 16), row + 2 * p0 + 16);
                    // Exact: every value is bf16-representable, so rounding to bf16 keeps it.
                    _mm512_store_si512(pairs, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
                    const int64_t n = std::min<int64_t>(16, kp - p0);
                    for (int64_t q = 0; q < n; ++q) panel[(p0 + q) * R + r] = pairs[q];
                }
                continue;
            }
            for (int64_t p = 0; p < kp; ++p) panel[p * R + r] = pairOf(row[2 * p * ks], 2 * p + 1 < kc ? row[(2 * p + 1) * ks] : 0.0f);
        }
    }
}

inline __m512 dot(__m512 acc, __m512i a, __m512i b) {
    return _mm512_dpbf16_ps(acc, (__m512bh)a, (__m512bh)b);
}

// C[mr x nr] (+)= packed A panel (kp pairs x 12) . packed B panel (kp pairs x 32).
void microKernel(int64_t kp, const uint32_t* pa, const uint32_t* pb, float* c, int64_t ldc, int64_t mr, int64_t nr,
                 bool accumulate) {
    __m512 acc[kMR][2];
    for (int64_t r = 0; r < kMR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int64_t p = 0; p < kp; ++p) {
        const __m512i b0 = _mm512_loadu_si512(pb + p * kNR);
        const __m512i b1 = _mm512_loadu_si512(pb + p * kNR + 16);
        const uint32_t* ap = pa + p * kMR;
        for (int64_t r = 0; r < kMR; ++r) {
            const __m512i av = _mm512_set1_epi32(static_cast<int>(ap[r]));
            acc[r][0] = dot(acc[r][0], av, b0);
            acc[r][1] = dot(acc[r][1], av, b1);
        }
    }
    const __mmask16 m0 = nr >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << nr) - 1);
    const __mmask16 m1 = nr >= 32   ? static_cast<__mmask16>(0xFFFF)
                         : nr > 16 ? static_cast<__mmask16>((1u << (nr - 16)) - 1)
                                   : static_cast<__mmask16>(0);
    for (int64_t r = 0; r < mr; ++r) {
        float* cr = c + r * ldc;
        __m512 v0 = acc[r][0], v1 = acc[r][1];
        if (accumulate) {
            v0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, cr), v0);
            v1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, cr + 16), v1);
        }
        _mm512_mask_storeu_ps(cr, m0, v0);
        _mm512_mask_storeu_ps(cr + 16, m1, v1);
    }
}

}  // namespace

bool bf16GemmAvailable() { return true; }

Bf16PackedA::Bf16PackedA(int64_t M, int64_t K, const float* a, int64_t ars, int64_t acs) { pack(M, K, a, ars, acs); }

void Bf16PackedA::pack(int64_t M, int64_t K, const float* a, int64_t ars, int64_t acs) {
    M_ = std::max<int64_t>(0, M);
    K_ = std::max<int64_t>(0, K);
    const int64_t mPanels = (M_ + kMR - 1) / kMR;
    blocks_.clear();
    data_.clear();  // keeps its capacity
    for (int64_t k0 = 0; k0 < K_; k0 += kKc) {
        const int64_t kc = std::min(kKc, K_ - k0);
        blocks_.push_back(static_cast<int64_t>(data_.size()));
        data_.resize(data_.size() + static_cast<std::size_t>(mPanels * ((kc + 1) / 2) * kMR));
    }
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const int64_t k0 = static_cast<int64_t>(b) * kKc;
        ::opscope::kernels::pack<kMR>(M_, k0, std::min(kKc, K_ - k0), a, ars, acs, data_.data() + blocks_[b]);
    }
}

void gemmBf16(const Bf16PackedA& a, int64_t N, const float* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
              bool accumulate) {
    const int64_t M = a.rows(), K = a.depth();
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, 0.0f);
        return;
    }
    thread_local std::vector<uint32_t> pb;
    const int64_t mPanels = (M + kMR - 1) / kMR, nPanels = (N + kNR - 1) / kNR;
    for (int64_t k0 = 0, blk = 0; k0 < K; k0 += kKc, ++blk) {
        const int64_t kc = std::min(kKc, K - k0), kp = (kc + 1) / 2;
        pb.resize(static_cast<std::size_t>(nPanels * kp * kNR));
        pack<kNR>(N, k0, kc, b, bcs, brs, pb.data());
        const uint32_t* pa = a.block(blk);
        const bool acc = accumulate || k0 > 0;
        for (int64_t jp = 0; jp < nPanels; ++jp)
            for (int64_t ip = 0; ip < mPanels; ++ip)
                microKernel(kp, pa + ip * kp * kMR, pb.data() + jp * kp * kNR, c + ip * kMR * ldc + jp * kNR, ldc,
                            std::min(kMR, M - ip * kMR), std::min(kNR, N - jp * kNR), acc);
    }
}

void gemmBf16(int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
              int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    thread_local Bf16PackedA packed;
    packed.pack(M, K, a, ars, acs);
    gemmBf16(packed, N, b, brs, bcs, c, ldc, accumulate);
}

#else

bool bf16GemmAvailable() { return false; }

[[noreturn]] static void noKernel() { throw std::logic_error("gemmBf16: this build has no AVX512-BF16 kernel"); }
Bf16PackedA::Bf16PackedA(int64_t, int64_t, const float*, int64_t, int64_t) { noKernel(); }
void Bf16PackedA::pack(int64_t, int64_t, const float*, int64_t, int64_t) { noKernel(); }
void gemmBf16(const Bf16PackedA&, int64_t, const float*, int64_t, int64_t, float*, int64_t, bool) { noKernel(); }
void gemmBf16(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, const float*, int64_t, int64_t, float*, int64_t,
              bool) {
    noKernel();
}

#endif

}  // namespace opscope::kernels
