// The heatmap's one pass over a slice (see slice_summary.h).
#include "opscope/view/slice_summary.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "opscope/metrics.h"
#include "opscope/view/masks.h"

namespace opscope::view {

SliceRows::SliceRows(const SliceSource& s, const SliceSpec& spec)
    : actual_(sliceView(s.tensor, spec)), content_(s.content), outputDtype_(s.outputDtype) {
    if (s.reference.data) {
        if (s.reference.shape != s.tensor.shape)
            throw std::invalid_argument("the reference " + shapeToString(s.reference.shape) +
                                        " differs in shape from the tensor " + shapeToString(s.tensor.shape));
        reference_ = sliceView(s.reference, spec);
    } else if (content_ != SliceContent::Values) {
        throw std::invalid_argument("an error map needs the reference");
    }
    a_.resize(static_cast<std::size_t>(cols()));
    r_.resize(static_cast<std::size_t>(cols()));
    other_.resize(static_cast<std::size_t>(cols()));
}

void SliceRows::readErrors(int64_t row, double* abs, double* rel) {
    if (!reference_.data) throw std::invalid_argument("errors need the reference");
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

// Every k-th value of the slice (k = 1 when it fits), and the extremes an autofit needs.
class Sampler {
public:
    Sampler(int64_t total, int64_t maxSamples)
        : step_(maxSamples > 0 && total > maxSamples ? (total + maxSamples - 1) / maxSamples : 1) {}
    void add(int64_t first, const double* v, int64_t n, std::vector<double>& out) {
        for (int64_t c = (step_ - first % step_) % step_; c < n; c += step_) out.push_back(v[c]);
        for (int64_t c = 0; c < n && step_ > 1; ++c)
            if (std::isfinite(v[c]) && v[c] > 0) minPositive_ = std::min(minPositive_, v[c]);
    }
    bool sampled() const { return step_ > 1; }
    void finish(const TensorStats& stats, std::vector<double>& out) const {
        if (!sampled() || stats.finiteCount == 0) return;
        out.insert(out.end(), {stats.min, stats.max});
        if (std::isfinite(minPositive_)) out.push_back(minPositive_);
    }

private:
    int64_t step_;
    double minPositive_ = std::numeric_limits<double>::infinity();
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
    const auto n = static_cast<std::size_t>(s.cols);
    std::vector<double> row(n), abs(n), rel(n), mask(n);
    s.beyondCount = req.tolerance ? 0 : -1;
    for (int64_t r = 0; r < s.rows; ++r) {
        rows.read(r, row.data());
        cells.addRow(r, row.data());
        s.stats = mergeStats(s.stats, computeStats(TensorView::contiguous(DType::Float64, {s.cols}, row.data())));
        sampler.add(r * s.cols, row.data(), s.cols, s.sample);
        if (!beyond) continue;
        rows.readErrors(r, abs.data(), rel.data());
        for (std::size_t c = 0; c < n; ++c) {
            mask[c] = isBeyondTolerance(abs[c], rel[c], req.absTolerance, req.relTolerance) ? 1.0 : 0.0;
            s.beyondCount += mask[c] > 0;
        }
        beyond->addRow(r, mask.data());
    }
    s.sampled = sampler.sampled();
    sampler.finish(s.stats, s.sample);
    s.cells = cells.take();
    if (beyond) s.beyond = beyond->take();
    return s;
}

}  // namespace opscope::view
