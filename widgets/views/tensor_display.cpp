#include "views/tensor_display.h"

#include <algorithm>
#include <cstring>

#include "opscope/view/downsample.h"
#include "opscope/view/masks.h"
#include "opscope/view/render.h"

namespace opscope::gui {

DisplayFrame computeDisplay(const DisplayRequest& req) {
    DisplayFrame f;
    if (!req.tensor) return f;
    const HostTensor& t = *req.tensor;
    const view::SliceSpec slice = view::normalizeSlice(t.shape(), req.settings.slice);
    const view::Plane plane = view::extractPlane(t.view(), slice);
    f.tensorStats = computeStats(t.view());
    if (f.tensorStats.nanCount + f.tensorStats.infCount > 0) f.firstNonFinite = view::firstNonFinite(t.view());
    if (plane.size() == 0) return f;
    f.planeRows = plane.rows;
    f.planeCols = plane.cols;
    f.sliceStats = computeStats(
        TensorView::contiguous(DType::Float64, {plane.rows, plane.cols}, const_cast<double*>(plane.values.data())));

    const view::ValueRange range =
        req.fixedRange ? *req.fixedRange : view::computeRange(plane.values, req.settings.range, req.settings.scale);
    f.scale = view::ValueScale(req.settings.scale, range);
    // The histogram shows all the data and the display range inside it.
    view::RangeRequest all;
    const view::ValueRange data = view::computeRange(plane.values, all, req.settings.scale);
    const view::ValueRange shown = f.scale.range();
    f.histogramScale = view::ValueScale(req.settings.scale, {std::min(data.lo, shown.lo), std::max(data.hi, shown.hi)});
    f.histogram = view::valueHistogram(plane.values, f.histogramScale, req.histogramBins);

    const view::Downsampled cells = view::downsample(plane, req.maxCells, req.maxCells);
    f.blockRows = cells.blockRows;
    f.blockCols = cells.blockCols;

    // Beyond tolerance: both the absolute and the relative error exceed their tolerances.
    std::optional<view::Downsampled> beyond;
    f.beyondCount = -1;
    if (req.absError && req.relError && req.absError->shape() == t.shape() && req.relError->shape() == t.shape()) {
        const view::ToleranceMask m = view::beyondTolerance(view::extractPlane(req.absError->view(), slice),
                                                            view::extractPlane(req.relError->view(), slice),
                                                            req.settings.absTolerance, req.settings.relTolerance);
        f.beyondCount = m.count;
        beyond = view::downsample(m.mask, req.maxCells, req.maxCells);
    }

    view::DisplaySettings ds;
    ds.colormap = req.settings.colormap;
    ds.scale = f.scale;
    ds.showNonFinite = req.settings.showNonFinite;
    ds.showBeyond = req.settings.showBeyond;
    const std::vector<uint32_t> px = view::renderCells(cells, ds, beyond ? &*beyond : nullptr);
    QImage img(static_cast<int>(cells.cols), static_cast<int>(cells.rows), QImage::Format_RGB32);
    for (int64_t r = 0; r < cells.rows; ++r)
        std::memcpy(img.scanLine(static_cast<int>(r)), px.data() + r * cells.cols,
                    static_cast<std::size_t>(cells.cols) * 4);
    f.image = std::move(img);
    return f;
}

}  // namespace opscope::gui
