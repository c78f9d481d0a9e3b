// The range control under the heatmap (RenderDoc's RangeHistogram): a histogram of the slice's
// values, the colour bar of the display range, and two handles that set the range by hand.
#pragma once

#include <QWidget>

#include "opscope/view/colormap.h"
#include "opscope/view/histogram.h"
#include "opscope/view/scale.h"

namespace opscope::gui {

class RangeHistogramWidget : public QWidget {
    Q_OBJECT
public:
    explicit RangeHistogramWidget(QWidget* parent = nullptr);

    // `histogramScale` spans the histogram's edges; `display` is the colour scale.
    void setHistogram(const view::ValueHistogram& histogram, const view::ValueScale& histogramScale,
                      const view::ValueScale& display, view::Colormap colormap);
    void clear();

    QSize sizeHint() const override { return {480, 110}; }
    QSize minimumSizeHint() const override { return {200, 70}; }  // bars 34 px high: room for the maps

Q_SIGNALS:
    // The user dragged a handle: the new display range.
    void rangeEdited(double lo, double hi);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;

private:
    QRectF plotRect() const;
    double xOf(double value) const;
    double valueAt(double x) const;

    view::ValueHistogram hist_;
    view::ValueScale histScale_, display_;
    view::Colormap colormap_ = view::Colormap::CoolWarm;
    bool valid_ = false;
    int dragging_ = 0;  // 1 lo, 2 hi
    double dragLo_ = 0, dragHi_ = 0;
};

}  // namespace opscope::gui
