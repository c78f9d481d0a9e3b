// What leaves the debugger from a heatmap: the displayed slice as a tensor of its own dtype
// (for .npy), as CSV text, and one value written with every digit its dtype holds.
#pragma once

#include <string>

#include "opscope/view/slice.h"

namespace opscope::view {

// The slice as a tensor of its own: view::sliceView (slice.h), made contiguous by HostTensor::copyOf.

// The value with the fewest digits that read back as the same value of `dtype` (float32 and
// narrower: as a float, so 0.1f is "0.1"; float64: as a double; integers exactly); "nan",
// "inf", "-inf" spelled out.
std::string fullPrecisionText(double value, DType dtype);

// One line per row, values separated by commas, each fullPrecisionText in `dtype`.
std::string planeCsv(const Plane& plane, DType dtype);

}  // namespace opscope::view
