// Summary statistics of a tensor, as shown per step in traces and the debugger.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "opscope/tensor_view.h"

namespace opscope {

struct TensorStats {
    int64_t count = 0;
    int64_t finiteCount = 0;
    int64_t nanCount = 0;
    int64_t infCount = 0;
    int64_t zeroCount = 0;    // elements equal to zero (either sign)
    double min = 0, max = 0;  // over finite values (0 when there are none)
    double mean = 0;          // mean of finite values
    double meanAbs = 0;       // mean |x| of finite values
    double stddev = 0;        // population standard deviation of finite values
};

// Any dtype, any strides; accumulates in double.
TensorStats computeStats(const TensorView& v);

// The same statistics gathered one value at a time, for passes that never hold the tensor
// (computeStats and the heatmap's streaming pass over a slice or a dataset's row bands).
class StatsAccumulator {
public:
    void add(double v) {
        ++count_;
        if (v - v != 0) {  // NaN or Inf
            ++(std::isnan(v) ? nan_ : inf_);
            return;
        }
        if (finite_++ == 0) shift_ = v;
        zero_ += v == 0;
        sum_ += v;
        sumAbs_ += std::fabs(v);
        shifted_ += v - shift_;
        shiftedSq_ += (v - shift_) * (v - shift_);
        lo_ = std::min(lo_, v);
        hi_ = std::max(hi_, v);
    }
    // n values at once: a row without NaN/Inf (nearly every row) takes a loop without
    // branches. Returns whether all n were finite.
    bool add(const double* v, int64_t n);
    // Adds what `later` gathered as if its values had been added here after ours (a pass
    // split into ranges merges them in order): counts, min and max exactly, sums to rounding.
    void merge(const StatsAccumulator& later);
    TensorStats stats() const;

private:
    int64_t count_ = 0, finite_ = 0, nan_ = 0, inf_ = 0, zero_ = 0;
    // Sums of v - shift (the first finite value): the variance does not cancel for a large mean.
    double sum_ = 0, sumAbs_ = 0, shift_ = 0, shifted_ = 0, shiftedSq_ = 0;
    double lo_ = std::numeric_limits<double>::infinity(), hi_ = -std::numeric_limits<double>::infinity();
};

}  // namespace opscope
