// The cube unit's operand precisions, emulated on float32: HF32 (float32 with the mantissa
// rounded to 11 explicit bits, round to nearest even) and fp16. The Cast(HF32) / Cast(FP16)
// steps write a dense float32 tensor holding the rounded operands; the GEMM stages then
// multiply and accumulate in float32, as the cube does.
#pragma once

#include <cstdint>

#include "opscope/tensor_view.h"

namespace opscope::kernels {

enum class CubeRounding { None, HF32, FP16 };

// Rounds the 12 low mantissa bits away (RNE); NaN and Inf pass through, overflow gives Inf.
float roundToHF32(float v);

// dst[i] = round(float(src[i])) for a dense float32/float16/bfloat16 tensor.
void castForCube(const TensorView& src, float* dst, CubeRounding rounding);

}  // namespace opscope::kernels
