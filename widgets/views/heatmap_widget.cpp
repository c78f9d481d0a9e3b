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
    setToolTip(tr("Wheel: zoom · drag: pan · double-click or F: fit · 1: square cells · click: pick the element"));
}

void HeatmapWidget::setImage(const QImage& image, int64_t planeRows, int64_t planeCols, std::vector<QPoint> flagged) {
    const bool shapeChanged = planeRows != rows_ || planeCols != cols_;
    image_ = image;
    flagged_ = std::move(flagged);
    rows_ = planeRows;
    cols_ = planeCols;
    message_.clear();
    if (shapeChanged)
        fitToWindow();
    else if (fitted_)
        fit(fitSquare_);
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

MapView fittedView(QSizeF size, int64_t rows, int64_t cols, bool square) {
    MapView v;
    if (rows <= 0 || cols <= 0 || size.width() <= 0 || size.height() <= 0) return v;
    constexpr double kMargin = 4;
    constexpr double kMinZoom = 1e-4;
    const double perCol = std::max((size.width() - 2 * kMargin) / double(cols), kMinZoom);
    const double perRow = std::max((size.height() - 2 * kMargin) / double(rows), kMinZoom);
    const double longSide = double(std::max(rows, cols)) / double(std::min(rows, cols));
    if (square || longSide <= kSquareCellsUpTo) {
        v.zoom = std::min(perCol, perRow);
    } else {
        v.zoom = perCol;
        v.stretch = perRow / perCol;
    }
    // Centre the slice.
    v.origin = QPointF(cols / 2.0 - size.width() / (2 * v.zoom), rows / 2.0 - size.height() / (2 * v.rowPixels()));
    return v;
}

void HeatmapWidget::setView(const MapView& view) {
    if (view == view_) return;
    view_ = view;
    fitted_ = false;
    update();
}

void HeatmapWidget::fitToWindow() { fit(false); }

void HeatmapWidget::fitSquare() { fit(true); }

void HeatmapWidget::fit(bool square) {
    fitted_ = true;
    fitSquare_ = square;
    if (rows_ <= 0 || cols_ <= 0 || width() <= 0 || height() <= 0) return;
    view_ = fittedView(QSizeF(size()), rows_, cols_, square);
    update();
    Q_EMIT viewChanged(view_);
}

void HeatmapWidget::zoomBy(double factor, QPointF anchor) {
    const QPointF before = toElement(anchor);
    view_.zoom = std::clamp(view_.zoom * factor, 1e-4, 4096.0);
    view_.origin = before - QPointF(anchor.x() / view_.zoom, anchor.y() / view_.rowPixels());
    fitted_ = false;
    update();
    Q_EMIT viewChanged(view_);
}

QPointF HeatmapWidget::toElement(QPointF p) const {
    return view_.origin + QPointF(p.x() / view_.zoom, p.y() / view_.rowPixels());
}

bool HeatmapWidget::elementAt(QPointF p, int64_t* row, int64_t* col) const {
    if (rows_ <= 0 || cols_ <= 0) return false;
    const QPointF e = toElement(p);
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
    const double sx = view_.zoom, sy = view_.rowPixels();
    const QRectF target(-view_.origin.x() * sx, -view_.origin.y() * sy, cols_ * sx, rows_ * sy);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(target, image_);
    paintFlagged(p, target);
    paintGrid(p, target);
    p.setPen(QPen(palette().color(QPalette::Dark), 1));
    p.drawRect(target);
    if (markRow_ >= 0 && markCol_ >= 0 && markRow_ < rows_ && markCol_ < cols_) {
        const QRectF cell((markCol_ - view_.origin.x()) * sx, (markRow_ - view_.origin.y()) * sy, sx, sy);
        const QRectF box = cell.width() < 9 || cell.height() < 9 ? cell.adjusted(-4, -4, 4, 4) : cell;
        p.setPen(QPen(Qt::black, 3));
        p.drawRect(box);
        p.setPen(QPen(Qt::white, 1));
        p.drawRect(box);
    }
    if (!caption_.isEmpty()) paintLabel(p, caption_, Qt::AlignTop | Qt::AlignLeft);
    // Stretched cells say so (width:height of a cell on screen): a square blob on the map is
    // not a square block of elements. Key 1 makes them square.
    if (std::fabs(std::log2(view_.stretch)) > 0.05) {
        const auto ratio = [](double r) { return r >= 10 ? QString::number(r, 'f', 0) : QString::number(r, 'f', 1); };
        paintLabel(p,
                   view_.stretch < 1 ? tr("cells %1:1").arg(ratio(1 / view_.stretch))
                                     : tr("cells 1:%1").arg(ratio(view_.stretch)),
                   Qt::AlignBottom | Qt::AlignRight);
    }
}

// Grid lines once cells are large enough to be told apart.
void HeatmapWidget::paintGrid(QPainter& p, const QRectF& target) const {
    const double sx = view_.zoom, sy = view_.rowPixels();
    if (std::min(sx, sy) < 14 || image_.width() != cols_ || image_.height() != rows_) return;
    p.setPen(QColor(0, 0, 0, 40));
    const QPointF o = view_.origin;
    const int64_t c0 = std::max<int64_t>(0, int64_t(std::floor(o.x())));
    const int64_t c1 = std::min<int64_t>(cols_, int64_t(std::ceil(o.x() + width() / sx)));
    const int64_t r0 = std::max<int64_t>(0, int64_t(std::floor(o.y())));
    const int64_t r1 = std::min<int64_t>(rows_, int64_t(std::ceil(o.y() + height() / sy)));
    for (int64_t c = c0; c <= c1; ++c) {
        const double x = (c - o.x()) * sx;
        p.drawLine(QPointF(x, target.top()), QPointF(x, target.bottom()));
    }
    for (int64_t r = r0; r <= r1; ++r) {
        const double y = (r - o.y()) * sy;
        p.drawLine(QPointF(target.left(), y), QPointF(target.right(), y));
    }
}

// A label on a light box in a corner: the caption at the top-left, the cells' stretch at the
// bottom-right.
void HeatmapWidget::paintLabel(QPainter& p, const QString& text, Qt::Alignment corner) const {
    const QFontMetrics fm = p.fontMetrics();
    QRect box = fm.boundingRect(text).adjusted(-4, -2, 4, 2);
    box.moveTopLeft(QPoint(corner & Qt::AlignRight ? width() - 8 - box.width() : 8,
                           corner & Qt::AlignBottom ? height() - 8 - box.height() : 8));
    p.fillRect(box, QColor(255, 255, 255, 200));
    p.setPen(Qt::black);
    p.drawText(box, Qt::AlignCenter, text);
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
    if (fitted_) fit(fitSquare_);
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
        dragOrigin_ = view_.origin;
    }
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* e) {
    if (dragging_) {
        const QPointF d = e->position() - dragStart_;
        if (d.manhattanLength() > 3) moved_ = true;
        if (moved_) {
            view_.origin = dragOrigin_ - QPointF(d.x() / view_.zoom, d.y() / view_.rowPixels());
            fitted_ = false;
            update();
            Q_EMIT viewChanged(view_);
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
        case Qt::Key_1: fitSquare(); break;
        case Qt::Key_Plus:
        case Qt::Key_Equal: zoomBy(1.5, centre); break;
        case Qt::Key_Minus: zoomBy(1 / 1.5, centre); break;
        default: QWidget::keyPressEvent(e);
    }
}

}  // namespace opscope::gui
