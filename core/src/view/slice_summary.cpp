// The heatmap's one pass over a slice (see slice_summary.h).
#include "opscope/view/slice_summary.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "opscope/error.h"
#include "opscope/metrics.h"
#include "opscope/view/masks.h"

namespace opscope::view {

SliceRows::SliceRows(const SliceSource& s, const SliceSpec& spec)
    : actual_(sliceView(s.tensor, spec)), content_(s.content), outputDtype_(s.outputDtype) {
    if (s.reference.data) {
        if (s.reference.shape != s.tensor.shape)
            throw UsageError("the reference " + shapeToString(s.reference.shape) +
                             " differs in shape from the tensor " + shapeToString(s.tensor.shape));
        reference_ = sliceView(s.reference, spec);
    } else if (content_ != SliceContent::Values) {
        throw UsageError("an error map needs the reference");
    }
    a_.resize(static_cast<std::size_t>(cols()));
    r_.resize(static_cast<std::size_t>(cols()));
    other_.resize(static_cast<std::size_t>(cols()));
}

void SliceRows::readErrors(int64_t row, double* abs, double* rel) {
    if (!reference_.data) throw UsageError("errors need the reference");
    readRow(actual_, row, a_.data());
    readRow(reference_, row, r_.data());
    for (std::size_t c = 0; c < a_.size(); ++c) {
        const metrics::ElementErrors e = metrics::elementErrors(a_[c], r_[c], outputDtype_);
        abs[c] = e.abs;
        rel[c] = e.rel;
    }
}

void SliceRows::read(int64_t row, double* out) {
    if (content_ == SliceContent::Values) return readRow(actual_, row, out);
    if (content_ == SliceContent::AbsError)
        readErrors(row, out, other_.data());
    else
        readErrors(row, other_.data(), out);
}

namespace {

// The slice's statistics gathered row by row in the pass that feeds the cells (min and max
// come from the cells), and the smallest positive value a log scale's autofit needs.
struct RowAccumulator {
    double sum = 0, sumAbs = 0;
    int64_t finite = 0, nan = 0, inf = 0;
    double minPositive = std::numeric_limits<double>::infinity();

    void add(const double* v, int64_t n) {
        for (int64_t c = 0; c < n; ++c) {
            const double x = v[c];
            if (x - x == 0) {
                sum += x;
                sumAbs += std::fabs(x);
                ++finite;
                if (x > 0) minPositive = std::min(minPositive, x);
            } else {
                ++(std::isnan(x) ? nan : inf);
            }
        }
    }
    TensorStats stats(const Downsampled& cells) const {
        TensorStats s;
        s.count = finite + nan + inf;
        s.finiteCount = finite;
        s.nanCount = nan;
        s.infCount = inf;
        if (finite == 0) return s;
        s.min = std::numeric_limits<double>::infinity();
        s.max = -s.min;
        for (const Cell& c : cells.cells)
            if (!(c.flags & kCellEmpty)) s.min = std::min(s.min, c.min), s.max = std::max(s.max, c.max);
        s.mean = sum / static_cast<double>(finite);
        s.meanAbs = sumAbs / static_cast<double>(finite);
        return s;
    }
};

// Every k-th value of the slice (k = 1 when it fits), and the extremes an autofit needs.
class Sampler {
public:
    Sampler(int64_t total, int64_t maxSamples)
        : step_(maxSamples > 0 && total > maxSamples ? (total + maxSamples - 1) / maxSamples : 1) {}
    void add(int64_t first, const double* v, int64_t n, std::vector<double>& out) const {
        for (int64_t c = (step_ - first % step_) % step_; c < n; c += step_) out.push_back(v[c]);
    }
    bool sampled() const { return step_ > 1; }
    void finish(const TensorStats& stats, double minPositive, std::vector<double>& out) const {
        if (!sampled() || stats.finiteCount == 0) return;
        out.insert(out.end(), {stats.min, stats.max});
        if (std::isfinite(minPositive)) out.push_back(minPositive);
    }

private:
    int64_t step_;
};

}  // namespace

SliceSummary summarizeSlice(const SliceSource& source, const SliceRequest& req) {
    SliceSummary s;
    if (source.tensor.numel() == 0) return s;
    const SliceSpec spec = normalizeSlice(source.tensor.shape, req.spec);
    SliceRows rows(source, spec);
    s.rows = rows.rows();
    s.cols = rows.cols();
    Downsampler cells(s.rows, s.cols, req.maxCells, req.maxCells);
    std::optional<Downsampler> beyond;
    if (req.tolerance) beyond.emplace(s.rows, s.cols, req.maxCells, req.maxCells);
    Sampler sampler(s.rows * s.cols, req.maxSamples);
    RowAccumulator acc;
    const auto n = static_cast<std::size_t>(s.cols);
    std::vector<double> row(n), abs(n), rel(n), mask(n);
    s.beyondCount = req.tolerance ? 0 : -1;
    for (int64_t r = 0; r < s.rows; ++r) {
        if (req.cancelled && r % 64 == 0 && req.cancelled()) return SliceSummary{};
        rows.read(r, row.data());
        cells.addRow(r, row.data());
        acc.add(row.data(), s.cols);
        sampler.add(r * s.cols, row.data(), s.cols, s.sample);
        if (!beyond) continue;
        rows.readErrors(r, abs.data(), rel.data());
        for (std::size_t c = 0; c < n; ++c) {
            mask[c] = isBeyondTolerance(abs[c], rel[c], req.absTolerance, req.relTolerance) ? 1.0 : 0.0;
            s.beyondCount += mask[c] > 0;
        }
        beyond->addRow(r, mask.data());
    }
    s.cells = cells.take();
    s.stats = acc.stats(s.cells);
    s.sampled = sampler.sampled();
    sampler.finish(s.stats, acc.minPositive, s.sample);
    if (beyond) s.beyond = beyond->take();
    return s;
}

}  // namespace opscope::view
