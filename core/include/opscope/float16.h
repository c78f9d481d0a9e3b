// The 16-bit floating types and their conversions (round to nearest even), via Eigen.
#pragma once

#include <Eigen/Core>

namespace opscope {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

// Rounds a float through a 16-bit type and back: what storing in that dtype costs.
inline float roundToHalf(float v) { return static_cast<float>(half(v)); }
inline float roundToBFloat16(float v) { return static_cast<float>(bfloat16(v)); }

}  // namespace opscope
