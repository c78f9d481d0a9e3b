#include "views/tensor_display.h"

#include <algorithm>
#include <cstring>

#include "opscope/view/downsample.h"
#include "opscope/view/masks.h"
#include "opscope/view/render.h"

namespace opscope::gui {

namespace {

view::SliceSummary summarize(const DisplayRequest& req) {
    view::SliceSource source;
    source.tensor = req.tensor->view();
    if (req.reference) source.reference = req.reference->view();
    source.content = req.content;
    source.outputDtype = req.outputDtype;
    view::SliceRequest sr;
    sr.spec = req.settings.slice;
    sr.maxCells = req.maxCells;
    // Beyond tolerance: both the absolute and the relative error exceed their tolerances.
    sr.tolerance = req.reference && req.settings.showBeyond && req.reference->shape() == req.tensor->shape();
    sr.absTolerance = req.settings.absTolerance;
    sr.relTolerance = req.settings.relTolerance;
    sr.cancelled = req.cancelled;
    return view::summarizeSlice(source, sr);
}

QImage toImage(const view::Downsampled& cells, const view::DisplaySettings& ds, const view::Downsampled* beyond) {
    const std::vector<uint32_t> px = view::renderCells(cells, ds, beyond);
    QImage img(static_cast<int>(cells.cols), static_cast<int>(cells.rows), QImage::Format_RGB32);
    for (int64_t r = 0; r < cells.rows; ++r)
        std::memcpy(img.scanLine(static_cast<int>(r)), px.data() + r * cells.cols,
                    static_cast<std::size_t>(cells.cols) * 4);
    return img;
}

}  // namespace

namespace {

// The cells painted in an overlay colour (NaN/Inf, beyond tolerance), while they are few.
std::vector<QPoint> flaggedCells(const view::Downsampled& cells, const view::DisplaySettings& ds,
                                 const view::Downsampled* beyond) {
    constexpr uint8_t kNonFinite = view::kCellNaN | view::kCellPosInf | view::kCellNegInf;
    std::vector<QPoint> out;
    for (int64_t r = 0; r < cells.rows; ++r)
        for (int64_t c = 0; c < cells.cols; ++c) {
            const bool flagged = (ds.showNonFinite && (cells.at(r, c).flags & kNonFinite)) ||
                                 (ds.showBeyond && beyond && beyond->at(r, c).max > 0);
            if (!flagged) continue;
            if (out.size() == DisplayFrame::kMaxFlaggedCells) return {};
            out.emplace_back(static_cast<int>(c), static_cast<int>(r));
        }
    return out;
}

// Everything of the frame that comes from the pass over the slice.
void fillFromSummary(DisplayFrame& f, const view::SliceSummary& slice, const DisplayRequest& req) {
    if (slice.rows * slice.cols == 0) return;
    f.planeRows = slice.rows;
    f.planeCols = slice.cols;
    f.sliceStats = slice.stats;
    f.sampled = slice.sampled;

    const view::ValueRange range =
        req.fixedRange ? *req.fixedRange : view::computeRange(slice.sample, req.settings.range, req.settings.scale);
    f.scale = view::ValueScale(req.settings.scale, range);
    // The histogram shows all the data and the display range inside it.
    const view::ValueRange data = view::computeRange(slice.sample, view::RangeRequest{}, req.settings.scale);
    const view::ValueRange shown = f.scale.range();
    f.histogramScale = view::ValueScale(req.settings.scale, {std::min(data.lo, shown.lo), std::max(data.hi, shown.hi)});
    f.histogram = view::valueHistogram(slice.sample, f.histogramScale, req.histogramBins);
    f.blockRows = slice.cells.blockRows;
    f.blockCols = slice.cells.blockCols;
    f.beyondCount = slice.beyondCount;

    view::DisplaySettings ds;
    ds.colormap = req.settings.colormap;
    ds.scale = f.scale;
    ds.showNonFinite = req.settings.showNonFinite;
    ds.showBeyond = req.settings.showBeyond;
    f.image = toImage(slice.cells, ds, slice.beyond ? &*slice.beyond : nullptr);
    f.flaggedCells = flaggedCells(slice.cells, ds, slice.beyond ? &*slice.beyond : nullptr);
}

}  // namespace

DisplayFrame computeDisplay(const DisplayRequest& req) {
    DisplayFrame f;
    if (!req.tensor) return f;
    const TensorView whole = req.tensor->view();
    const view::SliceSummary slice = summarize(req);
    if (req.cancelled && req.cancelled()) return f;
    if (req.content == view::SliceContent::Values) {
        // A slice that is the whole tensor (any 2-D one) needs no second pass for its statistics.
        f.tensorStats = slice.rows * slice.cols == whole.numel() ? slice.stats : computeStats(whole);
        if (f.tensorStats.nanCount + f.tensorStats.infCount > 0) f.firstNonFinite = view::firstNonFinite(whole);
    }
    fillFromSummary(f, slice, req);
    return f;
}

DisplayFrame displayFromSummary(const view::SliceSummary& slice, const std::vector<int64_t>& shape,
                                const DisplayRequest& req) {
    DisplayFrame f;
    f.tensorStats = slice.stats;
    if (slice.firstNonFiniteRow >= 0)
        f.firstNonFinite = view::elementIndex(view::normalizeSlice(shape, req.settings.slice), slice.firstNonFiniteRow,
                                              slice.firstNonFiniteCol);
    fillFromSummary(f, slice, req);
    return f;
}

}  // namespace opscope::gui
