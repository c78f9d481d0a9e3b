// First non-finite element and beyond-tolerance masks (see masks.h).
#include "opscope/view/masks.h"

#include <cmath>
#include <stdexcept>

#include "opscope/error.h"

namespace opscope::view {

std::vector<int64_t> firstNonFinite(const TensorView& tensor) {
    const std::vector<int64_t>& shape = tensor.shape;
    const int64_t n = tensor.numel();
    std::vector<int64_t> index(shape.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
        // Row-major flat index -> N-D index, advanced like an odometer.
        if (i > 0)
            for (std::size_t a = shape.size(); a-- > 0;) {
                if (++index[a] < shape[a]) break;
                index[a] = 0;
            }
        if (!std::isfinite(elementValue(tensor, index))) return index;
    }
    return {};
}

ToleranceMask beyondTolerance(const Plane& absError, const Plane& relError, double absTolerance, double relTolerance) {
    if (absError.rows != relError.rows || absError.cols != relError.cols)
        throw UsageError("beyondTolerance: the error planes differ in shape");
    ToleranceMask m;
    m.mask = Plane{absError.rows, absError.cols, std::vector<double>(absError.values.size(), 0.0)};
    for (std::size_t i = 0; i < m.mask.values.size(); ++i) {
        const double a = absError.values[i], r = relError.values[i];
        // A NaN error (a NaN/Inf mismatch) is as far beyond as it gets.
        const bool out = std::isnan(a) || std::isnan(r) || (a > absTolerance && r > relTolerance);
        m.mask.values[i] = out ? 1.0 : 0.0;
        m.count += out ? 1 : 0;
    }
    return m;
}

}  // namespace opscope::view
