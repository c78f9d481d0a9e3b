#include "opscope/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "opscope/dispatch.h"
#include "opscope/host_tensor.h"

namespace opscope {
namespace {

// In rows of doubles, as the heatmap's pass adds them (a row without NaN/Inf takes the fast loop).
template <class T>
TensorStats statsContiguous(const T* p, int64_t n) {
    constexpr int64_t kRow = 4096;
    StatsAccumulator acc;
    double row[kRow];
    for (int64_t i = 0; i < n; i += kRow) {
        const int64_t m = std::min(kRow, n - i);
        for (int64_t j = 0; j < m; ++j) row[j] = convertValue<double>(p[i + j]);
        acc.add(row, m);
    }
    return acc.stats();
}

}  // namespace

bool StatsAccumulator::add(const double* v, int64_t n) {
    bool finite = true;
    for (int64_t i = 0; i < n; ++i) finite &= v[i] - v[i] == 0;
    if (!finite || n == 0) {
        for (int64_t i = 0; i < n; ++i) add(v[i]);
        return finite;
    }
    if (finite_ == 0) shift_ = v[0];
    double sum = 0, sumAbs = 0, shifted = 0, shiftedSq = 0, lo = lo_, hi = hi_;
    int64_t zero = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double x = v[i], d = x - shift_;
        zero += x == 0;
        sum += x;
        sumAbs += std::fabs(x);
        shifted += d;
        shiftedSq += d * d;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    count_ += n;
    finite_ += n;
    zero_ += zero;
    sum_ += sum;
    sumAbs_ += sumAbs;
    shifted_ += shifted;
    shiftedSq_ += shiftedSq;
    lo_ = lo;
    hi_ = hi;
    return true;
}

void StatsAccumulator::merge(const StatsAccumulator& o) {
    count_ += o.count_;
    nan_ += o.nan_;
    inf_ += o.inf_;
    if (o.finite_ == 0) return;
    if (finite_ == 0) shift_ = o.shift_;
    // o's sums of v - o.shift_ as sums of v - shift_: (v - s) = (v - so) + d.
    const double d = o.shift_ - shift_, n = static_cast<double>(o.finite_);
    shiftedSq_ += o.shiftedSq_ + 2 * d * o.shifted_ + n * d * d;
    shifted_ += o.shifted_ + n * d;
    finite_ += o.finite_;
    zero_ += o.zero_;
    sum_ += o.sum_;
    sumAbs_ += o.sumAbs_;
    lo_ = std::min(lo_, o.lo_);
    hi_ = std::max(hi_, o.hi_);
}

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
