// The heatmap's right-click menu, for every heatmap of the debugger (the call's tensor view and
// the dataset view): copy the value under the mouse at full precision, export the shown slice
// as CSV or .npy, export a PNG with the tensor, slice and case written on it. The exports are
// plain functions of what is shown, so tests call them without dialogs.
#pragma once

#include <QString>
#include <functional>

#include "opscope/view/slice.h"
#include "session/session_types.h"

class QMenu;
class QPoint;

namespace opscope::gui {

class HeatmapWidget;

// What a heatmap shows, as the menu needs it.
struct HeatmapContent {
    TensorPtr tensor;  // null: nothing shown
    view::SliceSpec slice;
    QString tensorName;  // "gradInput", "/model/embed"
    QString caseName;    // the case or file it belongs to
    QString sourceFile;  // never written over by an export
    // Set when `tensor` is only the block of `slice` read from a bigger dataset of this shape:
    // the values come from the block, the slice's indices in titles from the dataset.
    std::vector<int64_t> datasetShape;
};

// "[0, :, :]": the fixed indices and ':' for the displayed axes.
QString sliceText(const std::vector<int64_t>& shape, const view::SliceSpec& slice);
// "gradInput [0, :, :] · /group_norm_backward/fp32/basic": what an exported PNG says.
QString contentTitle(const HeatmapContent& content);
// The value of slice cell (row, col) with every digit its dtype holds (view::fullPrecisionText).
QString fullPrecisionValue(const HeatmapContent& content, int64_t row, int64_t col);

// Each writes atomically and returns "" or the error.
QString exportSliceCsv(const HeatmapContent& content, const QString& path);
QString exportSliceNpy(const HeatmapContent& content, const QString& path);
QString exportLabelledPng(const HeatmapContent& content, HeatmapWidget* heatmap, const QString& path);

// Fills `menu` for a right-click at `pos` on `heatmap` (the actions' object names: copyValue,
// exportCsv, exportNpy, exportPng).
void fillHeatmapMenu(QMenu* menu, HeatmapWidget* heatmap, const QPoint& pos, const HeatmapContent& content);
// Gives `heatmap` that menu; `content` is asked at each right-click.
void attachHeatmapMenu(HeatmapWidget* heatmap, std::function<HeatmapContent()> content);

}  // namespace opscope::gui
