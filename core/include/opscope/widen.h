// Bulk conversions between the 16-bit float types and float32, written so the compiler
// vectorises them (F16C for half when the CPU has it). Rounding to 16 bits is to nearest even,
// bit-identical to Eigen's scalar conversions; NaN stays NaN.
#pragma once

#include <cstdint>

#include "opscope/float16.h"

namespace opscope {

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
