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

// The slice's statistics gathered row by row in the pass that feeds the cells, the smallest
// positive value a log scale's autofit needs, and where the first NaN/Inf is.
struct RowAccumulator {
    static constexpr double kInf = std::numeric_limits<double>::infinity();
    StatsAccumulator stats;
    double minPositive = std::numeric_limits<double>::infinity();
    int64_t firstRow = -1, firstCol = -1;

    void add(int64_t row, const double* v, int64_t n) {
        const bool finite = stats.add(v, n);
        double smallest = minPositive;
        for (int64_t c = 0; c < n; ++c) smallest = std::min(smallest, v[c] > 0 ? v[c] : kInf);
        minPositive = smallest;  // NaN is not > 0; +Inf never lowers it
        if (finite || (firstRow >= 0 && row >= firstRow)) return;
        for (int64_t c = 0; c < n; ++c)
            if (v[c] - v[c] != 0) {
                firstRow = row;
                firstCol = c;
                return;
            }
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

struct SliceSummarizer::State {
    State(int64_t rows, int64_t cols, const SliceRequest& req)
        : cells(rows, cols, req.maxCells, req.maxCells), sampler(rows * cols, req.maxSamples) {
        summary.rows = rows;
        summary.cols = cols;
        if (req.tolerance) beyond.emplace(rows, cols, req.maxCells, req.maxCells);
        summary.beyondCount = req.tolerance ? 0 : -1;
    }
    SliceSummary summary;
    Downsampler cells;
    std::optional<Downsampler> beyond;
    Sampler sampler;
    RowAccumulator acc;
};

SliceSummarizer::SliceSummarizer(int64_t rows, int64_t cols, const SliceRequest& request)
    : state_(std::make_unique<State>(rows, cols, request)) {}
SliceSummarizer::~SliceSummarizer() = default;

void SliceSummarizer::addRow(int64_t row, const double* values, const double* beyondMask) {
    State& s = *state_;
    const int64_t cols = s.summary.cols;
    s.cells.addRow(row, values);
    s.acc.add(row, values, cols);
    s.sampler.add(row * cols, values, cols, s.summary.sample);
    if (!s.beyond || !beyondMask) return;
    s.beyond->addRow(row, beyondMask);
    for (int64_t c = 0; c < cols; ++c) s.summary.beyondCount += beyondMask[c] > 0;
}

SliceSummary SliceSummarizer::take() {
    State& s = *state_;
    SliceSummary out = std::move(s.summary);
    out.cells = s.cells.take();
    out.stats = s.acc.stats.stats();
    out.sampled = s.sampler.sampled();
    s.sampler.finish(out.stats, s.acc.minPositive, out.sample);
    if (s.beyond) out.beyond = s.beyond->take();
    out.firstNonFiniteRow = s.acc.firstRow;
    out.firstNonFiniteCol = s.acc.firstCol;
    return out;
}

SliceSummary summarizeSlice(const SliceSource& source, const SliceRequest& req) {
    if (source.tensor.numel() == 0) return {};
    const SliceSpec spec = normalizeSlice(source.tensor.shape, req.spec);
    SliceRows rows(source, spec);
    const int64_t nRows = rows.rows(), nCols = rows.cols();
    SliceSummarizer pass(nRows, nCols, req);
    const auto n = static_cast<std::size_t>(nCols);
    std::vector<double> row(n), abs(n), rel(n), mask(n);
    // An error map with the mask computes each element's errors once, for both.
    const double* shown = source.content == SliceContent::AbsError   ? abs.data()
                          : source.content == SliceContent::RelError ? rel.data()
                                                                     : row.data();
    for (int64_t r = 0; r < nRows; ++r) {
        if (req.cancelled && r % 64 == 0 && req.cancelled()) return SliceSummary{};
        if (req.tolerance) {
            rows.readErrors(r, abs.data(), rel.data());
            for (std::size_t c = 0; c < n; ++c)
                mask[c] = isBeyondTolerance(abs[c], rel[c], req.absTolerance, req.relTolerance) ? 1.0 : 0.0;
        }
        if (!req.tolerance || shown == row.data()) rows.read(r, row.data());
        pass.addRow(r, req.tolerance ? shown : row.data(), req.tolerance ? mask.data() : nullptr);
    }
    return pass.take();
}

}  // namespace opscope::view
