// Where to look in a tensor view: the first NaN/Inf of a tensor, and the cells of a slice whose
// error exceeds the display's tolerance. Core functions so the widgets only paint them.
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/tensor_view.h"
#include "opscope/view/slice.h"

namespace opscope::view {

// The N-D index of the first NaN or Inf in row-major order; empty when every element is finite.
std::vector<int64_t> firstNonFinite(const TensorView& tensor);

// A plane of 1 (beyond tolerance: |error| > absTolerance and relative error > relTolerance,
// or either error NaN) and 0, with how many cells are 1. The planes must have one shape.
struct ToleranceMask {
    Plane mask;
    int64_t count = 0;
};
ToleranceMask beyondTolerance(const Plane& absError, const Plane& relError, double absTolerance, double relTolerance);
// One element's verdict of that mask. A NaN error (a NaN/Inf mismatch) is as far beyond as it gets.
inline bool isBeyondTolerance(double absError, double relError, double absTolerance, double relTolerance) {
    return absError != absError || relError != relError || (absError > absTolerance && relError > relTolerance);
}

}  // namespace opscope::view
