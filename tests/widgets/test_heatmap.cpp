// The painting widgets with synthetic mouse events: the heatmap maps pixels to elements,
// reports hover and clicks, zooms and pans; the range histogram's handles set a range.
#include <QtTest>

#include <limits>

#include "opscope/host_tensor.h"
#include "views/heatmap_widget.h"
#include "views/range_histogram_widget.h"
#include "views/tensor_display.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

namespace {

// Shows `w` at `size` with a rows x cols image of one colour, fitted to the window.
bool showPlainImage(HeatmapWidget& w, QSize size, int rows, int cols, Qt::GlobalColor colour) {
    w.resize(size);
    QImage img(cols, rows, QImage::Format_RGB32);
    img.fill(colour);
    w.setImage(img, rows, cols);
    if (!test::showExposed(w)) return false;
    w.fitToWindow();
    return true;
}

}  // namespace

class TestHeatmap : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A lone NaN in a [2048, 1536] slice drawn at fit zoom (about 7 cells per screen pixel)
    // shows in the painted pixels: the flagged cell is drawn again over the scaled image.
    void loneNaNStaysVisibleAtFitZoom() {
        HostTensor t = HostTensor::fromDoubles(DType::Float32, {2048, 1536}, std::vector<double>(2048 * 1536, 1.0));
        t.setFromDouble(1001 * 1536 + 777, std::numeric_limits<double>::quiet_NaN());
        DisplayRequest req;
        req.tensor = std::make_shared<const HostTensor>(std::move(t));
        req.settings.slice = view::defaultSlice({2048, 1536});
        const DisplayFrame f = computeDisplay(req);
        QCOMPARE(f.flaggedCells, (std::vector<QPoint>{QPoint(777, 1001)}));
        const QRgb nan = f.image.pixel(777, 1001);
        QVERIFY(nan != f.image.pixel(0, 0));
        const auto nanPixels = [&](HeatmapWidget& w) {
            const QImage shot = w.grab().toImage().convertToFormat(QImage::Format_RGB32);
            QPoint where(-1, -1);
            int n = 0;
            for (int y = 0; y < shot.height(); ++y)
                for (int x = 0; x < shot.width(); ++x)
                    if (shot.pixel(x, y) == nan) ++n, where = QPoint(x, y);
            return std::pair{n, where};
        };
        HeatmapWidget w;
        w.resize(300, 300);
        w.setImage(f.image, f.planeRows, f.planeCols, f.flaggedCells);
        QVERIFY(test::showExposed(w));
        w.fitToWindow();
        QVERIFY(w.zoom() < 0.2);
        const auto [n, at] = nanPixels(w);
        QVERIFY2(n >= 9, qPrintable(QString::number(n)));  // at least 3 x 3 screen pixels
        int64_t row = -1, col = -1;                        // where the NaN is
        QVERIFY(w.elementAt(QPointF(at) + QPointF(0.5, 0.5), &row, &col));
        QVERIFY2(std::abs(row - 1001) <= 16 && std::abs(col - 777) <= 16,
                 qPrintable(QString("%1 %2").arg(row).arg(col)));
        // Without the flagged cells the same picture may lose it (Qt samples one cell in ~7x7).
        w.setImage(f.image, f.planeRows, f.planeCols);
        qInfo("NaN pixels at fit zoom: %d with the flagged cell drawn, %d without", n, nanPixels(w).first);
    }

    void hoverAndClickReportElements() {
        HeatmapWidget w;
        QVERIFY(showPlainImage(w, {408, 208}, 4, 8, Qt::red));  // 4-pixel margin: 8 columns x 4 rows of 50 px
        QCOMPARE(w.zoom(), 50.0);
        int64_t r = -1, c = -1;
        QVERIFY(w.elementAt(QPointF(204, 104), &r, &c));  // the centre of the slice
        QCOMPARE(r, 2);
        QCOMPARE(c, 4);
        QVERIFY(!w.elementAt(QPointF(1, 1), &r, &c));  // the margin is outside

        QSignalSpy hovered(&w, &HeatmapWidget::hovered);
        QSignalSpy clicked(&w, &HeatmapWidget::clicked);
        QTest::mouseMove(&w, QPoint(30, 30));  // element (0, 0)
        QVERIFY(hovered.count() >= 1);
        QCOMPARE(hovered.last().at(0).toLongLong(), 0);
        QCOMPARE(hovered.last().at(1).toLongLong(), 0);
        QTest::mouseClick(&w, Qt::LeftButton, {}, QPoint(380, 180));  // element (3, 7)
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.last().at(0).toLongLong(), 3);
        QCOMPARE(clicked.last().at(1).toLongLong(), 7);
    }

    void zoomAndPanMoveTheView() {
        HeatmapWidget w;
        QVERIFY(showPlainImage(w, {400, 400}, 10, 10, Qt::blue));
        const double z0 = w.zoom();
        QSignalSpy view(&w, &HeatmapWidget::viewChanged);
        QWheelEvent wheel(QPointF(200, 200), w.mapToGlobal(QPointF(200, 200)), {}, QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&w, &wheel);
        QVERIFY(w.zoom() > z0);
        QVERIFY(view.count() >= 1);
        // The element under the cursor stays put while zooming.
        int64_t r, c;
        QVERIFY(w.elementAt(QPointF(200, 200), &r, &c));
        QCOMPARE(r, 5);
        QCOMPARE(c, 5);
        const QPointF before = w.origin();
        QTest::mousePress(&w, Qt::LeftButton, {}, QPoint(200, 200));
        QTest::mouseMove(&w, QPoint(260, 230));
        QTest::mouseRelease(&w, Qt::LeftButton, {}, QPoint(260, 230));
        QVERIFY(w.origin().x() < before.x());  // dragged right: the view moved left
        QVERIFY(w.origin().y() < before.y());
        QTest::keyClick(&w, Qt::Key_F);
        QCOMPARE(w.zoom(), z0);
    }

    // An embedding table [65536, 4096] is 16 times taller than wide: with square cells it
    // would be a strip 5 pixels wide. Its fit stretches the cells to fill the map; zooming keeps
    // the stretch and the element under the cursor; key 1 asks for square cells, and a resize
    // keeps what was asked.
    void aLongThinSliceFillsTheMap() {
        QCOMPARE(fittedView(QSizeF(408, 308), 64, 64).stretch, 1.0);   // a feature map: square
        QCOMPARE(fittedView(QSizeF(408, 308), 256, 64).stretch, 1.0);  // 4:1 still square
        QCOMPARE(fittedView(QSizeF(408, 308), 65536, 4096, true).stretch, 1.0);
        HeatmapWidget w;
        QVERIFY(showPlainImage(w, {408, 308}, 2048, 2048, Qt::red));  // 65536 x 4096 downsampled 32x2
        w.setImage(w.grab().toImage(), 65536, 4096);                  // new shape: fitted again
        const auto redShare = [&w] {
            const QImage shot = w.grab().toImage().convertToFormat(QImage::Format_RGB32);
            int64_t n = 0;
            for (int y = 0; y < shot.height(); ++y)
                for (int x = 0; x < shot.width(); ++x)
                    n += qRed(shot.pixel(x, y)) > 200 && qGreen(shot.pixel(x, y)) < 60;
            return double(n) / double(shot.width() * shot.height());
        };
        QImage red(2048, 2048, QImage::Format_RGB32);
        red.fill(Qt::red);
        w.setImage(red, 65536, 4096);
        QCOMPARE(w.zoom(), 400.0 / 4096);
        QCOMPARE(w.stretch(), (300.0 / 65536) / (400.0 / 4096));
        QVERIFY2(redShare() > 0.9, qPrintable(QString::number(redShare())));
        int64_t r = -1, c = -1;
        QVERIFY(w.elementAt(QPointF(403.999, 303.999), &r, &c));  // the bottom-right corner inside the margin
        QCOMPARE(r, 65535);
        QCOMPARE(c, 4095);
        QVERIFY(w.elementAt(QPointF(204, 154), &r, &c));
        QCOMPARE(r, 32768);
        QCOMPARE(c, 2048);
        w.zoomBy(2, QPointF(100, 80));
        QCOMPARE(w.stretch(), (300.0 / 65536) / (400.0 / 4096));
        QVERIFY(w.elementAt(QPointF(204, 154), &r, &c));
        const double rowsPerPixel = 65536.0 / 300;  // the row under y = 80 stays there, rows are twice as tall
        QVERIFY2(std::abs(double(r) - (76 * rowsPerPixel + 74 * rowsPerPixel / 2)) <= 1,
                 qPrintable(QString::number(r)));
        QTest::keyClick(&w, Qt::Key_1);
        QCOMPARE(w.stretch(), 1.0);
        QCOMPARE(w.zoom(), 300.0 / 65536);
        QVERIFY2(redShare() < 0.05, qPrintable(QString::number(redShare())));
        w.resize(508, 308);
        QCOMPARE(w.stretch(), 1.0);
        QTest::keyClick(&w, Qt::Key_F);
        QCOMPARE(w.zoom(), 500.0 / 4096);
    }

    void rangeHandlesEmitTheNewRange() {
        RangeHistogramWidget h;
        h.resize(420, 120);
        const view::ValueScale scale(view::ScaleKind::Linear, {-1, 1});
        const view::ValueHistogram hist = view::valueHistogram({-1, -0.5, 0, 0.5, 1}, scale, 10);
        h.setHistogram(hist, scale, scale, view::Colormap::CoolWarm);
        QVERIFY(test::showExposed(h));
        QSignalSpy edited(&h, &RangeHistogramWidget::rangeEdited);
        // The low handle sits at the plot's left edge (x = 8); drag it to the middle.
        QTest::mousePress(&h, Qt::LeftButton, {}, QPoint(9, 40));
        QTest::mouseMove(&h, QPoint(210, 40));
        QTest::mouseRelease(&h, Qt::LeftButton, {}, QPoint(210, 40));
        QCOMPARE(edited.count(), 1);
        QVERIFY(std::fabs(edited.last().at(0).toDouble()) < 0.05);
        QCOMPARE(edited.last().at(1).toDouble(), 1.0);
    }

    void displayFramesKeepExtremesAndCountOverlays() {
        // A 3000 x 3000 plane downsampled to at most 1000 cells per axis keeps a lone NaN.
        std::vector<double> v(9000000, 0.25);
        v[4500123] = std::nan("");
        auto t = std::make_shared<const HostTensor>(HostTensor::fromDoubles(DType::Float32, {3000, 3000}, v));
        DisplayRequest req;
        req.tensor = t;
        req.maxCells = 1000;
        DisplayFrame f = computeDisplay(req);
        QCOMPARE(f.planeRows, 3000);
        QCOMPARE(f.blockRows, 3);
        QCOMPARE(f.image.width(), 1000);
        int magenta = 0;
        for (int y = 0; y < f.image.height(); ++y)
            for (int x = 0; x < f.image.width(); ++x) magenta += f.image.pixel(x, y) == view::kNaNColor.argb() ? 1 : 0;
        QCOMPARE(magenta, 1);
        QCOMPARE(f.tensorStats.nanCount, 1);
        // Beyond tolerance needs both errors above their tolerances: computed from the output
        // and its reference slice by slice (errors 0 | 2, 0.5 | 1, 1e-6 | 1e-9, 2.5e-10).
        auto small =
            std::make_shared<const HostTensor>(HostTensor::fromDoubles(DType::Float64, {2, 2}, {1, 2, 1e6 + 1, 4}));
        auto ref =
            std::make_shared<const HostTensor>(HostTensor::fromDoubles(DType::Float64, {2, 2}, {1, 4, 1e6, 4 + 1e-9}));
        DisplayRequest r2;
        r2.tensor = small;
        r2.reference = ref;
        r2.outputDtype = DType::Float64;
        r2.settings.relTolerance = 1e-3;
        r2.settings.absTolerance = 1e-6;
        QCOMPARE(computeDisplay(r2).beyondCount, 1);
        DisplayRequest relMap = r2;  // the relative-error map of the pair
        relMap.content = view::SliceContent::RelError;
        relMap.settings.showBeyond = false;
        const DisplayFrame rf = computeDisplay(relMap);
        QVERIFY(std::fabs(rf.sliceStats.max - 2 / (4 + metrics::kRelativeErrorGuard)) < 1e-12);
        QCOMPARE(rf.tensorStats.count, int64_t{0});  // error maps have no whole-tensor pass
        QCOMPARE(rf.beyondCount, int64_t{-1});
        r2.fixedRange = view::ValueRange{0, 100};
        QCOMPARE(computeDisplay(r2).scale.range().hi, 100.0);
    }
};

QTEST_MAIN(TestHeatmap)
#include "test_heatmap.moc"
