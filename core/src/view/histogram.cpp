#include "opscope/view/histogram.h"

#include <algorithm>
#include <cmath>

namespace opscope::view {

int64_t ValueHistogram::maxCount() const {
    return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

ValueHistogram valueHistogram(const std::vector<double>& values, const ValueScale& scale, int bins) {
    ValueHistogram h;
    bins = std::max(bins, 1);
    h.edges.resize(static_cast<std::size_t>(bins) + 1);
    for (int i = 0; i <= bins; ++i) h.edges[static_cast<std::size_t>(i)] = scale.denormalize(double(i) / bins);
    h.edges.front() = scale.range().lo;
    h.edges.back() = scale.range().hi;
    h.counts.assign(static_cast<std::size_t>(bins), 0);
    const double lo = scale.range().lo, hi = scale.range().hi;
    for (double v : values) {
        if (!std::isfinite(v)) {
            ++h.nonFinite;
        } else if (v < lo || (scale.kind() == ScaleKind::Log && v <= 0)) {
            ++h.below;
        } else if (v > hi) {
            ++h.above;
        } else {
            const int b = std::min(bins - 1, static_cast<int>(scale.normalize(v) * bins));
            ++h.counts[static_cast<std::size_t>(std::max(b, 0))];
        }
    }
    return h;
}

}  // namespace opscope::view
