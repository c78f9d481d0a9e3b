// What the heatmap shows, computed off the GUI thread from the core's view functions: the
// slice, its range, the downsampled and coloured image, the value histogram and the
// beyond-tolerance mask. The widgets receive the finished frame and only paint it. The slice
// is read in one streaming pass (view::summarizeSlice): nothing tensor-sized is allocated.
#pragma once

#include <QImage>
#include <QPoint>
#include <functional>
#include <optional>

#include "opscope/stats.h"
#include "opscope/view/colormap.h"
#include "opscope/view/histogram.h"
#include "opscope/view/scale.h"
#include "opscope/view/slice.h"
#include "opscope/view/slice_summary.h"
#include "session/session_types.h"

namespace opscope::gui {

// The display settings (RenderDoc's TextureDisplay): everything but the tensor.
struct DisplaySettings {
    view::SliceSpec slice;
    view::Colormap colormap = view::Colormap::CoolWarm;
    view::ScaleKind scale = view::ScaleKind::Linear;
    view::RangeRequest range;
    bool showNonFinite = true;
    bool showBeyond = true;
    double relTolerance = 1e-3;  // an element is beyond tolerance when both errors exceed these
    double absTolerance = 1e-6;
};

struct DisplayRequest {
    TensorPtr tensor;  // the values; for an error map, the output
    // The output's reference (same shape): an error map is computed from the pair slice by
    // slice, and with it the beyond-tolerance overlay; optional for values.
    TensorPtr reference;
    view::SliceContent content = view::SliceContent::Values;
    DType outputDtype = DType::Float32;  // what the reference is rounded to before comparing
    DisplaySettings settings;
    std::optional<view::ValueRange> fixedRange;  // share a range (A/B, side by side)
    int64_t maxCells = 2048;                     // per axis, before downsampling
    int histogramBins = 64;
    std::function<bool()> cancelled;  // a newer request replaced this one: stop early
};

struct DisplayFrame {
    QImage image;                          // one pixel per cell
    int64_t planeRows = 0, planeCols = 0;  // the slice in elements
    int64_t blockRows = 1, blockCols = 1;  // elements per pixel
    view::ValueScale scale;                // the colour scale (display range)
    view::ValueScale histogramScale;       // spans the data and the display range
    view::ValueHistogram histogram;        // binned on histogramScale
    TensorStats sliceStats, tensorStats;   // tensorStats: values only (count 0 for an error map)
    bool sampled = false;                  // range and histogram from an even sample of the slice
    int64_t beyondCount = 0;               // in the slice; -1 without error maps
    std::vector<int64_t> firstNonFinite;   // index of the first NaN/Inf in the tensor, empty if none
    // Pixels of `image` (x = cell column, y = cell row) painted as NaN/Inf or beyond tolerance,
    // at most kMaxFlaggedCells: the heatmap draws them at least 3 screen pixels wide when the
    // image is drawn smaller than one screen pixel per cell, so a lone one never falls between
    // pixels. Empty when there are more (they cannot all vanish then).
    std::vector<QPoint> flaggedCells;
    static constexpr std::size_t kMaxFlaggedCells = 4096;
    bool valid() const { return !image.isNull(); }
};

DisplayFrame computeDisplay(const DisplayRequest& request);
// The frame of a pass made elsewhere (a dataset of `shape` streamed in row bands): its
// statistics are the slice's, its first NaN/Inf the first in the slice's row-major order.
// request.tensor is not read; its settings, range and bins apply.
DisplayFrame displayFromSummary(const view::SliceSummary& slice, const std::vector<int64_t>& shape,
                                const DisplayRequest& request);

}  // namespace opscope::gui
