#include "views/range_histogram_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <cmath>

#include "palette.h"

namespace opscope::gui {

namespace {
constexpr int kBarHeight = 12;
constexpr int kLabelHeight = 16;
}  // namespace

RangeHistogramWidget::RangeHistogramWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setToolTip(
        tr("Histogram of the slice's values on the display scale.\nDrag the white handles to set the range by hand."));
}

void RangeHistogramWidget::setHistogram(const view::ValueHistogram& h, const view::ValueScale& histScale,
                                        const view::ValueScale& display, view::Colormap colormap) {
    hist_ = h;
    histScale_ = histScale;
    display_ = display;
    colormap_ = colormap;
    valid_ = true;
    update();
}

void RangeHistogramWidget::clear() {
    valid_ = false;
    update();
}

QRectF RangeHistogramWidget::plotRect() const {
    return QRectF(8, 4, width() - 16, height() - 8 - kBarHeight - kLabelHeight);
}

double RangeHistogramWidget::xOf(double value) const {
    const QRectF r = plotRect();
    return r.left() + histScale_.normalize(value) * r.width();
}

double RangeHistogramWidget::valueAt(double x) const {
    const QRectF r = plotRect();
    return histScale_.denormalize(std::clamp((x - r.left()) / r.width(), 0.0, 1.0));
}

void RangeHistogramWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QRectF r = plotRect();
    if (!valid_ || hist_.counts.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No values"));
        return;
    }
    const double lo = dragging_ ? dragLo_ : display_.range().lo;
    const double hi = dragging_ ? dragHi_ : display_.range().hi;
    // Bars, coloured like the heatmap, greyed outside the display range.
    const int64_t maxCount = std::max<int64_t>(hist_.maxCount(), 1);
    const double denom = std::log1p(double(maxCount));  // log counts: rare values stay visible
    const double bw = r.width() / double(hist_.counts.size());
    for (std::size_t i = 0; i < hist_.counts.size(); ++i) {
        if (hist_.counts[i] == 0) continue;
        const double c = double(hist_.counts[i]);
        const double h = std::log1p(c) / denom * r.height();
        const double mid = 0.5 * (hist_.edges[i] + hist_.edges[i + 1]);
        const bool inside = mid >= lo && mid <= hi;
        const view::Rgb col = view::mapColor(colormap_, display_.normalize(mid));
        QColor q(col.r, col.g, col.b);
        if (!inside) q = QColor(0xb0, 0xb0, 0xb0);
        p.fillRect(QRectF(r.left() + i * bw, r.bottom() - h, std::max(bw - 1, 1.0), h), q);
        p.setPen(QColor(0, 0, 0, 60));
        p.drawRect(QRectF(r.left() + i * bw, r.bottom() - h, std::max(bw - 1, 1.0), h));
    }
    // The colour bar of the display range.
    const QRectF bar(r.left(), r.bottom() + 2, r.width(), kBarHeight);
    for (int x = 0; x < int(bar.width()); ++x) {
        const double v = valueAt(bar.left() + x);
        const view::Rgb c = view::mapColor(colormap_, display_.normalize(v));
        p.setPen(QColor(c.r, c.g, c.b));
        p.drawLine(QPointF(bar.left() + x, bar.top()), QPointF(bar.left() + x, bar.bottom()));
    }
    // Handles at the ends of the display range.
    for (double v : {lo, hi}) {
        const double x = xOf(v);
        p.setPen(QPen(Qt::black, 3));
        p.drawLine(QPointF(x, r.top()), QPointF(x, bar.bottom()));
        p.setPen(QPen(Qt::white, 1));
        p.drawLine(QPointF(x, r.top()), QPointF(x, bar.bottom()));
    }
    // Labels: the range ends and what the histogram does not show.
    p.setPen(palette().color(QPalette::Text));
    const QRectF labels(r.left(), bar.bottom() + 1, r.width(), kLabelHeight);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, formatNumber(lo, 4));
    p.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, formatNumber(hi, 4));
    QString mid = QString::fromUtf8(view::scaleName(display_.kind()));
    if (hist_.nonFinite) mid += tr("  ·  %1 NaN/Inf").arg(hist_.nonFinite);
    if (hist_.below) mid += tr("  ·  %1 ≤ 0 not shown").arg(hist_.below);
    p.drawText(labels, Qt::AlignHCenter | Qt::AlignVCenter, mid);
}

void RangeHistogramWidget::mousePressEvent(QMouseEvent* e) {
    if (!valid_ || e->button() != Qt::LeftButton) return;
    const double x = e->position().x();
    const double dl = std::fabs(x - xOf(display_.range().lo)), dh = std::fabs(x - xOf(display_.range().hi));
    dragLo_ = display_.range().lo;
    dragHi_ = display_.range().hi;
    dragging_ = dl <= dh ? 1 : 2;
    mouseMoveEvent(e);
}

void RangeHistogramWidget::mouseMoveEvent(QMouseEvent* e) {
    if (!dragging_) {
        const double x = e->position().x();
        const bool near =
            valid_ && (std::fabs(x - xOf(display_.range().lo)) < 6 || std::fabs(x - xOf(display_.range().hi)) < 6);
        setCursor(near ? Qt::SizeHorCursor : Qt::ArrowCursor);
        return;
    }
    const double v = valueAt(e->position().x());
    if (dragging_ == 1)
        dragLo_ = std::min(v, dragHi_);
    else
        dragHi_ = std::max(v, dragLo_);
    update();
}

void RangeHistogramWidget::mouseReleaseEvent(QMouseEvent*) {
    if (!dragging_) return;
    dragging_ = 0;
    if (dragLo_ < dragHi_) Q_EMIT rangeEdited(dragLo_, dragHi_);
    update();
}

}  // namespace opscope::gui
