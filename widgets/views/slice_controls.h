// Picks the two displayed axes of an N-D tensor and an index for every other axis (a slider
// and a spin box each), HDF5-viewer style. Emits the resulting SliceSpec.
#pragma once

#include <QWidget>
#include <vector>

#include "opscope/view/slice.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;

namespace opscope::gui {

class SliceControls : public QWidget {
    Q_OBJECT
public:
    explicit SliceControls(QWidget* parent = nullptr);

    // Rebuilds the controls for a shape; keeps the slice when the shape is unchanged.
    void setShape(const std::vector<int64_t>& shape);
    const view::SliceSpec& slice() const { return slice_; }
    void setSlice(const view::SliceSpec& slice);
    // Moves the index sliders so that element `index` lies in the displayed plane.
    void showElement(const std::vector<int64_t>& index);

Q_SIGNALS:
    void sliceChanged(const opscope::view::SliceSpec& slice);

private:
    void rebuild();
    void syncFromSlice();
    void onAxisChosen();

    std::vector<int64_t> shape_;
    view::SliceSpec slice_;
    QComboBox* rowAxis_;
    QComboBox* colAxis_;
    QLabel* hint_;
    QGridLayout* sliders_;
    struct AxisRow {
        int axis;
        QLabel* label;
        QSlider* slider;
        QSpinBox* spin;
    };
    std::vector<AxisRow> rows_;
    bool updating_ = false;
};

}  // namespace opscope::gui
