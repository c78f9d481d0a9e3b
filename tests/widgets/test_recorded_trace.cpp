// Traces recorded at level "stats" hold no values to replay, yet their executors, steps,
// timings and per-step statistics are browsable: the Steps panel lists them, and the Timeline
// dock draws every executor's steps.
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window.h"
#include "models/step_list_model.h"
#include "opscope/trace.h"
#include "palette.h"
#include "session/recorded_run.h"
#include "views/step_list_panel.h"
#include "views/timeline_panel.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

class TestRecordedTrace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        const QString cases = test::useTestSettingsAndCaseFile(dir_.path());
        trace_ = dir_.filePath("stats.h5");
        // Two runs of the case, recorded at level stats (statistics, no values).
        auto writer = startTrace(trace_.toStdString(), TraceLevel::Stats, TraceWriteMode::Synchronous);
        for (int i = 0; i < 2; ++i) {
            DebugContext ctx;
            QVERIFY(ctx.openFile(cases));
            QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
            ctx.continueRun();
            QVERIFY(test::waitIdle(ctx));
            QVERIFY(ctx.atEnd());
        }
        stopTrace(writer);
        recorded_ = readTraceFile(trace_.toStdString(), TraceValues::Skip);
        QVERIFY(recorded_.size() >= 2);
    }

    // The pure conversion: every step with what it wrote, its duration and statistics.
    void recordedRunKeepsStepsTimingsAndStatistics() {
        const ExecutorTrace& t = recorded_.front();
        const RecordedRun run = recordedRun(t);
        QCOMPARE(run.plan.op, t.op);
        QCOMPARE(run.plan.steps.size(), t.steps.size());
        QCOMPARE(run.steps.size(), t.steps.size());
        for (std::size_t i = 0; i < t.steps.size(); ++i) {
            QCOMPARE(run.plan.steps[i].name, t.steps[i].name);
            QCOMPARE(run.steps[i].durationUs, t.steps[i].durationUs);
            QVERIFY(run.steps[i].status == StepStatus::Done);
            QCOMPARE(run.plan.steps[i].outputs.size(), t.steps[i].outputs.size());
            for (const TensorRecord& r : t.steps[i].outputTensors) {
                QVERIFY(r.stats.has_value());
                const SlotInfo* slot = run.plan.findSlot(r.name);
                QVERIFY(slot);
                QCOMPARE(slot->shape, r.shape);
            }
            QCOMPARE(run.steps[i].outputs.size(), t.steps[i].outputTensors.size());
        }
        QVERIFY(run.plan.findSlot("gradInput") && run.plan.findSlot("gradInput")->kind == SlotKind::Output);
        QVERIFY(run.plan.findSlot("gradOut") && run.plan.findSlot("gradOut")->kind == SlotKind::Input);
    }

    // Clicking an executor that cannot be replayed lists its steps in the Steps panel.
    void stepsPanelShowsARecordedRunWithoutValues() {
        MainWindow w(nullptr, false);
        QVERIFY(showWithTrace(w));
        DebugContext* ctx = w.context();
        QSignalSpy failed(ctx, &DebugContext::caseLoadFailed);
        ctx->loadCase(QString::fromStdString(traceExecutorPath(1)));
        QVERIFY(QTest::qWaitFor([&] { return ctx->isRecordedOnly(); }, 20000));
        QCOMPARE(failed.count(), 1);  // it cannot be replayed, and says so
        QVERIFY(!ctx->isPrepared());
        QVERIFY(!w.action("step")->isEnabled());
        const ExecutorTrace& t = recorded_[1];
        StepListModel* model = qobject_cast<StepListModel*>(w.stepList()->stepView()->model());
        QVERIFY(model);
        QCOMPARE(model->rowCount(), int(t.steps.size()));
        for (int r = 0; r < model->rowCount(); ++r) {
            QCOMPARE(model->index(r, StepListModel::Name).data().toString(),
                     QString::fromStdString(t.steps[std::size_t(r)].name));
            QCOMPARE(model->index(r, StepListModel::Status).data().toString(), QString("done"));
            QCOMPARE(model->index(r, StepListModel::Duration).data().toString(),
                     QString::number(t.steps[std::size_t(r)].durationUs, 'f', 1));
        }
        // The first step's statistics are in the Min/Max columns.
        const TensorRecord& first = t.steps.front().outputTensors.front();
        QCOMPARE(model->index(0, StepListModel::Max).data().toString(), formatNumber(first.stats->max, 4));

        // Another file clears it.
        ctx->closeFile();
        QVERIFY(!ctx->isRecordedOnly());
        QCOMPARE(model->rowCount(), 0);
    }

    // The Timeline: one row per executor, one bar per step; a click lists that executor's steps.
    void timelineDrawsEveryExecutorAndOpensOne() {
        MainWindow w(nullptr, false);
        QVERIFY(showWithTrace(w));
        TimelinePanel* timeline = w.timeline();
        QVERIFY(QTest::qWaitFor([&] { return timeline->rows().size() == recorded_.size(); }, 20000));
        for (std::size_t i = 0; i < recorded_.size(); ++i) {
            QCOMPARE(timeline->rows()[i].bars.size(), recorded_[i].steps.size());
            QCOMPARE(timeline->rows()[i].bars.front().startUs, 0.0);
        }
        QVERIFY(QTest::qWaitFor([&] { return timeline->isVisible() && timeline->height() > 40; }, 5000));
        // Find the first bar of executor #1 and click it.
        QPoint at;
        for (int x = 0; x < timeline->width() && at.isNull(); ++x)
            for (int y = 0; y < timeline->height() && at.isNull(); y += 2)
                if (timeline->barAt(QPointF(x, y)) == std::make_pair(1, 0)) at = QPoint(x + 1, y);
        QVERIFY(!at.isNull());
        QTest::mouseClick(timeline, Qt::LeftButton, {}, at);
        QVERIFY(QTest::qWaitFor([&] { return w.context()->isRecordedOnly(); }, 20000));
        QCOMPARE(w.context()->plan().steps.size(), recorded_[1].steps.size());
    }

private:
    bool showWithTrace(MainWindow& w) { return test::showExposed(w, {1400, 900}) && w.openFile(trace_); }

    QTemporaryDir dir_;
    QString trace_;
    std::vector<ExecutorTrace> recorded_;
};

QTEST_MAIN(TestRecordedTrace)
#include "test_recorded_trace.moc"
