// The charts' error data in one streaming pass (see summarizeErrors in metrics.h): memory is the
// histograms, one counter per tolerance and per index of each axis, and the samples; never an
// element-sized buffer.
#include <cmath>
#include <stdexcept>

#include "element_access.h"
#include "opscope/error.h"
#include "opscope/metrics.h"
#include "opscope/view/slice.h"

namespace opscope::metrics {
namespace {

// Per-axis sums for the means, kept beside the stats they finish.
struct AxisAccumulator {
    std::vector<AxisErrorStats> stats;
    std::vector<long double> sumAbs, sumRel;

    explicit AxisAccumulator(int64_t extent)
        : stats(static_cast<std::size_t>(extent)),
          sumAbs(static_cast<std::size_t>(extent), 0),
          sumRel(static_cast<std::size_t>(extent), 0) {
        for (int64_t k = 0; k < extent; ++k) stats[static_cast<std::size_t>(k)].index = k;
    }
    void add(int64_t index, const ElementErrors& e) {
        const auto k = static_cast<std::size_t>(index);
        AxisErrorStats& s = stats[k];
        if (std::isnan(e.abs)) {
            ++s.nonFinite;
            return;
        }
        ++s.count;
        sumAbs[k] += static_cast<long double>(e.abs);
        sumRel[k] += static_cast<long double>(e.rel);
        s.maxAbs = std::max(s.maxAbs, e.abs);
        s.maxRel = std::max(s.maxRel, e.rel);
    }
    std::vector<AxisErrorStats> finish() {
        for (std::size_t k = 0; k < stats.size(); ++k) {
            if (stats[k].count == 0) continue;
            stats[k].meanAbs = static_cast<double>(sumAbs[k] / static_cast<long double>(stats[k].count));
            stats[k].meanRel = static_cast<double>(sumRel[k] / static_cast<long double>(stats[k].count));
        }
        return std::move(stats);
    }
};

std::vector<ToleranceShare> sharesOf(const std::vector<double>& tolerances, const std::vector<int64_t>& within,
                                     int64_t n) {
    std::vector<ToleranceShare> out;
    for (std::size_t t = 0; t < tolerances.size(); ++t)
        out.push_back({tolerances[t], n > 0 ? static_cast<double>(within[t]) / static_cast<double>(n) : 1.0});
    return out;
}

}  // namespace

ErrorSummary summarizeErrors(const HostTensor& actual, const HostTensor& reference, DType outputDtype,
                             const std::vector<double>& tolerances, int64_t maxSamples) {
    if (actual.numel() != reference.numel())
        throw UsageError("cannot summarize errors between " + shapeToString(actual.shape()) + " and " +
                         shapeToString(reference.shape()) + ": the element counts differ");
    const detail::Reader readA(actual, "actual");
    const detail::Reader readR(reference, "reference");
    const std::vector<int64_t>& shape = actual.shape();
    ErrorSummary s;
    s.absHistogram = s.relHistogram = detail::emptyLogHistogram(-10, 2, 4);
    std::vector<AxisAccumulator> axes;
    for (int64_t extent : shape) axes.emplace_back(extent);
    std::vector<int64_t> withinAbs(tolerances.size(), 0), withinRel(tolerances.size(), 0);
    const std::vector<int64_t> samples = view::sampleIndices(actual.numel(), maxSamples);
    std::size_t nextSample = 0;
    std::vector<int64_t> coords(shape.size(), 0);
    for (int64_t i = 0; i < actual.numel(); ++i) {
        if (i > 0)  // row-major odometer
            for (std::size_t a = shape.size(); a-- > 0;) {
                if (++coords[a] < shape[a]) break;
                coords[a] = 0;
            }
        const double r = readR(i);
        const ElementErrors e = elementErrors(readA(i), r, outputDtype);
        detail::addToHistogram(s.absHistogram, e.abs);
        detail::addToHistogram(s.relHistogram, e.rel);
        for (std::size_t a = 0; a < axes.size(); ++a) axes[a].add(coords[a], e);
        if (!std::isnan(e.abs))
            for (std::size_t t = 0; t < tolerances.size(); ++t) {
                withinAbs[t] += e.abs < tolerances[t];
                withinRel[t] += e.rel < tolerances[t];
            }
        if (nextSample < samples.size() && samples[nextSample] == i) {
            ++nextSample;
            if (std::isfinite(e.abs)) {
                s.sampleRef.push_back(std::fabs(roundToDtype(r, outputDtype)));
                s.sampleAbs.push_back(e.abs);
                s.sampleRel.push_back(e.rel);
            }
        }
    }
    for (AxisAccumulator& a : axes) s.perAxis.push_back(a.finish());
    s.absShares = sharesOf(tolerances, withinAbs, actual.numel());
    s.relShares = sharesOf(tolerances, withinRel, actual.numel());
    return s;
}

}  // namespace opscope::metrics
