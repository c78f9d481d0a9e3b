// Private to the metrics module: any numeric tensor read element by element as double, with
// the dtype switch done once (a function pointer per tensor, not a switch per element).
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "edge_index.h"
#include "opscope/error.h"
#include "opscope/dispatch.h"
#include "opscope/float16.h"
#include "opscope/host_tensor.h"
#include "opscope/metrics.h"

namespace opscope::metrics::detail {

using Getter = double (*)(const void*, int64_t);
using BlockGetter = void (*)(const void*, int64_t, int64_t, double*);

template <class T>
double getAs(const void* data, int64_t i) {
    return convertValue<double>(static_cast<const T*>(data)[i]);
}

template <class T>
void getBlockAs(const void* data, int64_t first, int64_t n, double* out) {
    const T* p = static_cast<const T*>(data) + first;
    for (int64_t j = 0; j < n; ++j) out[j] = convertValue<double>(p[j]);
}

// pick(tag of t's element type); throws UsageError naming `role` for tensors without numeric
// storage.
template <class Pick>
auto pickForDtype(const HostTensor& t, const char* role, Pick pick) {
    try {
        return dispatchAll(t.dtype(), pick);
    } catch (const StatusError&) {
        throw UsageError(std::string("the ") + role + " tensor has dtype " + dtypeName(t.dtype()) +
                         ", which holds no numbers to compare");
    }
}

struct Reader {
    Reader(const HostTensor& t, const char* role)
        : data(t.data()),
          get(pickForDtype(t, role, [](auto tag) -> Getter { return &getAs<typename decltype(tag)::type>; })),
          getBlock(pickForDtype(t, role,
                                [](auto tag) -> BlockGetter { return &getBlockAs<typename decltype(tag)::type>; })) {
        if (!data && t.numel() > 0)
            throw UsageError(std::string("the ") + role + " tensor holds no data (a default HostTensor)");
    }
    double operator()(int64_t i) const { return get(data, i); }
    // Elements [first, first + n) into out: one call a block, not one an element.
    void block(int64_t first, int64_t n, double* out) const { getBlock(data, first, n, out); }
    const void* data;
    Getter get;
    BlockGetter getBlock;
};

// roundToDtype and elementErrors (metrics.h), inline for the loops over every element; the
// public functions are these.
inline double roundTo(double value, DType dtype) {
    switch (dtype) {
        case DType::Float32: return static_cast<double>(static_cast<float>(value));
        case DType::Float16: return static_cast<double>(static_cast<float>(half(static_cast<float>(value))));
        case DType::BFloat16: return static_cast<double>(static_cast<float>(bfloat16(static_cast<float>(value))));
        default: return value;
    }
}

inline ElementErrors errorsOf(double a, double reference, DType outputDtype, const CompareOptions& options) {
    const double r = options.roundReference ? roundTo(reference, outputDtype) : reference;
    if (std::isfinite(a) && std::isfinite(r)) {
        const double abs = std::fabs(a - r);
        return {abs, abs / (std::fabs(r) + options.relativeGuard)};
    }
    const bool same =
        (std::isnan(a) && std::isnan(r)) || (std::isinf(a) && std::isinf(r) && std::signbit(a) == std::signbit(r));
    const double e = same ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    return {e, e};
}

// Row-major coordinates of element `index` in `shape`.
inline std::vector<int64_t> coordsOf(int64_t index, const std::vector<int64_t>& shape) {
    std::vector<int64_t> c(shape.size(), 0);
    for (std::size_t d = shape.size(); d-- > 0;) {
        if (shape[d] > 0) {
            c[d] = index % shape[d];
            index /= shape[d];
        }
    }
    return c;
}

// A log histogram with no counts (logHistogram, summarizeErrors).
LogHistogram emptyLogHistogram(int minExponent, int maxExponent, int binsPerDecade);

// Counts values into a histogram of `h`'s layout by its edges (LogHistogram::edge, computed once),
// found through an EdgeIndex: no logarithm or power per value.
class HistogramBinner {
public:
    explicit HistogramBinner(const LogHistogram& h);
    void add(LogHistogram& h, double v) const {
        const std::vector<double>& edges = edges_.edges();
        if (!std::isfinite(v) || v < 0)
            ++h.nonFinite;
        else if (v == 0)
            ++h.zeros;
        else if (v < edges.front())
            ++h.below;
        else if (v >= edges.back())
            ++h.above;
        else  // edges[bin] <= v < edges[bin + 1]
            ++h.counts[edges_.upperBound(v) - 1];
    }

private:
    EdgeIndex edges_;  // edge(0) ... edge(bins)
};

// The index of the first of the sorted tolerances that `error` is below (tolerances.size()
// when none): an element is within tolerance t exactly when this is <= t.
inline std::size_t firstToleranceAbove(const EdgeIndex& tolerances, double error) {
    return tolerances.upperBound(error);
}

}  // namespace opscope::metrics::detail
