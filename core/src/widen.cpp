#include "opscope/widen.h"

#include <cstring>
#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace opscope {

void widenToFloat(const bfloat16* src, float* dst, int64_t n) {
    const auto* s = reinterpret_cast<const uint16_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = bfloat16BitsToFloat(s[i]);
}

void narrowFromFloat(const float* src, bfloat16* dst, int64_t n) {
    auto* d = reinterpret_cast<uint16_t*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = floatToBFloat16Bits(src[i]);
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
