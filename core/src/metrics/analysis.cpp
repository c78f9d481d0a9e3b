// Error maps, histograms and per-axis summaries: what the GUI charts draw, as plain values.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "opscope/error.h"
#include "element_access.h"
#include "opscope/metrics.h"

namespace opscope::metrics {

ErrorMaps errorMaps(const HostTensor& actual, const HostTensor& reference, DType outputDtype,
                    const CompareOptions& options) {
    if (actual.numel() != reference.numel())
        throw UsageError("cannot map errors between " + std::string(dtypeName(actual.dtype())) +
                         shapeToString(actual.shape()) + " and " + dtypeName(reference.dtype()) +
                         shapeToString(reference.shape()) + ": the element counts differ");
    const detail::Reader readA(actual, "actual");
    const detail::Reader readR(reference, "reference");
    ErrorMaps maps{HostTensor(DType::Float64, actual.shape()), HostTensor(DType::Float64, actual.shape())};
    double* absOut = maps.absError.dataAs<double>();
    double* relOut = maps.relError.dataAs<double>();
    for (int64_t i = 0; i < actual.numel(); ++i) {
        const ElementErrors e = detail::errorsOf(readA(i), readR(i), outputDtype, options);
        absOut[i] = e.abs;
        relOut[i] = e.rel;
    }
    return maps;
}

ElementErrors elementErrors(double a, double reference, DType outputDtype, const CompareOptions& options) {
    return detail::errorsOf(a, reference, outputDtype, options);
}

double LogHistogram::edge(std::size_t i) const {
    return std::pow(10.0, minExponent + static_cast<double>(i) / binsPerDecade);
}

int64_t LogHistogram::total() const {
    int64_t n = zeros + below + above + nonFinite;
    for (int64_t c : counts) n += c;
    return n;
}

LogHistogram logHistogram(const HostTensor& values, int minExponent, int maxExponent, int binsPerDecade) {
    LogHistogram h = detail::emptyLogHistogram(minExponent, maxExponent, binsPerDecade);
    const detail::Reader read(values, "histogram");
    const detail::HistogramBinner bins(h);
    for (int64_t i = 0; i < values.numel(); ++i) bins.add(h, read(i));
    return h;
}

namespace detail {

LogHistogram emptyLogHistogram(int minExponent, int maxExponent, int binsPerDecade) {
    if (maxExponent <= minExponent || binsPerDecade <= 0)
        throw UsageError("a log histogram needs maxExponent > minExponent and binsPerDecade > 0");
    LogHistogram h;
    h.minExponent = minExponent;
    h.maxExponent = maxExponent;
    h.binsPerDecade = binsPerDecade;
    h.counts.assign(static_cast<std::size_t>(maxExponent - minExponent) * static_cast<std::size_t>(binsPerDecade), 0);
    return h;
}

namespace {

std::vector<double> edgesOf(const LogHistogram& h) {
    std::vector<double> edges;
    for (std::size_t i = 0; i <= h.counts.size(); ++i) edges.push_back(h.edge(i));
    return edges;
}

}  // namespace

HistogramBinner::HistogramBinner(const LogHistogram& h) : edges_(edgesOf(h), "the edges of a histogram") {}

}  // namespace detail

std::vector<AxisErrorStats> perAxisErrors(const ErrorMaps& maps, int axis) {
    const std::vector<int64_t>& shape = maps.absError.shape();
    if (axis < 0 || axis >= static_cast<int>(shape.size()))
        throw UsageError("axis " + std::to_string(axis) + " is outside a tensor of shape " + shapeToString(shape));
    const int64_t extent = shape[static_cast<std::size_t>(axis)];
    int64_t inner = 1;
    for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    std::vector<AxisErrorStats> out(static_cast<std::size_t>(extent));
    std::vector<long double> sumAbs(out.size(), 0), sumRel(out.size(), 0);
    for (int64_t k = 0; k < extent; ++k) out[static_cast<std::size_t>(k)].index = k;
    const double* absErr = maps.absError.dataAs<double>();
    const double* relErr = maps.relError.dataAs<double>();
    for (int64_t i = 0; i < maps.absError.numel(); ++i) {
        const auto k = static_cast<std::size_t>((i / inner) % extent);
        AxisErrorStats& s = out[k];
        if (std::isnan(absErr[i])) {
            ++s.nonFinite;
            continue;
        }
        ++s.count;
        sumAbs[k] += static_cast<long double>(absErr[i]);
        sumRel[k] += static_cast<long double>(relErr[i]);
        s.maxAbs = std::max(s.maxAbs, absErr[i]);
        s.maxRel = std::max(s.maxRel, relErr[i]);
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
        if (out[k].count == 0) continue;
        out[k].meanAbs = static_cast<double>(sumAbs[k] / static_cast<long double>(out[k].count));
        out[k].meanRel = static_cast<double>(sumRel[k] / static_cast<long double>(out[k].count));
    }
    return out;
}

std::vector<ToleranceShare> cumulativeShare(const HostTensor& errors, const std::vector<double>& tolerances) {
    const detail::Reader read(errors, "error");
    std::vector<int64_t> within(tolerances.size(), 0);
    for (int64_t i = 0; i < errors.numel(); ++i) {
        const double e = read(i);
        if (std::isnan(e)) continue;
        for (std::size_t t = 0; t < tolerances.size(); ++t) within[t] += e < tolerances[t];
    }
    std::vector<ToleranceShare> out;
    for (std::size_t t = 0; t < tolerances.size(); ++t)
        out.push_back({tolerances[t], errors.numel() > 0
                                          ? static_cast<double>(within[t]) / static_cast<double>(errors.numel())
                                          : 1.0});
    return out;
}

std::vector<double> logTolerances(int minExponent, int maxExponent, int perDecade) {
    std::vector<double> out;
    if (perDecade <= 0) return out;
    for (int i = 0; i <= (maxExponent - minExponent) * perDecade; ++i)
        out.push_back(std::pow(10.0, minExponent + static_cast<double>(i) / perDecade));
    return out;
}

}  // namespace opscope::metrics
