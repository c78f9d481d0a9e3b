// Paints one tensor slice (a DisplayFrame's image) with zoom and pan, and reports the element
// under the mouse in slice coordinates. It computes nothing about values.
#pragma once

#include <QImage>
#include <QPointF>
#include <QWidget>
#include <vector>

namespace opscope::gui {

class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapWidget(QWidget* parent = nullptr);

    // The image covers planeRows x planeCols elements (one pixel may stand for a block).
    // flagged: pixels (NaN/Inf, beyond tolerance) kept visible when the image is drawn smaller
    // than one screen pixel per image pixel.
    void setImage(const QImage& image, int64_t planeRows, int64_t planeCols, std::vector<QPoint> flagged = {});
    void clear(const QString& message = {});
    void setMarker(int64_t row, int64_t col);  // the picked element; -1 hides it
    void setCaption(const QString& caption);

    // Zoom (pixels per element) and the element at the widget's top-left corner.
    double zoom() const { return zoom_; }
    QPointF origin() const { return origin_; }
    void setView(double zoom, QPointF origin);
    void fitToWindow();
    void zoomBy(double factor, QPointF anchorPixel);

    // Widget pixel -> element (row, col); false outside the slice.
    bool elementAt(QPointF pixel, int64_t* row, int64_t* col) const;

    QSize sizeHint() const override { return {480, 360}; }
    QSize minimumSizeHint() const override { return {120, 90}; }

Q_SIGNALS:
    void hovered(qint64 row, qint64 col);  // -1, -1 when leaving the slice
    void clicked(qint64 row, qint64 col);
    void viewChanged(double zoom, QPointF origin);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void leaveEvent(QEvent*) override;
    void keyPressEvent(QKeyEvent*) override;

private:
    void paintFlagged(QPainter& p, const QRectF& target) const;

    QImage image_;
    std::vector<QPoint> flagged_;
    int64_t rows_ = 0, cols_ = 0;
    double zoom_ = 1;
    QPointF origin_;      // element coordinates (x = col, y = row) at the top-left
    bool fitted_ = true;  // refit on resize until the user zooms or pans
    QString message_;
    QString caption_;
    int64_t markRow_ = -1, markCol_ = -1;
    bool dragging_ = false;
    QPointF dragStart_, dragOrigin_;
    bool moved_ = false;
};

}  // namespace opscope::gui
