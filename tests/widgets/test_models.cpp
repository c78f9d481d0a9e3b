// Every item model of the debugger under QAbstractItemModelTester through a whole session
// (open, load, prepare, step, run, analysis), plus what each one shows.
#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QTemporaryDir>
#include <QtTest>

#include "models/case_list_model.h"
#include "models/element_history_model.h"
#include "models/h5_tree_model.h"
#include "models/metrics_table_model.h"
#include "models/slot_table_model.h"
#include "models/step_list_model.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

class TestModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { file_ = test::writeCaseFile(dir_.path()); }

    void sessionModelsStayConsistent() {
        DebugContext ctx;
        StepListModel steps(&ctx);
        CaseListModel cases(&ctx);
        MetricsTableModel metrics(&ctx);
        SlotTableModel slots(&ctx);
        ElementHistoryModel history(&ctx);
        QAbstractItemModelTester t1(&steps, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&cases, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(&metrics, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t4(&slots, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t5(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);

        QCOMPARE(steps.rowCount(), 0);
        QVERIFY(ctx.openFile(file_));
        QCOMPARE(cases.rowCount(), 2);
        QCOMPARE(cases.data(cases.index(1, CaseListModel::Operator), Qt::DisplayRole).toString(),
                 QString("aclnnGroupNormBackward"));

        QSignalSpy reset(&steps, &QAbstractItemModel::modelReset);
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        QVERIFY(reset.count() >= 1);
        const int n = steps.rowCount();
        QVERIFY(n >= 2);
        QCOMPARE(steps.columnCount(), int(StepListModel::ColumnCount));
        QVERIFY(steps.data(steps.index(0, StepListModel::Index), Qt::DisplayRole).toString().startsWith("▶"));
        QCOMPARE(steps.data(steps.index(0, StepListModel::Status), Qt::DisplayRole).toString(), QString("next"));
        QCOMPARE(slots.rowCount(), int(ctx.plan().slots.size()));

        // Breakpoints through the check state reach the context.
        QSignalSpy changed(&steps, &QAbstractItemModel::dataChanged);
        QVERIFY(steps.setData(steps.index(1, StepListModel::Break), Qt::Checked, Qt::CheckStateRole));
        QVERIFY(ctx.hasBreakpoint(1));
        QCOMPARE(steps.data(steps.index(1, StepListModel::Break), Qt::CheckStateRole).toInt(), int(Qt::Checked));
        QVERIFY(changed.count() >= 1);
        QVERIFY(steps.setData(steps.index(1, StepListModel::Break), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(!ctx.hasBreakpoint(1));

        ctx.step();
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(steps.data(steps.index(0, StepListModel::Status), Qt::DisplayRole).toString(), QString("done"));
        QVERIFY(!steps.data(steps.index(0, StepListModel::Duration), Qt::DisplayRole).toString().isEmpty());

        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(QTest::qWaitFor([&] { return metrics.columnCount() == 3; }, 20000));
        // Verdict rows first (coloured), then the metrics.
        const QModelIndex verdict = metrics.index(0, 0);
        QCOMPARE(metrics.data(verdict, Qt::DisplayRole).toString(), QString("pass"));
        QVERIFY(metrics.data(verdict, Qt::BackgroundRole).isValid());
        QVERIFY(!metrics.data(verdict, Qt::ToolTipRole).toString().isEmpty());
        QVERIFY(metrics.rowCount() > MetricsTableModel::metricNames().size());
        // Every step that produced an output has a verdict cell.
        bool anyVerdict = false;
        for (int r = 0; r < n; ++r)
            anyVerdict =
                anyVerdict || !steps.data(steps.index(r, StepListModel::Verdict), Qt::DisplayRole).toString().isEmpty();
        QVERIFY(anyVerdict);

        ElementPick pick{"gradInput", "gradInput", {2, 4, 2, 3}, {0, 1, 1, 2}};
        ctx.pickElement(pick);
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(history.rowCount() >= 1);
        double ref = 0;
        QVERIFY(history.referenceValue(&ref));
        QVERIFY(!history.data(history.index(0, ElementHistoryModel::RelError), Qt::DisplayRole).toString().isEmpty());

        ctx.closeFile();
        QCOMPARE(cases.rowCount(), 0);
    }

    void fileTreeIsLazy() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        H5TreeModel tree;
        tree.setFile(ctx.file(), {"/gn/basic"});
        QCOMPARE(tree.rowCount(), 0);  // nothing is listed before a view asks
        QVERIFY(tree.hasChildren());
        QVERIFY(tree.canFetchMore({}));
        tree.fetchMore({});
        QCOMPARE(tree.rowCount(), 1);
        const QModelIndex gn = tree.index(0, 0);
        QCOMPARE(tree.rowCount(gn), 0);  // one level at a time
        QVERIFY(tree.canFetchMore(gn));
    }

    void fileTreeShowsDatasetsAndDragsThem() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        H5TreeModel tree;
        tree.setFile(ctx.file(), {"/gn/basic"});
        // Created after the reset: Qt 6.4's tester fetches inside modelReset before it clears
        // its own "reset in flight" state, which a lazy model cannot avoid.
        QAbstractItemModelTester tester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QModelIndex ds = tree.indexForPath("/gn/basic/inputs/gradOut");
        QVERIFY(ds.isValid());
        QCOMPARE(tree.data(ds.siblingAtColumn(H5TreeModel::Type), Qt::DisplayRole).toString(), QString("float32"));
        QCOMPARE(tree.data(ds.siblingAtColumn(H5TreeModel::Shape), Qt::DisplayRole).toString(),
                 QString("[2, 4, 2, 3]"));
        QVERIFY(tree.flags(ds) & Qt::ItemIsDragEnabled);
        std::unique_ptr<QMimeData> mime(tree.mimeData({ds}));
        QVERIFY(mime);
        QCOMPARE(QString::fromUtf8(mime->data(H5TreeModel::kDatasetMime)), QString("/gn/basic/inputs/gradOut"));
        const QModelIndex c = tree.indexForPath("/gn/basic");
        QVERIFY(tree.data(c, H5TreeModel::IsCaseRole).toBool());
        QVERIFY(!(tree.flags(c) & Qt::ItemIsDragEnabled));
        QVERIFY(!tree.indexForPath("/gn/missing").isValid());
        tree.setFile(nullptr);
        QCOMPARE(tree.rowCount(), 0);
    }

private:
    QTemporaryDir dir_;
    QString file_;
};

QTEST_MAIN(TestModels)
#include "test_models.moc"
