// Paints one tensor slice (a DisplayFrame's image) with zoom and pan, and reports the element
// under the mouse in slice coordinates. It computes nothing about values.
#pragma once

#include <QImage>
#include <QPointF>
#include <QWidget>
#include <vector>

namespace opscope::gui {

// Where a map looks: the scale along each axis and the element at the top-left corner.
struct MapView {
    double zoom = 1;     // pixels per column
    double stretch = 1;  // pixels per row over pixels per column: 1 is square cells
    QPointF origin;      // element coordinates (x = col, y = row)

    double rowPixels() const { return zoom * stretch; }
    bool operator==(const MapView& o) const { return zoom == o.zoom && stretch == o.stretch && origin == o.origin; }
};

// The fitted view of a rows x cols slice in a widget of `size`: square cells, centred, unless
// the slice is more than kSquareCellsUpTo times longer one way than the other (an embedding
// table, a row of biases): square cells would leave it a strip a few pixels wide, so its cells
// are stretched to fill the widget. `square` asks for square cells whatever the shape.
MapView fittedView(QSizeF size, int64_t rows, int64_t cols, bool square = false);
constexpr double kSquareCellsUpTo = 4;

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

    // Zoom (pixels per column), the cells' stretch and the element at the top-left corner.
    double zoom() const { return view_.zoom; }
    double stretch() const { return view_.stretch; }
    QPointF origin() const { return view_.origin; }
    const MapView& view() const { return view_; }
    void setView(const MapView& view);
    void fitToWindow();                               // fittedView: stretched cells for a long, thin slice
    void fitSquare();                                 // fittedView with square cells
    void zoomBy(double factor, QPointF anchorPixel);  // both axes: the stretch stays

    // Widget pixel -> element (row, col); false outside the slice.
    bool elementAt(QPointF pixel, int64_t* row, int64_t* col) const;

    QSize sizeHint() const override { return {480, 360}; }
    QSize minimumSizeHint() const override { return {120, 90}; }

Q_SIGNALS:
    void hovered(qint64 row, qint64 col);  // -1, -1 when leaving the slice
    void clicked(qint64 row, qint64 col);
    void viewChanged(const opscope::gui::MapView& view);

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
    void fit(bool square);
    void paintFlagged(QPainter& p, const QRectF& target) const;
    void paintGrid(QPainter& p, const QRectF& target) const;
    void paintLabel(QPainter& p, const QString& text, Qt::Alignment corner) const;
    QPointF toElement(QPointF pixel) const;  // element coordinates (x = col, y = row)

    QImage image_;
    std::vector<QPoint> flagged_;
    int64_t rows_ = 0, cols_ = 0;
    MapView view_;
    bool fitted_ = true;      // refit on resize until the user zooms or pans
    bool fitSquare_ = false;  // the fit asked for is square cells (key 1)
    QString message_;
    QString caption_;
    int64_t markRow_ = -1, markCol_ = -1;
    bool dragging_ = false;
    QPointF dragStart_, dragOrigin_;
    bool moved_ = false;
};

}  // namespace opscope::gui
