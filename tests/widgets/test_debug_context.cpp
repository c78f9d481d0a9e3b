// The context and its execution worker, end to end on a small GroupNormBackward case:
// open, load, prepare, step, continue, breakpoints, errors beside the argument at fault,
// tensors fetched between steps, element history, analysis and cancel.
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "session/analysis.h"
#include "session/argument_binding.h"
#include "session/debug_context.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

class TestDebugContext : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        file_ = test::writeCaseFile(dir_.path());
    }

    void opensFileAndListsCases() {
        DebugContext ctx;
        QSignalSpy changed(&ctx, &DebugContext::fileChanged);
        QString error;
        QVERIFY(!ctx.openFile(dir_.filePath("missing.h5"), &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(ctx.openFile(file_, &error));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(ctx.cases().size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(ctx.cases()[0].path), QString("/gn/bad_group"));
        QCOMPARE(QString::fromStdString(ctx.cases()[1].op), QString("aclnnGroupNormBackward"));
    }

    void loadsPreparesStepsAndContinues() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        QSignalSpy plan(&ctx, &DebugContext::planChanged);
        QSignalSpy stopped(&ctx, &DebugContext::runStopped);
        QSignalSpy analysis(&ctx, &DebugContext::analysisChanged);
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        QVERIFY(plan.count() >= 1);
        QCOMPARE(QString::fromStdString(ctx.plan().op), QString("aclnnGroupNormBackward"));
        QVERIFY(ctx.plan().steps.size() >= 2);
        QVERIFY(ctx.baseline());
        QCOMPARE(ctx.baseline()->size(), std::size_t(3));

        ctx.step();
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(ctx.nextStep(), std::size_t(1));
        QCOMPARE(int(ctx.stepStates()[0].status), int(StepStatus::Done));
        QCOMPARE(int(ctx.stepStates()[1].status), int(StepStatus::Pending));

        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(ctx.nextStep(), ctx.plan().steps.size());
        QVERIFY(ctx.atEnd());
        QCOMPARE(stopped.last().at(0).value<StopKind>(), StopKind::End);
        QVERIFY(QTest::qWaitFor([&] { return ctx.analysis() != nullptr; }, 20000));
        QCOMPARE(ctx.analysis()->outputs.size(), std::size_t(3));
        for (const OutputAnalysis& o : ctx.analysis()->outputs) {
            QVERIFY(!o.judgements.empty());
            QVERIFY2(o.judgements.front().passed(), o.judgements.front().reason.c_str());
            QVERIFY(o.metrics.cosine > 0.9999);
        }
        // Every step that wrote an output was judged against the reference.
        bool judged = false;
        for (const StepState& s : ctx.stepStates()) judged = judged || s.verdict().has_value();
        QVERIFY(judged);
        QVERIFY(analysis.count() >= 1);
    }

    // An output whose baseline has another element count is listed as not judged with the
    // reason, and the verdict is never a pass (it was silently skipped: PASS on the rest).
    void mismatchedBaselineIsNotJudgedNeverPass() {
        TensorMap outputs, baseline;
        outputs.emplace("dxOut", HostTensor(DType::Float32, {2, 3, 16}));
        outputs.emplace("dgammaOut", HostTensor(DType::Float32, {16}));
        baseline.emplace("dxOut", HostTensor(DType::Float32, {5, 5}));
        baseline.emplace("dgammaOut", HostTensor(DType::Float32, {16}));
        const metrics::Standard cann = metrics::parseStandard("cann");
        const AnalysisReport r = analyzeOutputs(outputs, baseline, standardsToShow(cann), "expected");
        QCOMPARE(r.outputs.size(), std::size_t(2));
        QCOMPARE(int(r.overall()), int(ops::Overall::NotJudged));
        const OutputAnalysis* dx = r.find("dxOut");
        QVERIFY(dx && !dx->compared);
        QVERIFY2(dx->note.find("element counts differ") != std::string::npos, dx->note.c_str());
        QVERIFY(r.find("dgammaOut")->compared);
        // An output the baseline lacks: the same.
        baseline.erase("dxOut");
        const AnalysisReport missing = analyzeOutputs(outputs, baseline, standardsToShow(cann), "expected");
        QCOMPARE(int(missing.overall()), int(ops::Overall::NotJudged));
        QVERIFY(missing.find("dxOut")->note.find("has no 'dxOut'") != std::string::npos);
    }

    // Opening another file, or a case that fails to load, leaves nothing of the old call: no
    // bound tensors, plan, baseline or verdict that belonged to another file or case.
    void openingAFileForgetsTheOldCall() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        prepareBasic(ctx);
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(QTest::qWaitFor([&] { return ctx.analysis() != nullptr; }, 20000));
        QVERIFY(QDir(dir_.path()).mkpath("other"));
        const QString other = test::writeCaseFile(dir_.filePath("other"));
        QVERIFY(ctx.openFile(other));
        QVERIFY(!ctx.isPrepared());
        QVERIFY(!ctx.analysis());
        QVERIFY(!ctx.baseline());
        QVERIFY(ctx.arguments().tensors.empty());
        QVERIFY(!ctx.currentCase());

        prepareBasic(ctx);
        QVERIFY(!ctx.arguments().tensors.empty());
        QSignalSpy failed(&ctx, &DebugContext::caseLoadFailed);
        ctx.loadCase("/gn/no_such_case");
        QVERIFY(QTest::qWaitFor([&] { return failed.count() == 1; }, 20000));
        QVERIFY(!ctx.isPrepared());
        QVERIFY(ctx.arguments().tensors.empty());
        QVERIFY(!ctx.prepareError());
    }

    // "Run as" is a choice per case: the next case starts as stored.
    void runAsResetsPerCase() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        prepareBasic(ctx);
        ctx.setRunAs(DType::Float16);
        QCOMPARE(ctx.baselineSource(), QString(DebugContext::kStoredInputsBaseline));
        QSignalSpy loaded(&ctx, &DebugContext::caseLoaded);
        ctx.loadCase("/gn/basic");  // the same file: only the case changes
        QVERIFY(QTest::qWaitFor([&] { return loaded.count() == 1; }, 20000));
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(int(ctx.runAs()), int(DType::Undefined));
        QCOMPARE(ctx.baselineSource(), QString(DebugContext::kComputedBaseline));
    }

    // A prepare that never reached the operator has no status code to show.
    void prepareFailureWithoutStatusHasNoCode() {
        DebugContext::PrepareError noStatus{0, "tensor argument 'gamma' is not bound", "gamma"};
        QCOMPARE(noStatus.headline(), QString("Prepare failed"));
        DebugContext::PrepareError status{161002, "C (4) must be divisible by group (3)", "group"};
        QCOMPARE(status.headline(), QString("Prepare failed (161002)"));
    }

    void breakpointsStopBeforeTheStep() {
        DebugContext ctx;
        prepareBasic(ctx);
        const std::size_t last = ctx.plan().steps.size() - 1;
        ctx.toggleBreakpoint(last);
        QVERIFY(ctx.hasBreakpoint(last));
        QSignalSpy stopped(&ctx, &DebugContext::runStopped);
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(ctx.nextStep(), last);
        QCOMPARE(stopped.last().at(0).value<StopKind>(), StopKind::Breakpoint);
        ctx.continueRun();  // from a breakpoint, Continue runs the step it stopped before
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(ctx.nextStep(), last + 1);
        // Run to cursor replays from the start when the step is behind us.
        ctx.runTo(1);
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(ctx.nextStep(), std::size_t(1));
        ctx.restart();
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(ctx.nextStep(), std::size_t(0));
        QCOMPARE(int(ctx.stepStates()[0].status), int(StepStatus::Pending));
    }

    void cancelStopsBetweenSteps() {
        // Steps long enough (2M elements) that Cancel arrives while the first one runs.
        const QString path = QDir(dir_.path()).filePath("cancel.h5");
        cases::writeCaseFile(path.toStdString(), {test::largeGroupNormCase(4, 32, 16384)});
        DebugContext ctx;
        QVERIFY(ctx.openFile(path));
        QVERIFY(test::loadPrepared(ctx, "/gn/large", 60000));
        QVERIFY(ctx.plan().steps.size() >= 2);
        QSignalSpy stopped(&ctx, &DebugContext::runStopped);
        ctx.continueRun();
        ctx.cancel();  // steps are atomic: the first one completes, then the run stops
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(stopped.last().at(0).value<StopKind>(), StopKind::Cancelled);
        QCOMPARE(ctx.nextStep(), std::size_t(1));
        ctx.continueRun();  // and a new Continue is not cancelled
        QVERIFY(test::waitIdle(ctx, 60000));
        QVERIFY(ctx.atEnd());
    }

    void breakOnNonFiniteStopsAfterTheStep() {
        cases::Case c = test::groupNormCase("/gn/nan");
        std::vector<double> dy = c.inputs[0].second.toDoubles();
        dy[7] = std::nan("");
        c.inputs[0].second = HostTensor::fromDoubles(DType::Float32, c.inputs[0].second.shape(), dy);
        const QString path = QDir(dir_.path()).filePath("nan.h5");
        cases::writeCaseFile(path.toStdString(), {c});
        DebugContext ctx;
        QVERIFY(ctx.openFile(path));
        QVERIFY(test::loadPrepared(ctx, "/gn/nan"));
        ctx.setBreakOnNonFinite(true);
        QSignalSpy stopped(&ctx, &DebugContext::runStopped);
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        QCOMPARE(stopped.last().at(0).value<StopKind>(), StopKind::NonFinite);
        const std::size_t at = ctx.nextStep() - 1;
        QVERIFY(ctx.stepStates()[at].nonFinite);
        QVERIFY(!ctx.atEnd());
    }

    void validationErrorsNameTheArgument() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        QSignalSpy failed(&ctx, &DebugContext::prepareFailed);
        ctx.loadCase("/gn/bad_group");
        QVERIFY(failed.wait(20000));
        QVERIFY(!ctx.isPrepared());
        QCOMPARE(failed.last().at(1).toInt(), 161002);
        const QString arg = failed.last().at(0).toString();
        QVERIFY2(arg == "C" || arg == "group", qPrintable(arg));
        QVERIFY(failed.last().at(2).toString().contains("divisible"));
        // A missing tensor is a binding problem, reported for that argument, and no crash.
        ctx.setAttribute("group", int64_t{2});
        ctx.unbindTensor("rstd");
        ctx.prepare();
        QVERIFY(failed.wait(20000));
        QCOMPARE(failed.last().at(0).toString(), QString("rstd"));
    }

    void fetchesTensorsAndErrors() {
        DebugContext ctx;
        prepareBasic(ctx);
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        TensorPtr out, ref, rel;
        QObject receiver;
        ctx.fetchTensor({TensorKey::Source::Slot, "gradInput"}, &receiver, [&](TensorPtr t, QString) { out = t; });
        ctx.fetchTensor({TensorKey::Source::Baseline, "gradInput"}, &receiver, [&](TensorPtr t, QString) { ref = t; });
        ctx.fetchTensor({TensorKey::Source::RelError, "gradInput"}, &receiver, [&](TensorPtr t, QString) { rel = t; });
        QVERIFY(QTest::qWaitFor([&] { return out && ref && rel; }, 20000));
        QCOMPARE(out->shape(), (std::vector<int64_t>{2, 4, 2, 3}));
        QCOMPARE(ref->dtype(), DType::Float64);
        QCOMPARE(rel->numel(), out->numel());
        QVERIFY(std::fabs(out->getAsDouble(5) - ref->getAsDouble(5)) < 1e-4);
        // A receiver that is gone gets nothing (and nothing crashes).
        bool called = false;
        {
            QObject gone;
            ctx.fetchTensor({TensorKey::Source::Slot, "gradInput"}, &gone, [&](TensorPtr, QString) { called = true; });
        }
        QTest::qWait(200);
        QVERIFY(!called);
    }

    void elementHistoryFollowsThePickedElement() {
        DebugContext ctx;
        prepareBasic(ctx);
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        ElementPick pick;
        pick.slot = "gradInput";
        pick.output = "gradInput";
        pick.shape = {2, 4, 2, 3};
        pick.index = {1, 2, 0, 1};
        QSignalSpy history(&ctx, &DebugContext::historyChanged);
        ctx.pickElement(pick);
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(!ctx.history().empty());
        QCOMPARE(QString::fromStdString(ctx.history().back().slotName).section('.', 0, 0), QString("gradInput"));
        QVERIFY(std::isfinite(ctx.history().back().value));
        QCOMPARE(ctx.nextStep(), ctx.plan().steps.size());  // the replay ends where we were
    }

    void runAsHalfChangesThePlan() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        ctx.setRunAs(DType::Float16);
        QVERIFY(!ctx.isPrepared());  // the plan no longer matches
        ctx.prepare();
        QVERIFY(QTest::qWaitFor([&] { return ctx.isPrepared(); }, 20000));
        QCOMPARE(ctx.plan().slot(0)->dtype, DType::Float16);
        bool hasCast = false;
        for (const StepInfo& s : ctx.plan().steps) hasCast = hasCast || s.name == "Cast";
        QVERIFY(hasCast);
        QVERIFY(test::waitIdle(ctx));
        // Run as compares with the reference of the stored inputs by default (the whole cost of
        // fp16); the reference of the inputs as run (opscope-cli's golden) is one choice away.
        QCOMPARE(ctx.baselineSource(), QString(DebugContext::kStoredInputsBaseline));
        QVERIFY(ctx.baselineChoices().contains(DebugContext::kComputedBaseline));
        ctx.continueRun();
        QVERIFY(QTest::qWaitFor([&] { return ctx.analysis() != nullptr; }, 20000));
        QVERIFY(test::waitIdle(ctx));
        const double storedError = ctx.analysis()->find("gradInput")->metrics.maxAbsError;
        ctx.setBaselineSource(DebugContext::kComputedBaseline);
        QVERIFY(QTest::qWaitFor([&] { return ctx.analysis() != nullptr; }, 20000));
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(ctx.analysis()->find("gradInput")->metrics.maxAbsError < storedError);
        ctx.setRunAs(DType::Undefined);
        QCOMPARE(ctx.baselineSource(), QString(DebugContext::kComputedBaseline));
    }

    void staysResponsiveOnALargeCase() {
        // 2M elements per tensor: reading, the float64 reference, the steps, snapshots and the
        // analysis all run off the GUI thread, whose event loop must keep turning.
        const QString path = QDir(dir_.path()).filePath("large.h5");
        cases::writeCaseFile(path.toStdString(), {test::largeGroupNormCase(4, 32, 16384)});
        DebugContext ctx;
        QVERIFY(ctx.openFile(path));
        QElapsedTimer clock, gap;
        qint64 worst = 0;
        QTimer tick;
        tick.setInterval(10);
        connect(&tick, &QTimer::timeout, [&] { worst = std::max(worst, gap.restart()); });
        clock.start();
        gap.start();
        tick.start();
        QVERIFY(test::loadPrepared(ctx, "/gn/large", 60000));
        ctx.continueRun();
        QVERIFY(QTest::qWaitFor([&] { return ctx.analysis() != nullptr; }, 60000));
        QVERIFY(test::waitIdle(ctx, 60000));
        TensorPtr rel;
        QObject receiver;
        ctx.fetchTensor({TensorKey::Source::RelError, "gradInput"}, &receiver, [&](TensorPtr t, QString) { rel = t; });
        QVERIFY(QTest::qWaitFor([&] { return rel != nullptr; }, 60000));
        tick.stop();
        qInfo("large case: %lld ms in all, longest event-loop gap %lld ms", clock.elapsed(), worst);
        QVERIFY2(worst < 500, qPrintable(QString("the GUI thread was blocked for %1 ms").arg(worst)));
    }

    // What differs from the case as loaded: a tensor is the same when it is the same data (a
    // copy of the binding shares it), an attribute when it has the same value.
    void changedArgumentsNameWhatDiffers() {
        const ops::Operator* op = ops::findOperator("group_norm_backward");
        QVERIFY(op);
        ArgumentState loaded = defaultArguments(op->schema());
        loaded.tensors["input"] = {"/c/inputs/input", HostTensor(DType::Float32, {2, 3})};
        loaded.tensors["gamma"] = {"/c/inputs/gamma", HostTensor(DType::Float32, {3})};
        ArgumentState now = loaded;
        QVERIFY(changedArguments(loaded, now).empty());
        now.attributes["group"] = int64_t{7};
        now.tensors["input"] = {"/c/inputs/input", HostTensor(DType::Float32, {2, 3})};  // equal values, other data
        now.tensors.erase("gamma");
        now.tensors["mean"] = {"m.npy", HostTensor(DType::Float32, {2, 1})};
        QCOMPARE(changedArguments(loaded, now), (std::vector<std::string>{"gamma", "group", "input", "mean"}));
        now = loaded;
        now.attributes.erase("group");
        QCOMPARE(changedArguments(loaded, now), std::vector<std::string>{"group"});
    }

    void faultyArgumentParsing() {
        const ops::Operator* op = ops::findOperator("group_norm_backward");
        QVERIFY(op);
        const ops::OpSchema& s = op->schema();
        QCOMPARE(QString::fromStdString(
                     faultyArgument(s, "aclnnGroupNormBackwardGetWorkspaceSize: gradOut dtype int8 is not supported")),
                 QString("gradOut"));
        QCOMPARE(QString::fromStdString(
                     faultyArgument(s, "aclnnGroupNormBackwardGetWorkspaceSize: group must be greater than 0, got 0")),
                 QString("group"));
        QCOMPARE(QString::fromStdString(faultyArgument(s, "gradBetaOut is null but outputMask[2] is true")),
                 QString("outputMask"));
        QCOMPARE(QString::fromStdString(faultyArgument(s, "input has 5 elements (shape [5]) but N * C * HxW = 6")),
                 QString("input"));
        QCOMPARE(QString::fromStdString(faultyArgument(s, "something unrelated")), QString());
    }

private:
    void prepareBasic(DebugContext& ctx) {
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
    }

    QTemporaryDir dir_;
    QString file_;
};

QTEST_MAIN(TestDebugContext)
#include "test_debug_context.moc"
