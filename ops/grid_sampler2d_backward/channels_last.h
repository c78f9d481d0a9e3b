// The Transpose steps of GridSampler2DBackward's NHWC chain, with the dtype change fused into
// the same pass: NCHW in the tensor's dtype <-> NHWC float32 scratch.
#pragma once

#include <cstdint>

#include "opscope/dtype.h"

namespace opscope::kernels {

// src [N, C, HW] of `dtype` (float32, float16, bfloat16) -> dst [N, HW, C] float32.
void toChannelsLast(DType dtype, const void* src, float* dst, int64_t N, int64_t C, int64_t HW);

// src [N, HW, C] float32 -> dst [N, C, HW] of `dtype`, rounded once to nearest even.
void toChannelsFirst(const float* src, DType dtype, void* dst, int64_t N, int64_t C, int64_t HW);

}  // namespace opscope::kernels
