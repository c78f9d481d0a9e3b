// The window stays on the screen: a restored geometry is clamped to the available screen, and
// long texts in the tensor view never raise its minimum width (the window's).
#include <QLabel>
#include <QtTest>

#include "session/debug_context.h"
#include "views/tensor_view_panel.h"
#include "window_geometry.h"

using namespace opscope::gui;

class TestWindowGeometry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void restoredGeometryIsClampedToTheScreen() {
        const QRect screen(0, 0, 1600, 1000);
        QCOMPARE(clampedToScreen(QRect(100, 50, 800, 600), screen), QRect(100, 50, 800, 600));     // fits: kept
        QCOMPARE(clampedToScreen(QRect(0, 0, 3840, 2160), screen), QRect(0, 0, 1600, 1000));       // shrunk
        QCOMPARE(clampedToScreen(QRect(1500, 900, 800, 600), screen), QRect(800, 400, 800, 600));  // moved in
        QCOMPARE(clampedToScreen(QRect(-3000, -50, 500, 400), screen), QRect(0, 0, 500, 400));
        const QRect second(1600, 0, 1280, 1024);  // a screen right of the first
        QCOMPARE(clampedToScreen(QRect(1700, 10, 2000, 900), second), QRect(1600, 10, 1280, 900));
        QCOMPARE(clampedToScreen(QRect(5, 5, 10, 10), QRect()), QRect(5, 5, 10, 10));  // no screen: as given
    }

    void longLabelsNeverWidenTheTensorView() {
        DebugContext ctx;
        TensorViewPanel panel(&ctx);
        panel.show();
        const int before = panel.minimumSizeHint().width();
        const QString longText = QString("slice 32768 × 4096 · downsampled 16×2 (extremes kept) ").repeated(40);
        // The panel's own labels that show data: the slice note, the readout and the statistics.
        int dataLabels = 0;
        for (QLabel* label : panel.findChildren<QLabel*>(QString(), Qt::FindDirectChildrenOnly))
            if (label->text() != "Tensor:") {
                label->setText(longText);
                ++dataLabels;
            }
        QCOMPARE(dataLabels, 3);
        QCoreApplication::processEvents();
        QVERIFY2(panel.minimumSizeHint().width() <= before + 8,
                 qPrintable(QString("minimum width %1 -> %2").arg(before).arg(panel.minimumSizeHint().width())));
        QVERIFY(panel.minimumSizeHint().width() < 1000);
    }
};

QTEST_MAIN(TestWindowGeometry)
#include "test_window_geometry.moc"
