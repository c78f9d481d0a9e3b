#include "views/slice_controls.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

namespace opscope::gui {

SliceControls::SliceControls(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* axes = new QHBoxLayout();
    axes->addWidget(new QLabel(tr("Rows:"), this));
    rowAxis_ = new QComboBox(this);
    rowAxis_->setToolTip(tr("The tensor axis shown vertically"));
    axes->addWidget(rowAxis_);
    axes->addWidget(new QLabel(tr("Columns:"), this));
    colAxis_ = new QComboBox(this);
    colAxis_->setToolTip(tr("The tensor axis shown horizontally"));
    rowAxis_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    colAxis_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    axes->addWidget(colAxis_);
    hint_ = new QLabel(this);
    hint_->setStyleSheet("color: palette(mid)");
    axes->addWidget(hint_, 1);
    outer->addLayout(axes);
    sliders_ = new QGridLayout();
    sliders_->setColumnStretch(1, 1);
    outer->addLayout(sliders_);
    connect(rowAxis_, &QComboBox::activated, this, &SliceControls::onAxisChosen);
    connect(colAxis_, &QComboBox::activated, this, &SliceControls::onAxisChosen);
    rebuild();
}

void SliceControls::setShape(const std::vector<int64_t>& shape) {
    if (shape == shape_ && !rows_.empty()) return;
    const bool sameRank = shape.size() == shape_.size();
    shape_ = shape;
    slice_ = view::normalizeSlice(shape_, sameRank ? slice_ : view::defaultSlice(shape_));
    rebuild();
}

void SliceControls::setSlice(const view::SliceSpec& s) {
    const view::SliceSpec n = view::normalizeSlice(shape_, s);
    if (n == slice_) return;
    const bool axesChanged = n.rowAxis != slice_.rowAxis || n.colAxis != slice_.colAxis;
    slice_ = n;
    if (axesChanged)
        rebuild();
    else
        syncFromSlice();
    Q_EMIT sliceChanged(slice_);
}

void SliceControls::showElement(const std::vector<int64_t>& index) {
    view::SliceSpec s = slice_;
    for (std::size_t a = 0; a < index.size() && a < s.index.size(); ++a) s.index[a] = index[a];
    setSlice(s);
}

void SliceControls::onAxisChosen() {
    if (updating_) return;
    view::SliceSpec s = slice_;
    // Choosing the axis the other combo shows swaps the two.
    if (sender() == rowAxis_) {
        s.rowAxis = rowAxis_->currentData().toInt();
        if (s.rowAxis == slice_.colAxis) s.colAxis = slice_.rowAxis;
    } else {
        s.colAxis = colAxis_->currentData().toInt();
        if (s.colAxis == slice_.rowAxis) s.rowAxis = slice_.colAxis;
    }
    setSlice(s);
}

void SliceControls::rebuild() {
    updating_ = true;
    const int rank = static_cast<int>(shape_.size());
    rowAxis_->clear();
    colAxis_->clear();
    for (int a = 0; a < rank; ++a) {
        const QString text = tr("axis %1 (%2)").arg(a).arg(shape_[static_cast<std::size_t>(a)]);
        rowAxis_->addItem(text, a);
        colAxis_->addItem(text, a);
    }
    rowAxis_->setEnabled(rank >= 2);
    colAxis_->setEnabled(rank >= 2);
    rowAxis_->setCurrentIndex(rowAxis_->findData(slice_.rowAxis));
    colAxis_->setCurrentIndex(colAxis_->findData(slice_.colAxis));
    hint_->setText(rank == 1 ? tr("vector: one row") : QString());
    for (AxisRow& r : rows_) {
        delete r.label;
        delete r.slider;
        delete r.spin;
    }
    rows_.clear();
    for (int a = 0; a < rank; ++a) {
        if (a == slice_.rowAxis || a == slice_.colAxis) continue;
        const int64_t n = shape_[static_cast<std::size_t>(a)];
        AxisRow row{a, new QLabel(tr("axis %1").arg(a), this), new QSlider(Qt::Horizontal, this), new QSpinBox(this)};
        const int maxIndex = static_cast<int>(std::max<int64_t>(n - 1, 0));
        row.slider->setRange(0, maxIndex);
        row.spin->setRange(0, maxIndex);
        row.spin->setSuffix(QStringLiteral(" / %1").arg(maxIndex));
        row.slider->setToolTip(tr("Index along axis %1 (size %2)").arg(a).arg(n));
        const int r = static_cast<int>(rows_.size());
        sliders_->addWidget(row.label, r, 0);
        sliders_->addWidget(row.slider, r, 1);
        sliders_->addWidget(row.spin, r, 2);
        connect(row.slider, &QSlider::valueChanged, row.spin, &QSpinBox::setValue);
        connect(row.spin, &QSpinBox::valueChanged, row.slider, &QSlider::setValue);
        connect(row.spin, &QSpinBox::valueChanged, this, [this, a](int v) {
            if (updating_) return;
            view::SliceSpec s = slice_;
            s.index[static_cast<std::size_t>(a)] = v;
            setSlice(s);
        });
        rows_.push_back(row);
    }
    updating_ = false;
    syncFromSlice();
}

void SliceControls::syncFromSlice() {
    updating_ = true;
    for (AxisRow& r : rows_) {
        const int v = static_cast<int>(slice_.index[static_cast<std::size_t>(r.axis)]);
        QSignalBlocker b1(r.slider), b2(r.spin);
        r.slider->setValue(v);
        r.spin->setValue(v);
    }
    updating_ = false;
}

}  // namespace opscope::gui
