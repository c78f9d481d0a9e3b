// The window stays on the screen: a restored geometry is clamped to the available screen, and
// long texts in the tensor view never raise its minimum width (the window's).
#include <QLabel>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QtTest>

#include "session/debug_context.h"
#include "views/tensor_view_panel.h"
#include "views/panel_setup.h"
#include "views/vertical_scroll_area.h"
#include "widget_test_support.h"
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
        // The panel's own labels that show data: the slice note, the readout and the statistics
        // (in the area that scrolls them when the panel is short).
        QList<QLabel*> labels = panel.findChildren<QLabel*>(QString(), Qt::FindDirectChildrenOnly);
        const auto* statsArea = panel.findChild<VerticalScrollArea*>(QString(), Qt::FindDirectChildrenOnly);
        QVERIFY(statsArea);
        labels += statsArea->widget()->findChildren<QLabel*>();
        int dataLabels = 0;
        for (QLabel* label : labels)
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

    // Statistics under a map take the height of their text when the panel has room, and
    // scroll (not clip) when it is short, so the line below them stays in sight.
    void statisticsScrollWhenThePanelIsShort() {
        QWidget panel;
        auto* layout = new QVBoxLayout(&panel);
        auto* map = new QWidget(&panel);
        map->setMinimumHeight(100);
        map->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
        layout->addWidget(map, 1);
        auto* stats = new QLabel(QString("A: min -6.658789 · max 6.817731 · mean 0.0006060804<br>").repeated(6));
        QWidget* area = scrollingText(stats, &panel);
        layout->addWidget(area);
        auto* readout = new QLabel("the value under the mouse", &panel);
        layout->addWidget(readout);
        panel.resize(500, 600);
        QVERIFY(test::showExposed(panel));
        QTRY_VERIFY(area->height() >= stats->heightForWidth(area->width()));
        QVERIFY2(
            area->height() <= stats->heightForWidth(area->width()) + 8,  // the map has the rest
            qPrintable(QString("%1 for text of %2").arg(area->height()).arg(stats->heightForWidth(area->width()))));
        auto* scroll = qobject_cast<VerticalScrollArea*>(area);
        QCOMPARE(scroll->verticalScrollBar()->maximum(), 0);
        panel.resize(500, 200);
        QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);
        QVERIFY(area->height() >= 2 * stats->fontMetrics().lineSpacing());
        QVERIFY2(readout->geometry().bottom() < panel.height(), qPrintable(QString::number(readout->y())));
    }
};

QTEST_MAIN(TestWindowGeometry)
#include "test_window_geometry.moc"
