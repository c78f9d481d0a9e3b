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

// Element (r, p) of a packed operand: the pair (k0 + 2p, k0 + 2p + 1) of row (or column) r.
// `s` strides along rows/columns, `ks` along k; the loop order follows the smaller stride.
template <int64_t R>
void pack(int64_t rows, int64_t k0, int64_t kc, const float* m, int64_t s, int64_t ks, uint32_t* out) {
    const int64_t kp = (kc + 1) / 2;
    for (int64_t r0 = 0; r0 < rows; r0 += R) {
        uint32_t* panel = out + (r0 / R) * kp * R;
        const int64_t live = std::min(R, rows - r0);
        auto at = [&](int64_t r, int64_t p) {
            const float* e = m + (r0 + r) * s + (k0 + 2 * p) * ks;
            return pairOf(e[0], 2 * p + 1 < kc ? e[ks] : 0.0f);
        };
        if (std::llabs(ks) <= std::llabs(s)) {
            for (int64_t r = 0; r < R; ++r)
                for (int64_t p = 0; p < kp; ++p) panel[p * R + r] = r < live ? at(r, p) : 0u;
        } else {
            for (int64_t p = 0; p < kp; ++p)
                for (int64_t r = 0; r < R; ++r) panel[p * R + r] = r < live ? at(r, p) : 0u;
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

void gemmBf16(int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
              int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (int64_t i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, 0.0f);
        return;
    }
    thread_local std::vector<uint32_t> pa, pb;
    const int64_t mPanels = (M + kMR - 1) / kMR, nPanels = (N + kNR - 1) / kNR;
    for (int64_t k0 = 0; k0 < K; k0 += kKc) {
        const int64_t kc = std::min(kKc, K - k0), kp = (kc + 1) / 2;
        pa.resize(static_cast<std::size_t>(mPanels * kp * kMR));
        pb.resize(static_cast<std::size_t>(nPanels * kp * kNR));
        pack<kMR>(M, k0, kc, a, ars, acs, pa.data());
        pack<kNR>(N, k0, kc, b, bcs, brs, pb.data());
        const bool acc = accumulate || k0 > 0;
        for (int64_t jp = 0; jp < nPanels; ++jp)
            for (int64_t ip = 0; ip < mPanels; ++ip)
                microKernel(kp, pa.data() + ip * kp * kMR, pb.data() + jp * kp * kNR, c + ip * kMR * ldc + jp * kNR,
                            ldc, std::min(kMR, M - ip * kMR), std::min(kNR, N - jp * kNR), acc);
    }
}

#else

bool bf16GemmAvailable() { return false; }

void gemmBf16(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, const float*, int64_t, int64_t, float*, int64_t,
              bool) {
    throw std::logic_error("gemmBf16: this build has no AVX512-BF16 kernel");
}

#endif

}  // namespace opscope::kernels
