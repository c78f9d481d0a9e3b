// Short float rows (a few dozen values: one output row of a convolution) copied, gathered with
// stride 2 and zeroed in AVX-512 registers with masked tails. The compiler would turn plain loops
// into memset/memmove calls, whose call and dispatch cost more than such a copy. Builds without
// AVX-512 use the plain loops; all of these only move values, so the bits are the same.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace opscope::kernels {

#if defined(__AVX512F__)
// The mask of the first n of 16 lanes (none for n <= 0, all for n >= 16).
inline __mmask16 firstLanes(int64_t n) {
    return n >= 16  ? static_cast<__mmask16>(0xFFFF)
           : n <= 0 ? static_cast<__mmask16>(0)
                    : static_cast<__mmask16>((1u << n) - 1);
}
#endif

inline void zeroRow(float* dst, int64_t n) {
#if defined(__AVX512F__)
    for (int64_t j = 0; j < n; j += 16) _mm512_mask_storeu_ps(dst + j, firstLanes(n - j), _mm512_setzero_ps());
#else
    std::fill(dst, dst + n, 0.0f);
#endif
}

inline void copyRow(const float* src, float* dst, int64_t n) {
#if defined(__AVX512F__)
    for (int64_t j = 0; j < n; j += 16) {
        const __mmask16 m = firstLanes(n - j);
        _mm512_mask_storeu_ps(dst + j, m, _mm512_maskz_loadu_ps(m, src + j));
    }
#else
    std::copy(src, src + n, dst);
#endif
}

// dst[j] = src[j * stride] for j in [0, n).
inline void gatherRow(const float* src, int64_t stride, float* dst, int64_t n) {
#if defined(__AVX512F__)
    if (stride == 2) {  // 32 values in two loads, the even ones picked by one permute
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        for (int64_t j = 0; j < n; j += 16) {
            const int64_t need = 2 * std::min<int64_t>(16, n - j) - 1;  // values read: never past the last
            const __m512 lo = _mm512_maskz_loadu_ps(firstLanes(need), src + 2 * j);
            const __m512 hi = _mm512_maskz_loadu_ps(firstLanes(need - 16), src + 2 * j + 16);
            _mm512_mask_storeu_ps(dst + j, firstLanes(n - j), _mm512_permutex2var_ps(lo, even, hi));
        }
        return;
    }
#endif
    for (int64_t j = 0; j < n; ++j) dst[j] = src[j * stride];
}

// The same for bf16 storage (uint16_t: the bits of each value), 32 values per register.
#if defined(__AVX512BW__)
inline __mmask32 firstLanes32(int64_t n) {
    return n >= 32 ? ~__mmask32{0} : n <= 0 ? __mmask32{0} : (__mmask32{1} << n) - 1;
}
#endif

inline void zeroRow(uint16_t* dst, int64_t n) {
#if defined(__AVX512BW__)
    for (int64_t j = 0; j < n; j += 32) _mm512_mask_storeu_epi16(dst + j, firstLanes32(n - j), _mm512_setzero_si512());
#else
    std::fill(dst, dst + n, uint16_t{0});
#endif
}

inline void copyRow(const uint16_t* src, uint16_t* dst, int64_t n) {
#if defined(__AVX512BW__)
    for (int64_t j = 0; j < n; j += 32) {
        const __mmask32 m = firstLanes32(n - j);
        _mm512_mask_storeu_epi16(dst + j, m, _mm512_maskz_loadu_epi16(m, src + j));
    }
#else
    std::copy(src, src + n, dst);
#endif
}

inline void gatherRow(const uint16_t* src, int64_t stride, uint16_t* dst, int64_t n) {
#if defined(__AVX512BW__)
    if (stride == 2) {
        alignas(64) static constexpr uint16_t kEven[32] = {0,  2,  4,  6,  8,  10, 12, 14, 16, 18, 20,
                                                           22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42,
                                                           44, 46, 48, 50, 52, 54, 56, 58, 60, 62};
        const __m512i even = _mm512_load_si512(kEven);
        for (int64_t j = 0; j < n; j += 32) {
            const int64_t need = 2 * std::min<int64_t>(32, n - j) - 1;
            const __m512i lo = _mm512_maskz_loadu_epi16(firstLanes32(need), src + 2 * j);
            const __m512i hi = _mm512_maskz_loadu_epi16(firstLanes32(need - 32), src + 2 * j + 32);
            _mm512_mask_storeu_epi16(dst + j, firstLanes32(n - j), _mm512_permutex2var_epi16(lo, even, hi));
        }
        return;
    }
#endif
    for (int64_t j = 0; j < n; ++j) dst[j] = src[j * stride];
}

}  // namespace opscope::kernels
