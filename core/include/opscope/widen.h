// Bulk conversions between the 16-bit float types and float32, vectorised (F16C for half when
// the CPU has it; float32 -> bf16, the shared output Cast, through vec16.h's 16 lanes). Rounding
// to 16 bits is to nearest even, bit-identical to Eigen's scalar conversions; NaN stays NaN.
#pragma once

#include <cstdint>
#include <cstring>

#include "opscope/float16.h"

namespace opscope {

// A float32's bit pattern and back.
inline uint32_t floatBits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline float floatFromBits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// The bfloat16 conversions on bit patterns, element by element; the bulk functions below and
// vec16.h's lanes are built on them. Widening is exact (the high half of a float32).
inline float bfloat16BitsToFloat(uint16_t b) { return floatFromBits(static_cast<uint32_t>(b) << 16); }

// Round to nearest even, bit-identical to Eigen's scalar conversion: NaN becomes the quiet NaN
// 0x7fc0 with its sign, subnormals round like every other value.
inline uint16_t floatToBFloat16Bits(float f) {
    const uint32_t b = floatBits(f);
    const bool isNan = (b & 0x7fffffffu) > 0x7f800000u;
    const uint32_t rounded = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
    return static_cast<uint16_t>(isNan ? (((b >> 16) & 0x8000u) | 0x7fc0u) : rounded);
}

void widenToFloat(const half* src, float* dst, int64_t n);
void widenToFloat(const bfloat16* src, float* dst, int64_t n);
inline void widenToFloat(const float* src, float* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}
void narrowFromFloat(const float* src, half* dst, int64_t n);
void narrowFromFloat(const float* src, bfloat16* dst, int64_t n);
inline void narrowFromFloat(const float* src, float* dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

}  // namespace opscope
