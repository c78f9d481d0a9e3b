// The panels over a live context: the tensor view (tensors of the plan, reference and error
// maps, slices, A/B, hover readout, click to pick, PNG export), the argument form (generated
// from the schema, errors beside the argument at fault, edits and drops reaching the
// context) and the charts.
#include <QComboBox>
#include <QDropEvent>
#include <QLineEdit>
#include <QMimeData>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "models/h5_tree_model.h"
#include "views/argument_form.h"
#include "views/charts_panel.h"
#include "views/heatmap_widget.h"
#include "views/metrics_panel.h"
#include "views/tensor_slot_widget.h"
#include "views/tensor_view_panel.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

class TestViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { file_ = test::writeCaseFile(dir_.path()); }

    // An output before the step that writes it holds no result: no beyond-tolerance count (it
    // showed "784 beyond tolerance" on garbage).
    void unwrittenOutputHasNoBeyondToleranceCount() {
        DebugContext ctx;
        TensorViewPanel view(&ctx);
        QVERIFY(test::showExposed(view, {900, 700}));
        QVERIFY(ctx.openFile(file_));
        ctx.loadCase("/gn/basic");
        QVERIFY(QTest::qWaitFor([&] { return ctx.isPrepared() && ctx.baseline(); }, 20000));
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(view.showTensor({TensorKey::Source::Slot, "gradInput"}));
        QVERIFY(QTest::qWaitFor([&] { return view.frame().valid() && !view.isLoading(); }, 20000));
        QCOMPARE(view.frame().beyondCount, -1);
    }

    void tensorViewShowsEveryTensorOfThePlan() {
        DebugContext ctx;
        TensorViewPanel view(&ctx);
        QVERIFY(test::showExposed(view, {900, 700}));
        runBasic(ctx);
        QSignalSpy frames(&view, &TensorViewPanel::frameShown);
        QVERIFY(QTest::qWaitFor([&] { return view.frame().valid() && !view.isLoading(); }, 20000));
        const QStringList labels = view.tensorLabels();
        QVERIFY(labels.filter("gradInput — output").size() == 1);
        QVERIFY(labels.filter("gradInput — reference").size() == 1);
        QVERIFY(labels.filter("relative error").size() == 3);
        QVERIFY(labels.filter("— input").size() >= 4);
        QCOMPARE(QString::fromStdString(view.currentKey().name), QString("gradInput"));
        // [2, 4, 2, 3]: the last two axes, 2 x 3.
        QCOMPARE(view.frame().planeRows, 2);
        QCOMPARE(view.frame().planeCols, 3);
        QCOMPARE(view.frame().beyondCount, 0);  // fp32 against float64: nothing beyond 1e-3

        // Any axis pair with the others fixed.
        DisplaySettings s = view.settings();
        s.slice.rowAxis = 0;
        s.slice.colAxis = 1;
        s.slice.index = {0, 0, 1, 2};
        frames.clear();
        view.setSettings(s);
        QVERIFY(frames.wait(10000));
        QCOMPARE(view.frame().planeRows, 2);
        QCOMPARE(view.frame().planeCols, 4);

        // Hovering shows index, value, reference and errors.
        HeatmapWidget* h = view.heatmap();
        QTest::mouseMove(h, h->rect().center());
        QVERIFY(view.readout().contains("reference"));
        QVERIFY(view.readout().contains("rel. error"));
        // Clicking picks the element for its history.
        QTest::mouseClick(h, Qt::LeftButton, {}, h->rect().center());
        QVERIFY(ctx.pick().valid());
        QCOMPARE(QString::fromStdString(ctx.pick().slot), QString("gradInput"));
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(!ctx.history().empty());

        // The error maps, with sequential colours.
        frames.clear();
        QVERIFY(view.showTensor({TensorKey::Source::RelError, "gradInput"}));
        QVERIFY(frames.wait(10000));
        QCOMPARE(view.settings().colormap, view::Colormap::Magma);
        QVERIFY(view.frame().tensorStats.min >= 0);

        // A/B: the reference with the output's range.
        QVERIFY(view.showTensor({TensorKey::Source::Slot, "gradInput"}));
        QVERIFY(frames.wait(10000));
        const view::ValueRange outputRange = view.frame().scale.range();
        frames.clear();
        view.setAbMode(true);
        QVERIFY(frames.wait(10000));
        QCOMPARE(view.frame().scale.range(), outputRange);
        view.setAbMode(false);

        const QString png = dir_.filePath("view.png");
        QVERIFY(view.exportPng(png));
        QVERIFY(QImage(png).width() > 100);
        QVERIFY(!view.showTensor({TensorKey::Source::Slot, "no_such_slot"}));
    }

    // The readout of the element under the pointer (or the picked one) follows the tensors: an
    // output picked before the step that writes it showed "output 0" and a relative error of 1
    // beside the fresh reference after the run, until the pointer moved; before that step it
    // judged the slot's unwritten contents.
    void readoutFollowsTheTensorsItDescribes() {
        DebugContext ctx;
        TensorViewPanel view(&ctx);
        QVERIFY(test::showExposed(view, {900, 700}));
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        QVERIFY(QTest::qWaitFor([&] { return ctx.baseline() != nullptr; }, 20000));
        QSignalSpy frames(&view, &TensorViewPanel::frameShown);
        QVERIFY(view.showTensor({TensorKey::Source::Slot, "gradInput"}));
        QVERIFY(QTest::qWaitFor([&] { return view.frame().valid() && !view.isLoading(); }, 20000));
        HeatmapWidget* h = view.heatmap();
        QTest::mouseMove(h, h->rect().center());
        QTest::mouseClick(h, Qt::LeftButton, {}, h->rect().center());
        const QString before = view.readout();
        // Not written yet: the reference alone, no error against the slot's stale contents.
        QVERIFY2(before.contains("not written yet at this step · reference"), qPrintable(before));
        QVERIFY2(!before.contains("rel. error"), qPrintable(before));
        QVERIFY(test::waitIdle(ctx));  // the pick's history
        frames.clear();
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(frames.wait(10000) || frames.count() > 0);
        QVERIFY(QTest::qWaitFor([&] { return !view.isLoading(); }, 20000));
        const QString after = view.readout();
        QVERIFY2(!after.contains("not written yet"), qPrintable(after));
        QVERIFY2(after.contains("rel. error"), qPrintable(after));
        QVERIFY2(!after.contains("rel. error 1<") && !after.endsWith("rel. error 1"), qPrintable(after));
        // With the pointer gone, the picked element, as it is now.
        QTest::mouseMove(&view, QPoint(1, 1));
        QMetaObject::invokeMethod(h, "hovered", Q_ARG(qint64, -1), Q_ARG(qint64, -1));
        QVERIFY2(view.readout().startsWith("Picked: "), qPrintable(view.readout()));
        QVERIFY2(view.readout().contains("rel. error"), qPrintable(view.readout()));
    }

    void formIsGeneratedAndShowsErrorsBesideTheArgument() {
        DebugContext ctx;
        ArgumentForm form(&ctx);
        form.show();
        QVERIFY(ctx.openFile(file_));
        QSignalSpy failed(&ctx, &DebugContext::prepareFailed);
        ctx.loadCase("/gn/bad_group");
        QVERIFY(failed.wait(20000));
        const QString arg = failed.last().at(0).toString();
        QVERIFY(!form.errorFor(arg.toStdString()).isEmpty());
        QVERIFY(form.errorFor(arg.toStdString()).contains("161002"));
        // Fix it in the form: the edit reaches the context, and Prepare succeeds.
        auto* group = qobject_cast<QLineEdit*>(form.editorFor("group"));
        QVERIFY(group);
        QCOMPARE(group->text(), QString("3"));
        group->setText("2");
        Q_EMIT group->editingFinished();
        QCOMPARE(std::get<int64_t>(ctx.arguments().attributes.at("group")), int64_t{2});
        ctx.prepare();
        QVERIFY(QTest::qWaitFor([&] { return ctx.isPrepared(); }, 20000));
        QVERIFY(form.errorFor(arg.toStdString()).isEmpty());
        QVERIFY(test::waitIdle(ctx));

        // A dataset dropped on a tensor argument is read and bound.
        auto* slot = qobject_cast<TensorSlotWidget*>(form.editorFor("gamma"));
        QVERIFY(slot);
        QMimeData mime;
        mime.setData(H5TreeModel::kDatasetMime, "/gn/basic/inputs/gamma");
        QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(slot, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QSignalSpy args(&ctx, &DebugContext::argumentsChanged);
        QApplication::sendEvent(slot, &drop);
        QVERIFY(args.wait(10000));
        QCOMPARE(ctx.arguments().tensors.at("gamma").origin, std::string("/gn/basic/inputs/gamma"));
        QVERIFY(!ctx.isPrepared());  // the plan no longer matches the form
        QVERIFY(test::waitIdle(ctx));
    }

    // Closing the form while an attribute editor has focus and an unfinished edit: the editor's
    // editingFinished fires during destruction and must neither reach a half-destroyed form
    // (heap-use-after-free under ASan) nor commit the edit.
    void closingTheFormWithAFocusedEditorCommitsNothing() {
        DebugContext ctx;
        auto form = std::make_unique<ArgumentForm>(&ctx);
        form->show();
        form->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(form.get()));
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        auto* group = qobject_cast<QLineEdit*>(form->editorFor("group"));
        QVERIFY(group);
        group->setFocus();
        QVERIFY(QTest::qWaitFor([&] { return group->hasFocus(); }, 5000));
        group->selectAll();
        QTest::keyClicks(group, "4");
        QSignalSpy args(&ctx, &DebugContext::argumentsChanged);
        form.reset();
        QCOMPARE(args.count(), 0);
        QCOMPARE(std::get<int64_t>(ctx.arguments().attributes.at("group")), int64_t{2});
        QVERIFY(test::waitIdle(ctx));
    }

    void chartsAndMetricsFollowTheAnalysis() {
        DebugContext ctx;
        ChartsPanel charts(&ctx);
        MetricsPanel metrics(&ctx);
        runBasic(ctx);
        QVERIFY(QTest::qWaitFor([&] { return ctx.analysis() != nullptr; }, 20000));
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(QTest::qWaitFor([&] { return charts.seriesCounts()[1] == 2; }, 10000));  // per axis: max and mean
        const std::vector<int> n = charts.seriesCounts();
        QCOMPARE(n[0], 2);  // absolute and relative histograms
        QCOMPARE(n[2], 1);  // scatter
        QCOMPARE(n[3], 2);  // cumulative shares
        QVERIFY(metrics.verdictText().startsWith("PASS"));
    }

private:
    void runBasic(DebugContext& ctx) {
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
    }

    QTemporaryDir dir_;
    QString file_;
};

QTEST_MAIN(TestViews)
#include "test_views.moc"
