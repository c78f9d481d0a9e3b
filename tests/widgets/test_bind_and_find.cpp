// Issue 15 §3: bind in one gesture ("Bind to" menu, double-click on an empty slot, attributes
// prefilled from the bound shapes), find and copy (the tree's filter box, "Copy path"),
// arrow keys in the case list, full names in the case list and metrics, the Call form that
// never scrolls sideways, and chart axes without elided labels.
#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtTest>

#include "models/h5_tree_filter_model.h"
#include "models/h5_tree_model.h"
#include "models/metrics_table_model.h"
#include "opscope/h5/tensor_io.h"
#include "views/argument_form.h"
#include "views/chart_axes.h"
#include "views/charts_panel.h"
#include "views/file_browser_panel.h"
#include "views/metrics_panel.h"
#include "views/vertical_scroll_area.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

namespace {

// Three GroupNorm cases and a checkpoint-like group of loose datasets.
QString writeCheckpoint(const QString& dir) {
    const QString path = QDir(dir).filePath("checkpoint.h5");
    cases::writeCaseFile(path.toStdString(),
                         {test::groupNormCase("/cases/a"), test::groupNormCase("/cases/b"),
                          test::groupNormCase("/cases/c_with_a_long_name_that_does_not_fit_in_the_column")});
    h5::File f = h5::File::openReadWrite(path.toStdString());
    h5::writeTensor(f, "/ckpt/embedding", test::ramp(DType::Float32, {64, 32}, 1.0, 0.0));
    h5::writeTensor(f, "/ckpt/layers/0/w", test::ramp(DType::Float16, {4, 8}, 1.0, 0.0));
    h5::writeTensor(f, "/ckpt/layers/0/x", test::ramp(DType::Float32, {2, 6, 5}, 1.0, 0.0));
    h5::writeTensor(f, "/ckpt/conv_in", test::ramp(DType::Float32, {1, 2, 5, 5}, 1.0, 0.0));
    h5::writeTensor(f, "/ckpt/step", HostTensor::fromDoubles(DType::Int64, {3}, {1, 2, 3}));
    return path;
}

// Paths of the datasets the view shows (every group expanded).
QStringList visibleDatasets(QTreeView* view) {
    QStringList out;
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        for (int r = 0; r < view->model()->rowCount(parent); ++r) {
            const QModelIndex i = view->model()->index(r, 0, parent);
            if (i.data(H5TreeModel::IsDatasetRole).toBool()) out << i.data(H5TreeModel::PathRole).toString();
            walk(i);
        }
    };
    walk({});
    out.sort();
    return out;
}

QModelIndex treeIndex(FileBrowserPanel& panel, const QString& path) {
    QTreeView* view = panel.treeView();
    std::function<QModelIndex(const QModelIndex&)> find = [&](const QModelIndex& parent) -> QModelIndex {
        if (view->model()->canFetchMore(parent)) view->model()->fetchMore(parent);
        for (int r = 0; r < view->model()->rowCount(parent); ++r) {
            const QModelIndex i = view->model()->index(r, 0, parent);
            if (i.data(H5TreeModel::PathRole).toString() == path) return i;
            if (path.startsWith(i.data(H5TreeModel::PathRole).toString() + "/")) return find(i);
        }
        return {};
    };
    return find({});
}

// Every visible text of a chart: axis labels and titles, the chart's title, the legend.
QStringList chartTexts(QChartView* view) {
    QStringList labels;
    for (QGraphicsItem* item : view->scene()->items()) {
        if (!item->isVisible()) continue;
        if (auto* t = dynamic_cast<QGraphicsTextItem*>(item)) labels << t->toPlainText();
        if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item)) labels << t->text();
    }
    return labels;
}

bool elided(const QString& label) {
    return label.trimmed() == ":" || label.contains(QChar(0x2026)) || label.contains("...");
}

}  // namespace

class TestBindAndFind : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { file_ = writeCheckpoint(dir_.path()); }

    void filterMatchesNamePathDtypeAndShape() {
        DebugContext ctx;
        FileBrowserPanel panel(&ctx);
        QVERIFY(ctx.openFile(file_));
        QAbstractItemModelTester tester(panel.treeView()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto shown = [&](const QString& query) {
            panel.filterBox()->setText(query);
            return visibleDatasets(panel.treeView());
        };
        QCOMPARE(shown("ckpt f32"), (QStringList{"/ckpt/conv_in", "/ckpt/embedding", "/ckpt/layers/0/x"}));
        QVERIFY(shown("f32").contains("/cases/a/inputs/gradOut"));
        QCOMPARE(shown("float16"), QStringList{"/ckpt/layers/0/w"});
        QCOMPARE(shown("fp16"), QStringList{"/ckpt/layers/0/w"});
        QCOMPARE(shown("[64, 32]"), QStringList{"/ckpt/embedding"});
        QCOMPARE(shown("[64,32]"), QStringList{"/ckpt/embedding"});
        QCOMPARE(shown("8"), QStringList{"/ckpt/layers/0/w"});           // a dimension of that size
        QCOMPARE(shown("layers f32"), QStringList{"/ckpt/layers/0/x"});  // every term must match
        QCOMPARE(shown("EMBED"), QStringList{"/ckpt/embedding"});
        QCOMPARE(shown("int64"), QStringList{"/ckpt/step"});
        QCOMPARE(shown("nothing-like-this"), QStringList{});
        const QStringList all = shown("");
        QVERIFY(all.contains("/ckpt/embedding"));
        QVERIFY(all.contains("/cases/a/inputs/gradOut"));
        QVERIFY(panel.filterBox()->toolTip().contains("[32768, 4096]"));  // the syntax is documented
    }

    void bindMenuListsArgumentsWithMismatchesAndBinds() {
        DebugContext ctx;
        FileBrowserPanel panel(&ctx);
        QVERIFY(ctx.openFile(file_));
        {
            QMenu menu;
            panel.fillTreeMenu(&menu, treeIndex(panel, "/ckpt/embedding"));
            QVERIFY(!menu.actions().isEmpty());
            QVERIFY(!menu.actions()[0]->isEnabled());  // no operator chosen yet
        }
        QVERIFY(ctx.setOperator("aclnnRmsNormGrad"));
        QMenu menu;
        panel.fillTreeMenu(&menu, treeIndex(panel, "/ckpt/embedding"));
        for (const char* arg : {"bindTo_dy", "bindTo_x", "bindTo_rstd"})
            QVERIFY(test::menuAction(menu, arg)->isEnabled());
        test::menuAction(menu, "bindTo_x")->trigger();
        QVERIFY(QTest::qWaitFor([&] { return ctx.arguments().tensors.count("x") == 1; }, 10000));
        QCOMPARE(ctx.arguments().tensors.at("x").origin, std::string("/ckpt/embedding"));

        QMenu other;
        panel.fillTreeMenu(&other, treeIndex(panel, "/ckpt/layers/0/w"));
        QAction* dy = test::menuAction(other, "bindTo_dy");
        QVERIFY(dy->isEnabled());  // disagreeing with another bound tensor is a warning: x may be next
        QCOMPARE(dy->text(), QString("dy — ⚠ shape [4, 8] differs from x [64, 32]"));
        QVERIFY(!test::menuAction(other, "bindTo_rstd")->isEnabled());  // never: rstd is float32
        QCOMPARE(test::menuAction(other, "bindTo_rstd")->text(), QString("rstd — float16, expects float32"));
        QMenu ints;
        panel.fillTreeMenu(&ints, treeIndex(panel, "/ckpt/step"));
        QCOMPARE(test::menuAction(ints, "bindTo_gamma")->text(), QString("gamma — int64, expects a floating dtype"));

        // Groups have no "Bind to"; every row has "Copy path".
        QMenu group;
        panel.fillTreeMenu(&group, treeIndex(panel, "/ckpt/layers"));
        QVERIFY(!test::menuAction(group, "bindTo_x"));
        test::menuAction(group, "copyPath")->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), QString("/ckpt/layers"));
        QVERIFY(test::waitIdle(ctx));
    }

    void bindingPrefillsWhatFollowsFromShapesUnlessEdited() {
        DebugContext ctx;
        ArgumentForm form(&ctx);
        QVERIFY(ctx.openFile(file_));
        QVERIFY(ctx.setOperator("aclnnGroupNormBackward"));
        ctx.setAttribute("HxW", int64_t{99});          // the user's own value
        ctx.bindDataset("input", "/ckpt/layers/0/x");  // [2, 6, 5]
        QVERIFY(QTest::qWaitFor([&] { return ctx.arguments().tensors.count("input") == 1; }, 10000));
        const auto& attrs = ctx.arguments().attributes;
        QCOMPARE(std::get<int64_t>(attrs.at("N")), int64_t{2});
        QCOMPARE(std::get<int64_t>(attrs.at("C")), int64_t{6});
        QCOMPARE(std::get<int64_t>(attrs.at("HxW")), int64_t{99});
        QCOMPARE(qobject_cast<QLineEdit*>(form.editorFor("C"))->text(), QString("6"));
        QVERIFY(form.errorFor("group").isEmpty());
        ctx.setAttribute("group", int64_t{4});
        QCOMPARE(form.errorFor("group"), QString("⚠ group (4) does not divide C (6)"));
        ctx.setAttribute("group", int64_t{3});
        QVERIFY(form.errorFor("group").isEmpty());

        QVERIFY(ctx.setOperator("aclnnConvolutionBackward"));
        ctx.bindDataset("input", "/ckpt/conv_in");  // [1, 2, 5, 5]: two spatial dimensions
        QVERIFY(QTest::qWaitFor([&] { return ctx.arguments().tensors.count("input") == 1; }, 10000));
        for (const char* name : {"stride", "dilation"})
            QCOMPARE(std::get<std::vector<int64_t>>(ctx.arguments().attributes.at(name)), (std::vector<int64_t>{1, 1}));
        QCOMPARE(std::get<std::vector<int64_t>>(ctx.arguments().attributes.at("padding")),
                 (std::vector<int64_t>{0, 0}));
        QCOMPARE(std::get<int64_t>(ctx.arguments().attributes.at("groups")), int64_t{1});
        QCOMPARE(qobject_cast<QLineEdit*>(form.editorFor("stride"))->text(), QString("1, 1"));
        QVERIFY(test::waitIdle(ctx));
    }

    void doubleClickOnAnEmptySlotBindsTheTreeSelection() {
        DebugContext ctx;
        FileBrowserPanel panel(&ctx);
        ArgumentForm form(&ctx);
        QVERIFY(ctx.openFile(file_));
        QVERIFY(ctx.setOperator("aclnnRmsNormGrad"));
        form.show();
        QSignalSpy status(&ctx, &DebugContext::statusMessage);
        QTest::mouseDClick(form.editorFor("dy"), Qt::LeftButton);
        QVERIFY(status.count() == 1 && status[0][0].toString().startsWith("Select a dataset"));
        QVERIFY(ctx.arguments().tensors.empty());
        panel.treeView()->setCurrentIndex(treeIndex(panel, "/ckpt/embedding"));
        QCOMPARE(ctx.selectedDataset(), QString("/ckpt/embedding"));
        QTest::mouseDClick(form.editorFor("dy"), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return ctx.arguments().tensors.count("dy") == 1; }, 10000));
        QCOMPARE(ctx.arguments().tensors.at("dy").origin, std::string("/ckpt/embedding"));
        panel.treeView()->setCurrentIndex(treeIndex(panel, "/ckpt/layers"));
        QCOMPARE(ctx.selectedDataset(), QString());  // a group is nothing to bind
        QVERIFY(test::waitIdle(ctx));
    }

    void arrowKeysLoadTheCaseTheSelectionRestsOn() {
        DebugContext ctx;
        FileBrowserPanel panel(&ctx);
        QVERIFY(test::showExposed(panel));
        QVERIFY(ctx.openFile(file_));
        QTableView* cases = panel.caseView();
        const QRect first = cases->visualRect(cases->model()->index(0, 0));
        QTest::mouseClick(cases->viewport(), Qt::LeftButton, {}, first.center());
        QVERIFY(QTest::qWaitFor([&] { return ctx.isPrepared(); }, 20000));
        QCOMPARE(QString::fromStdString(ctx.currentCase()->path), QString("/cases/a"));
        QVERIFY(test::waitIdle(ctx));

        QSignalSpy loaded(&ctx, &DebugContext::caseLoaded);
        cases->setFocus();
        QTest::keyClick(cases, Qt::Key_Down);
        QVERIFY(!ctx.currentCase());  // the old case's form and verdict are gone at once
        QVERIFY(!ctx.isPrepared());
        QTest::qWait(FileBrowserPanel::kCaseSettleMs / 3);
        QTest::keyClick(cases, Qt::Key_Down);  // still moving: nothing loads yet
        QCOMPARE(loaded.count(), 0);
        QVERIFY(QTest::qWaitFor([&] { return ctx.isPrepared(); }, 20000));
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded[0][0].toString(), cases->currentIndex().data(Qt::ToolTipRole).toString().section('\n', 0, 0));
        QVERIFY(QString::fromStdString(ctx.currentCase()->path).startsWith("/cases/c_with"));
    }

    void onlyTheLatestCaseRequestLands() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        QSignalSpy loaded(&ctx, &DebugContext::caseLoaded);
        ctx.loadCase("/cases/a");
        QVERIFY(test::loadPrepared(ctx, "/cases/b"));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded[0][0].toString(), QString("/cases/b"));
    }

    void caseListAndMetricsShowFullNames() {
        DebugContext ctx;
        FileBrowserPanel panel(&ctx);
        MetricsPanel metrics(&ctx);
        panel.resize(360, 600);
        panel.show();
        QVERIFY(ctx.openFile(file_));
        QTableView* cases = panel.caseView();
        QCOMPARE(cases->textElideMode(), Qt::ElideRight);
        QVERIFY(cases->columnWidth(0) <= 320);
        const QModelIndex longRow = cases->model()->index(2, 0);
        QVERIFY(longRow.data(Qt::ToolTipRole)
                    .toString()
                    .startsWith("/cases/c_with_a_long_name_that_does_not_fit_in_the_column"));
        QVERIFY(runToAnalysis(ctx, "/cases/a"));
        const QAbstractItemModel* m = metrics.model();
        for (int c = 0; c < m->columnCount(); ++c)
            QVERIFY(m->headerData(c, Qt::Horizontal, Qt::ToolTipRole)
                        .toString()
                        .startsWith(m->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().section('\n', 0, 0)));
        QVERIFY(!m->headerData(m->rowCount() - 1, Qt::Vertical, Qt::ToolTipRole).toString().isEmpty());
    }

    void callFormNeverScrollsSideways() {
        DebugContext ctx;
        auto* form = new ArgumentForm(&ctx);
        VerticalScrollArea area(form);
        area.resize(200, 260);  // far narrower than the form would like
        area.show();
        area.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&area));
        QVERIFY(ctx.openFile(file_));
        QVERIFY(ctx.setOperator("aclnnConvolutionBackward"));
        QTest::qWait(50);  // the new fields' layout, then the area fits it
        QCOMPARE(area.horizontalScrollBar()->maximum(), 0);
        QCOMPARE(form->width(), area.viewport()->width());
        QVERIFY(form->height() >= form->minimumSizeHint().height());  // nothing cut off at the bottom
        form->editorFor("stride")->setFocus();
        int scrolledDown = 0;
        for (int i = 0; i < 20; ++i) {
            QTest::keyClick(area.focusWidget(), Qt::Key_Tab);
            QCOMPARE(area.horizontalScrollBar()->value(), 0);
            QWidget* f = area.focusWidget();
            if (!f || !form->isAncestorOf(f)) continue;
            const int y = f->mapTo(area.viewport(), QPoint(0, 0)).y();
            QVERIFY2(y + f->height() > 0 && y < area.viewport()->height(), "the focused field is on screen");
            scrolledDown = std::max(scrolledDown, area.verticalScrollBar()->value());
        }
        QVERIFY(scrolledDown > 0);  // Tab did move down the form
    }

    void chartAxesShowNoElidedLabels() {
        DebugContext ctx;
        ChartsPanel charts(&ctx);
        QVERIFY(test::showExposed(charts, {420, 300}));  // the Charts dock's minimum width
        QVERIFY(ctx.openFile(file_));
        QVERIFY(runToAnalysis(ctx, "/cases/a"));
        QVERIFY(QTest::qWaitFor([&] { return charts.seriesCounts()[1] == 2; }, 10000));
        for (int tab = 0; tab < charts.tabs()->count(); ++tab) {
            charts.tabs()->setCurrentIndex(tab);
            auto* view = qobject_cast<QChartView*>(charts.tabs()->widget(tab));
            QVERIFY(view);
            QTest::qWait(50);
            const QStringList labels = chartTexts(view);
            QVERIFY(!labels.isEmpty());
            for (const QString& l : labels)
                QVERIFY2(!elided(l), qPrintable(QString("tab %1 label '%2'").arg(tab).arg(l)));
        }
    }

    // Errors from 1e-30 to 10 (a tensor with exact zeros and overflows): a label per decade
    // would be elided; one every few decades stays whole and numeric.
    void logAxesOverManyDecadesKeepWholeLabels() {
        QChartView view(new QChart());
        view.resize(420, 300);
        auto* series = new QLineSeries();
        series->append(1e-30, 1e-20);
        series->append(10, 1e5);
        view.chart()->addSeries(series);
        QLogValueAxis* x = logAxis("error", 1e-30, 10);
        QLogValueAxis* y = logAxis("rel. error", 1e-20, 1e5);
        view.chart()->addAxis(x, Qt::AlignBottom);
        view.chart()->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        QVERIFY(test::showExposed(view));
        QTest::qWait(50);
        const QStringList labels = chartTexts(&view);
        int numeric = 0;
        for (const QString& l : labels) {
            QVERIFY2(!elided(l), qPrintable(l));
            numeric += QRegularExpression("^1e[-+]\\d+$").match(l).hasMatch() ? 1 : 0;
        }
        QVERIFY2(numeric >= 4 && numeric <= 2 * (kMaxLogLabels + 1), qPrintable(labels.join(" | ")));
    }

private:
    static bool runToAnalysis(DebugContext& ctx, const QString& casePath) {
        if (!test::loadPrepared(ctx, casePath)) return false;
        ctx.continueRun();
        return QTest::qWaitFor([&] { return ctx.analysis() != nullptr; }, 20000) && test::waitIdle(ctx);
    }

    QTemporaryDir dir_;
    QString file_;
};

QTEST_MAIN(TestBindAndFind)
#include "test_bind_and_find.moc"
