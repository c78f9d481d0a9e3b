#include "opscope/widen.h"

#include <cstring>

#include "opscope/vec16.h"
#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace opscope {

void widenToFloat(const bfloat16* src, float* dst, int64_t n) {
    const auto* s = reinterpret_cast<const uint16_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = bfloat16BitsToFloat(s[i]);
}

// 16 lanes at a time through vec16 (on AVX512-BF16 one conversion instruction per vector free of
// NaN and subnormals, else floatToBFloat16Bits' integer rounding: the scalar's bits either way),
// reading ahead by software prefetch: the Cast of a large output is bound by memory.
void narrowFromFloat(const float* src, bfloat16* dst, int64_t n) {
    int64_t i = 0;
    for (; i + vec16::kLanes <= n; i += vec16::kLanes) {
        vec16::prefetchAhead(src, i, vec16::kLanes, n);
        vec16::Vec::load(src + i).store(dst + i);
    }
    if (i < n) vec16::Vec::load(src + i, vec16::lanesFor(n - i)).store(dst + i, vec16::lanesFor(n - i));
}

void widenToFloat(const half* src, float* dst, int64_t n) {
    int64_t i = 0;
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
#endif
    for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void narrowFromFloat(const float* src, half* dst, int64_t n) {
    int64_t i = 0;
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
    }
#endif
    for (; i < n; ++i) dst[i] = half(src[i]);
}

}  // namespace opscope
