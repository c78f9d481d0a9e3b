#include "opscope/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "opscope/dispatch.h"
#include "opscope/host_tensor.h"

namespace opscope {
namespace {

template <class T>
TensorStats statsContiguous(const T* p, int64_t n) {
    TensorStats s;
    s.count = n;
    // Sums of v - shift (the first finite value): the variance does not cancel for a large mean.
    double sum = 0, sumAbs = 0, shifted = 0, shiftedSq = 0, shift = std::numeric_limits<double>::quiet_NaN();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int64_t i = 0; i < n; ++i) {
        const double v = convertValue<double>(p[i]);
        if (std::isnan(v)) {
            ++s.nanCount;
            continue;
        }
        if (std::isinf(v)) {
            ++s.infCount;
            continue;
        }
        ++s.finiteCount;
        if (std::isnan(shift)) shift = v;
        s.zeroCount += v == 0;
        sum += v;
        shifted += v - shift;
        shiftedSq += (v - shift) * (v - shift);
        sumAbs += std::fabs(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (s.finiteCount > 0) {
        s.min = lo;
        s.max = hi;
        const double finite = static_cast<double>(s.finiteCount), shiftedMean = shifted / finite;
        s.mean = sum / finite;
        s.meanAbs = sumAbs / finite;
        s.stddev = std::sqrt(std::max(0.0, shiftedSq / finite - shiftedMean * shiftedMean));
    }
    return s;
}

}  // namespace

TensorStats computeStats(const TensorView& v) {
    if (v.numel() == 0) return {};
    if (!v.isContiguous()) return computeStats(HostTensor::copyOf(v).view());
    return dispatchAll(v.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return statsContiguous(static_cast<const T*>(v.first()), v.numel());
    });
}

}  // namespace opscope
