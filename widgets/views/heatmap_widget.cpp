#include "views/heatmap_widget.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace opscope::gui {

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Wheel: zoom · drag: pan · double-click or F: fit · click: pick the element"));
}

void HeatmapWidget::setImage(const QImage& image, int64_t planeRows, int64_t planeCols, std::vector<QPoint> flagged) {
    const bool shapeChanged = planeRows != rows_ || planeCols != cols_;
    image_ = image;
    flagged_ = std::move(flagged);
    rows_ = planeRows;
    cols_ = planeCols;
    message_.clear();
    if (shapeChanged || fitted_) fitToWindow();
    update();
}

void HeatmapWidget::clear(const QString& message) {
    image_ = QImage();
    flagged_.clear();
    rows_ = cols_ = 0;
    message_ = message;
    update();
}

void HeatmapWidget::setMarker(int64_t row, int64_t col) {
    markRow_ = row;
    markCol_ = col;
    update();
}

void HeatmapWidget::setCaption(const QString& caption) {
    caption_ = caption;
    update();
}

void HeatmapWidget::setView(double zoom, QPointF origin) {
    if (zoom == zoom_ && origin == origin_) return;
    zoom_ = zoom;
    origin_ = origin;
    fitted_ = false;
    update();
}

void HeatmapWidget::fitToWindow() {
    fitted_ = true;
    if (rows_ <= 0 || cols_ <= 0 || width() <= 0 || height() <= 0) return;
    const double margin = 4;
    zoom_ = std::min((width() - 2 * margin) / double(cols_), (height() - 2 * margin) / double(rows_));
    zoom_ = std::max(zoom_, 1e-4);
    // Centre the slice.
    origin_ = QPointF(cols_ / 2.0 - width() / (2 * zoom_), rows_ / 2.0 - height() / (2 * zoom_));
    update();
    Q_EMIT viewChanged(zoom_, origin_);
}

void HeatmapWidget::zoomBy(double factor, QPointF anchor) {
    const QPointF before = origin_ + anchor / zoom_;
    zoom_ = std::clamp(zoom_ * factor, 1e-4, 4096.0);
    origin_ = before - anchor / zoom_;
    fitted_ = false;
    update();
    Q_EMIT viewChanged(zoom_, origin_);
}

bool HeatmapWidget::elementAt(QPointF p, int64_t* row, int64_t* col) const {
    if (rows_ <= 0 || cols_ <= 0) return false;
    const QPointF e = origin_ + p / zoom_;
    const int64_t c = static_cast<int64_t>(std::floor(e.x()));
    const int64_t r = static_cast<int64_t>(std::floor(e.y()));
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return false;
    *row = r;
    *col = c;
    return true;
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Mid));
    if (image_.isNull()) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, message_.isEmpty() ? tr("No tensor") : message_);
        return;
    }
    const QRectF target(-origin_.x() * zoom_, -origin_.y() * zoom_, cols_ * zoom_, rows_ * zoom_);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(target, image_);
    paintFlagged(p, target);
    // Grid lines once cells are large enough to be told apart.
    if (zoom_ >= 14 && image_.width() == cols_ && image_.height() == rows_) {
        p.setPen(QColor(0, 0, 0, 40));
        const int64_t c0 = std::max<int64_t>(0, int64_t(std::floor(origin_.x())));
        const int64_t c1 = std::min<int64_t>(cols_, int64_t(std::ceil(origin_.x() + width() / zoom_)));
        const int64_t r0 = std::max<int64_t>(0, int64_t(std::floor(origin_.y())));
        const int64_t r1 = std::min<int64_t>(rows_, int64_t(std::ceil(origin_.y() + height() / zoom_)));
        for (int64_t c = c0; c <= c1; ++c) {
            const double x = (c - origin_.x()) * zoom_;
            p.drawLine(QPointF(x, target.top()), QPointF(x, target.bottom()));
        }
        for (int64_t r = r0; r <= r1; ++r) {
            const double y = (r - origin_.y()) * zoom_;
            p.drawLine(QPointF(target.left(), y), QPointF(target.right(), y));
        }
    }
    p.setPen(QPen(palette().color(QPalette::Dark), 1));
    p.drawRect(target);
    if (markRow_ >= 0 && markCol_ >= 0 && markRow_ < rows_ && markCol_ < cols_) {
        const QRectF cell((markCol_ - origin_.x()) * zoom_, (markRow_ - origin_.y()) * zoom_, zoom_, zoom_);
        const QRectF box = cell.width() < 9 ? cell.adjusted(-4, -4, 4, 4) : cell;
        p.setPen(QPen(Qt::black, 3));
        p.drawRect(box);
        p.setPen(QPen(Qt::white, 1));
        p.drawRect(box);
    }
    if (!caption_.isEmpty()) {
        const QRect box =
            p.fontMetrics().boundingRect(caption_).adjusted(-4, -2, 4, 2).translated(8, 8 + p.fontMetrics().ascent());
        p.fillRect(box, QColor(255, 255, 255, 200));
        p.setPen(Qt::black);
        p.drawText(box, Qt::AlignCenter, caption_);
    }
}

// Scaled down without smoothing, the image shows one of several pixels per screen pixel and a
// lone NaN may be the one left out: flagged pixels are drawn again, in their own colour, at
// least kMinPixels wide (on top of their neighbours: an overlay must never vanish).
void HeatmapWidget::paintFlagged(QPainter& p, const QRectF& target) const {
    constexpr double kMinPixels = 3;
    const double w = target.width() / image_.width(), h = target.height() / image_.height();
    if (flagged_.empty() || (w >= kMinPixels && h >= kMinPixels)) return;
    const double mw = std::max(w, kMinPixels), mh = std::max(h, kMinPixels);
    for (const QPoint& cell : flagged_) {
        if (!image_.valid(cell)) continue;
        const QPointF at(std::floor(target.left() + cell.x() * w), std::floor(target.top() + cell.y() * h));
        p.fillRect(QRectF(at, QSizeF(std::ceil(mw), std::ceil(mh))), image_.pixelColor(cell));
    }
}

void HeatmapWidget::resizeEvent(QResizeEvent*) {
    if (fitted_) fitToWindow();
}

void HeatmapWidget::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    if (steps != 0) zoomBy(std::pow(1.25, steps), e->position());
    e->accept();
}

void HeatmapWidget::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton || e->button() == Qt::MiddleButton) {
        dragging_ = true;
        moved_ = false;
        dragStart_ = e->position();
        dragOrigin_ = origin_;
    }
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* e) {
    if (dragging_) {
        const QPointF d = e->position() - dragStart_;
        if (d.manhattanLength() > 3) moved_ = true;
        if (moved_) {
            origin_ = dragOrigin_ - d / zoom_;
            fitted_ = false;
            update();
            Q_EMIT viewChanged(zoom_, origin_);
        }
    }
    int64_t r, c;
    if (elementAt(e->position(), &r, &c))
        Q_EMIT hovered(r, c);
    else
        Q_EMIT hovered(-1, -1);
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent* e) {
    const bool wasClick = dragging_ && !moved_ && e->button() == Qt::LeftButton;
    dragging_ = false;
    int64_t r, c;
    if (wasClick && elementAt(e->position(), &r, &c)) Q_EMIT clicked(r, c);
}

void HeatmapWidget::mouseDoubleClickEvent(QMouseEvent*) { fitToWindow(); }

void HeatmapWidget::leaveEvent(QEvent*) { Q_EMIT hovered(-1, -1); }

void HeatmapWidget::keyPressEvent(QKeyEvent* e) {
    const QPointF centre(width() / 2.0, height() / 2.0);
    switch (e->key()) {
        case Qt::Key_F: fitToWindow(); break;
        case Qt::Key_Plus:
        case Qt::Key_Equal: zoomBy(1.5, centre); break;
        case Qt::Key_Minus: zoomBy(1 / 1.5, centre); break;
        default: QWidget::keyPressEvent(e);
    }
}

}  // namespace opscope::gui
