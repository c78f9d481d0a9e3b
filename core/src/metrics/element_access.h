// Private to the metrics module: any numeric tensor read element by element as double, with
// the dtype switch done once (a function pointer per tensor, not a switch per element).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "opscope/error.h"
#include "opscope/dispatch.h"
#include "opscope/host_tensor.h"
#include "opscope/metrics.h"

namespace opscope::metrics::detail {

using Getter = double (*)(const void*, int64_t);

template <class T>
double getAs(const void* data, int64_t i) {
    return convertValue<double>(static_cast<const T*>(data)[i]);
}

// Throws UsageError naming `role` for tensors without numeric storage.
inline Getter getterFor(const HostTensor& t, const char* role) {
    try {
        return dispatchAll(t.dtype(), [](auto tag) -> Getter { return &getAs<typename decltype(tag)::type>; });
    } catch (const StatusError&) {
        throw UsageError(std::string("the ") + role + " tensor has dtype " + dtypeName(t.dtype()) +
                         ", which holds no numbers to compare");
    }
}

struct Reader {
    Reader(const HostTensor& t, const char* role) : data(t.data()), get(getterFor(t, role)) {
        if (!data && t.numel() > 0)
            throw UsageError(std::string("the ") + role + " tensor holds no data (a default HostTensor)");
    }
    double operator()(int64_t i) const { return get(data, i); }
    const void* data;
    Getter get;
};

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
// found by binary search: no logarithm or power per value.
class HistogramBinner {
public:
    explicit HistogramBinner(const LogHistogram& h);
    void add(LogHistogram& h, double value) const;

private:
    std::vector<double> edges_;  // edge(0) ... edge(bins)
};

// The index of the first of the sorted `tolerances` that `error` is below (tolerances.size()
// when none): an element is within tolerance t exactly when this is <= t.
std::size_t firstToleranceAbove(const std::vector<double>& tolerances, double error);

}  // namespace opscope::metrics::detail
