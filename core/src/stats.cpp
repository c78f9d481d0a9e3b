#include "opscope/stats.h"

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
    double sum = 0, sumAbs = 0;
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
        sum += v;
        sumAbs += std::fabs(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (s.finiteCount > 0) {
        s.min = lo;
        s.max = hi;
        s.mean = sum / static_cast<double>(s.finiteCount);
        s.meanAbs = sumAbs / static_cast<double>(s.finiteCount);
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
