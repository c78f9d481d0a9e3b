// One pass over a 2-D slice for the heatmap: its cells (min/max/NaN/Inf per block), its
// statistics, an even sample of its values for the range and the histogram, and the
// beyond-tolerance mask of an output. The slice is read row by row from the tensor (an error
// map is computed row by row from the output and its reference), so memory is the cells, the
// sample and a few rows, whatever the slice's size: a [32768, 4096] slice never becomes 1 GiB
// of doubles, and no whole-tensor error map is ever made.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "opscope/stats.h"
#include "opscope/tensor_view.h"
#include "opscope/view/downsample.h"
#include "opscope/view/slice.h"

namespace opscope::view {

enum class SliceContent { Values, AbsError, RelError };

// Where the rows come from.
struct SliceSource {
    TensorView tensor;     // the values, or the output for an error map
    TensorView reference;  // error maps and the tolerance mask: the reference, of tensor's shape
    SliceContent content = SliceContent::Values;
    DType outputDtype = DType::Float32;  // the reference is rounded to it (metrics::elementErrors)
};

struct SliceRequest {
    SliceSpec spec;
    int64_t maxCells = 2048;                // per axis
    int64_t maxSamples = int64_t{1} << 20;  // values kept for the range and the histogram
    bool tolerance = false;                 // also the beyond-tolerance mask (needs the reference)
    double absTolerance = 0, relTolerance = 0;
    // Asked between rows; true abandons the pass (a newer request made this one stale).
    std::function<bool()> cancelled;
};

struct SliceSummary {
    int64_t rows = 0, cols = 0;
    Downsampled cells;
    TensorStats stats;  // exact, over the whole slice
    // Every value when the slice has at most maxSamples of them; otherwise every k-th one plus
    // the slice's finite min, max and smallest positive value (so an autofit range is exact).
    std::vector<double> sample;
    bool sampled = false;
    std::optional<Downsampled> beyond;  // 1 where beyond tolerance (with request.tolerance)
    int64_t beyondCount = -1;
    int64_t firstNonFiniteRow = -1, firstNonFiniteCol = -1;  // the first NaN/Inf in row-major order
};

// The pass of summarizeSlice fed from outside, for rows that come from somewhere else than
// one tensor in memory (the row bands of a dataset read one after another): holds the cells,
// the sample and the running statistics, never the rows.
//
// In parallel and reproducible: each row of cells (request.maxCells of them at most) keeps its
// own statistics, sample and first NaN/Inf, and take() merges them in row order. So the cells,
// the counts, min, max, the sample (the sequential pass's values in its order) and the first
// NaN/Inf are exact; mean, mean |x| and standard deviation are the same bits for any thread
// count and any way the rows are cut into calls (rows of one row of cells added in increasing
// order), and equal a single running sum (computeStats) to rounding.
class SliceSummarizer {
public:
    SliceSummarizer(int64_t rows, int64_t cols, const SliceRequest& request);
    ~SliceSummarizer();
    // Row `row` of the slice (cols values), each row once, in any order; with
    // request.tolerance also its beyond-tolerance mask (1 or 0 per value). Calls for rows of
    // different rows of cells may come from different threads at once.
    void addRow(int64_t row, const double* values, const double* beyondMask = nullptr);
    // Columns [col0, col0 + n) of row `row`: a row too long for one band (a big rank-1 tensor)
    // added in parts, in column order, from one thread; the same summary as the whole row.
    void addRowPart(int64_t row, int64_t col0, const double* values, int64_t n, const double* beyondMask = nullptr);
    // Every row of the 2-D slice `spec` of `source` (its content, and with request.tolerance
    // its mask from source.reference) as rows firstRow, firstRow + 1, ... of this slice, read
    // in parallel (opscope/parallel.h): each thread takes whole rows of cells, so no two fill
    // the same cell. request.cancelled is asked every 64 rows by each thread (from the pool's
    // threads too); false when it stopped the pass (the summary is then incomplete).
    bool addRows(const SliceSource& source, const SliceSpec& spec, int64_t firstRow);
    SliceSummary take();

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Throws std::invalid_argument when an error map or the mask lacks a reference of the
// tensor's shape. A cancelled pass returns an empty summary (rows = cols = 0).
SliceSummary summarizeSlice(const SliceSource& source, const SliceRequest& request);

// The rows of a slice's content as doubles, one at a time.
class SliceRows {
public:
    SliceRows(const SliceSource& source, const SliceSpec& spec);
    int64_t rows() const { return actual_.shape[0]; }
    int64_t cols() const { return actual_.shape[1]; }
    void read(int64_t row, double* out);  // cols() values
    // The absolute and the relative error of the row (both need the reference).
    void readErrors(int64_t row, double* abs, double* rel);

private:
    TensorView actual_, reference_;
    SliceContent content_;
    DType outputDtype_;
    std::vector<double> a_, r_, other_;
};

}  // namespace opscope::view
