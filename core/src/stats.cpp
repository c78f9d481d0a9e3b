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
    StatsAccumulator acc;
    for (int64_t i = 0; i < n; ++i) acc.add(convertValue<double>(p[i]));
    return acc.stats();
}

}  // namespace

TensorStats StatsAccumulator::stats() const {
    TensorStats s;
    s.count = count_;
    s.finiteCount = finite_;
    s.nanCount = nan_;
    s.infCount = inf_;
    s.zeroCount = zero_;
    if (finite_ == 0) return s;
    const double finite = static_cast<double>(finite_), shiftedMean = shifted_ / finite;
    s.min = lo_;
    s.max = hi_;
    s.mean = sum_ / finite;
    s.meanAbs = sumAbs_ / finite;
    s.stddev = std::sqrt(std::max(0.0, shiftedSq_ / finite - shiftedMean * shiftedMean));
    return s;
}

TensorStats computeStats(const TensorView& v) {
    if (v.numel() == 0) return {};
    if (!v.isContiguous()) return computeStats(HostTensor::copyOf(v).view());
    return dispatchAll(v.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return statsContiguous(static_cast<const T*>(v.first()), v.numel());
    });
}

}  // namespace opscope
