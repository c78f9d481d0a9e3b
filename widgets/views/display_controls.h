// Colormap, scale, range mode (autofit / symmetric / percentile / manual) and overlays for
// the tensor view. Emits the settings; knows nothing of tensors.
#pragma once

#include <QWidget>

#include "views/tensor_display.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;

namespace opscope::gui {

class DisplayControls : public QWidget {
    Q_OBJECT
public:
    explicit DisplayControls(QWidget* parent = nullptr);

    // Settings other than the slice.
    void apply(DisplaySettings* settings) const;
    void setFrom(const DisplaySettings& settings);
    // Shows the range in use (autofit and friends) in the lo/hi boxes.
    void showRange(double lo, double hi);
    // Manual range from the histogram handles.
    void setManualRange(double lo, double hi);
    // Defaults for a kind of tensor: values (diverging, symmetric) or errors (magma, log).
    static DisplaySettings defaultsFor(bool errorMagnitudes);

Q_SIGNALS:
    void changed();

private:
    void updateEnabled();
    QComboBox* colormap_;
    QComboBox* scale_;
    QComboBox* range_;
    QDoubleSpinBox* percentile_;
    QLineEdit* lo_;
    QLineEdit* hi_;
    QCheckBox* nonFinite_;
    QCheckBox* beyond_;
    QLineEdit* relTol_;
    QLineEdit* absTol_;
    bool updating_ = false;
};

}  // namespace opscope::gui
