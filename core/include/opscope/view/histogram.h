// Histograms of tensor values for the range control: bins spaced evenly on the display scale
// (linear, log or symlog), with counts of what falls outside the range and of NaN/Inf.
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/view/scale.h"

namespace opscope::view {

struct ValueHistogram {
    std::vector<double> edges;     // bins + 1 values, increasing
    std::vector<int64_t> counts;   // per bin
    int64_t below = 0, above = 0;  // finite values outside [edges.front(), edges.back()]
    int64_t nonFinite = 0;         // NaN and +-Inf
    int64_t maxCount() const;
};

ValueHistogram valueHistogram(const std::vector<double>& values, const ValueScale& scale, int bins);

}  // namespace opscope::view
