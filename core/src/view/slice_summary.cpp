// The heatmap's one pass over a slice (see slice_summary.h).
#include "opscope/view/slice_summary.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "opscope/error.h"
#include "opscope/metrics.h"
#include "opscope/parallel.h"
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

    // Columns [col0, col0 + n) of `row`, after every earlier column of it.
    void add(int64_t row, int64_t col0, const double* v, int64_t n) {
        const bool finite = stats.add(v, n);
        double smallest = minPositive;
        for (int64_t c = 0; c < n; ++c) smallest = std::min(smallest, v[c] > 0 ? v[c] : kInf);
        minPositive = smallest;  // NaN is not > 0; +Inf never lowers it
        if (finite || (firstRow >= 0 && row >= firstRow)) return;
        for (int64_t c = 0; c < n; ++c)
            if (v[c] - v[c] != 0) {
                firstRow = row;
                firstCol = col0 + c;
                return;
            }
    }
    // `later` holds rows after all of ours.
    void merge(const RowAccumulator& later) {
        stats.merge(later.stats);
        minPositive = std::min(minPositive, later.minPositive);
        if (firstRow >= 0) return;
        firstRow = later.firstRow;
        firstCol = later.firstCol;
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

// One row of cells' share of the pass (see SliceSummarizer): take() merges them in row order.
struct Segment {
    RowAccumulator acc;
    std::vector<double> sample;
    int64_t beyondCount = 0;
};

struct SliceSummarizer::State {
    State(int64_t rows, int64_t cols, const SliceRequest& req)
        : request(req), cells(rows, cols, req.maxCells, req.maxCells), sampler(rows * cols, req.maxSamples) {
        summary.rows = rows;
        summary.cols = cols;
        if (req.tolerance) beyond.emplace(rows, cols, req.maxCells, req.maxCells);
        summary.beyondCount = req.tolerance ? 0 : -1;
        segments.resize(static_cast<std::size_t>(cells.cellRows()));
    }
    Segment& segmentOf(int64_t row) { return segments[static_cast<std::size_t>(row / cells.blockRows())]; }

    SliceRequest request;
    SliceSummary summary;
    Downsampler cells;
    std::optional<Downsampler> beyond;
    Sampler sampler;
    std::vector<Segment> segments;
};

SliceSummarizer::SliceSummarizer(int64_t rows, int64_t cols, const SliceRequest& request)
    : state_(std::make_unique<State>(rows, cols, request)) {}
SliceSummarizer::~SliceSummarizer() = default;

void SliceSummarizer::addRow(int64_t row, const double* values, const double* beyondMask) {
    addRowPart(row, 0, values, state_->summary.cols, beyondMask);
}

void SliceSummarizer::addRowPart(int64_t row, int64_t col0, const double* values, int64_t n, const double* beyondMask) {
    State& s = *state_;
    Segment& seg = s.segmentOf(row);
    s.cells.addRowPart(row, col0, values, n);
    seg.acc.add(row, col0, values, n);
    s.sampler.add(row * s.summary.cols + col0, values, n, seg.sample);
    if (!s.beyond || !beyondMask) return;
    s.beyond->addRowPart(row, col0, beyondMask, n);
    for (int64_t c = 0; c < n; ++c) seg.beyondCount += beyondMask[c] > 0;
}

namespace {

// One thread's reader of a slice's rows: the content shown and, with the tolerance, the mask.
// An error map with the mask computes each element's errors once, for both.
class RowFiller {
public:
    RowFiller(const SliceSource& source, const SliceSpec& spec, const SliceRequest& req)
        : rows_(source, spec), req_(req), content_(source.content) {
        const auto n = static_cast<std::size_t>(rows_.cols());
        row_.resize(n);
        if (!req.tolerance) return;
        abs_.resize(n);
        rel_.resize(n);
        mask_.resize(n);
    }
    int64_t rows() const { return rows_.rows(); }
    int64_t cols() const { return rows_.cols(); }
    // Reads row r; returns its values, and sets *mask to its mask (null without the tolerance).
    const double* read(int64_t r, const double** mask) {
        *mask = nullptr;
        if (!req_.tolerance) {
            rows_.read(r, row_.data());
            return row_.data();
        }
        rows_.readErrors(r, abs_.data(), rel_.data());
        for (std::size_t c = 0; c < mask_.size(); ++c)
            mask_[c] = isBeyondTolerance(abs_[c], rel_[c], req_.absTolerance, req_.relTolerance) ? 1.0 : 0.0;
        *mask = mask_.data();
        if (content_ == SliceContent::AbsError) return abs_.data();
        if (content_ == SliceContent::RelError) return rel_.data();
        rows_.read(r, row_.data());
        return row_.data();
    }

private:
    SliceRows rows_;
    const SliceRequest& req_;
    SliceContent content_;
    std::vector<double> row_, abs_, rel_, mask_;
};

constexpr int64_t kMinElementsPerChunk = int64_t{1} << 16;  // less is not worth a thread
constexpr int64_t kRowsBetweenCancelChecks = 64;

}  // namespace

bool SliceSummarizer::addRows(const SliceSource& source, const SliceSpec& spec, int64_t firstRow) {
    State& s = *state_;
    const int64_t n = RowFiller(source, spec, s.request).rows();  // throws on a bad source, here
    if (n == 0) return true;
    const int64_t block = s.cells.blockRows(), cols = s.summary.cols;
    const int64_t firstCell = firstRow / block, endCell = (firstRow + n - 1) / block + 1;
    std::atomic<bool> stop{false};
    parallelFor(firstCell, endCell, std::max<int64_t>(1, kMinElementsPerChunk / (block * cols)),
                [&](int64_t b, int64_t e) {
                    RowFiller filler(source, spec, s.request);
                    const int64_t r0 = std::max(firstRow, b * block), r1 = std::min(firstRow + n, e * block);
                    for (int64_t r = r0; r < r1; ++r) {
                        if ((r - r0) % kRowsBetweenCancelChecks == 0 &&
                            (stop.load(std::memory_order_relaxed) || (s.request.cancelled && s.request.cancelled()))) {
                            stop = true;
                            return;
                        }
                        const double* mask = nullptr;
                        const double* values = filler.read(r - firstRow, &mask);
                        addRow(r, values, mask);
                    }
                });
    return !stop;
}

SliceSummary SliceSummarizer::take() {
    State& s = *state_;
    SliceSummary out = std::move(s.summary);
    RowAccumulator all;
    std::size_t samples = 0;
    for (const Segment& seg : s.segments) samples += seg.sample.size();
    out.sample.reserve(samples + 3);
    for (Segment& seg : s.segments) {
        all.merge(seg.acc);
        out.sample.insert(out.sample.end(), seg.sample.begin(), seg.sample.end());
        std::vector<double>().swap(seg.sample);
        if (out.beyondCount >= 0) out.beyondCount += seg.beyondCount;
    }
    out.cells = s.cells.take();
    out.stats = all.stats.stats();
    out.sampled = s.sampler.sampled();
    s.sampler.finish(out.stats, all.minPositive, out.sample);
    if (s.beyond) out.beyond = s.beyond->take();
    out.firstNonFiniteRow = all.firstRow;
    out.firstNonFiniteCol = all.firstCol;
    return out;
}

SliceSummary summarizeSlice(const SliceSource& source, const SliceRequest& req) {
    if (source.tensor.numel() == 0) return {};
    const SliceSpec spec = normalizeSlice(source.tensor.shape, req.spec);
    const SliceRows rows(source, spec);
    SliceSummarizer pass(rows.rows(), rows.cols(), req);
    if (!pass.addRows(source, spec, 0)) return SliceSummary{};
    return pass.take();
}

}  // namespace opscope::view
