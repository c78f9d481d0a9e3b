// Big tensors in bounded memory (issue 15, docs/GUI.md "Big tensors"): the [32768, 4096]
// float32 embedding of a checkpoint-like file (scripts/make_big_checkpoint.py) bound as dy and
// x of RmsNormGrad, prepared, run and judged in the main window, then its relative-error map
// and its input shown; then the embedding looked at alone in the dataset view (streamed from
// the file in row bands). Measures the process's peak RSS against issue 15's budget
//   inputs + outputs + golden + workspace + 2 slices' display buffers + 256 MiB
// and the time from choosing a tensor (or double-clicking the dataset) to its heatmap on
// screen against 2 s, and says in its output whether each target is met. The memory target
// fails the test; the time target only on a quiet machine, so what fails it is a heatmap
// slower than kRegressionMs on a loaded 2-core machine.
//
// Slow and memory-hungry: skipped unless OPSCOPE_BIG_CHECKPOINT names the file. scripts/test.sh
// makes the file in a temporary folder and runs this test with it (QTEST_FUNCTION_TIMEOUT
// raised: on a loaded machine the run takes minutes).
#include <sys/resource.h>

#include <QElapsedTimer>

#include "main_window.h"
#include "opscope/h5/vetting.h"
#include "views/dataset_view_panel.h"
#include "views/heatmap_widget.h"
#include "views/tensor_view_panel.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

namespace {

constexpr const char* kEmbedding = "/model/embed_tokens/weight";
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kTargetMs = 2000;       // issue 15
constexpr double kRegressionMs = 20000;  // 6.4 s measured at load average 7-9

double peakRssBytes() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) * 1024.0;  // kilobytes on Linux
}

// What one shown slice holds: the value cells, the tolerance-mask cells, and the pixels twice
// (the renderer's buffer and the QImage).
double displayBytes(const DisplayFrame& f) {
    const double cells = static_cast<double>(f.image.width()) * f.image.height();
    return cells * (2 * sizeof(view::Cell) + 2 * sizeof(uint32_t));
}

}  // namespace

class TestBigTensor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        file_ = qEnvironmentVariable("OPSCOPE_BIG_CHECKPOINT");
        if (file_.isEmpty())
            QSKIP("set OPSCOPE_BIG_CHECKPOINT to a file from scripts/make_big_checkpoint.py (scripts/test.sh does)");
        QCoreApplication::setOrganizationName("OpScopeTest");
    }

    void rmsNormGradOnTheEmbeddingStaysInBudget() {
        MainWindow w(nullptr, false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFile(file_));
        DebugContext* ctx = w.context();
        connect(ctx, &DebugContext::statusMessage, this, [](const QString& text, bool isError) {
            if (isError) qWarning("%s", qPrintable(text));
        });
        QVERIFY(ctx->setOperator("aclnnRmsNormGrad"));
        for (const auto& [argument, path] : {std::pair{"dy", kEmbedding},
                                             {"x", kEmbedding},
                                             {"rstd", "/model/norm/rstd"},
                                             {"gamma", "/model/norm/weight"}}) {
            QElapsedTimer bind;
            bind.start();
            ctx->bindDataset(argument, path);
            QVERIFY(test::waitIdle(*ctx, 120000));
            qInfo("bound %s in %.1f s (peak RSS %.0f MiB)", argument, bind.elapsed() / 1000.0, peakRssBytes() / kMiB);
        }
        QCOMPARE(int(ctx->arguments().tensors.size()), 4);
        QElapsedTimer clock;
        clock.start();
        ctx->prepare();
        QVERIFY(QTest::qWaitFor([&] { return ctx->isPrepared(); }, 120000));
        qInfo("prepared in %.1f s (peak RSS %.0f MiB)", clock.elapsed() / 1000.0, peakRssBytes() / kMiB);
        QVERIFY(test::waitIdle(*ctx, 600000));
        qInfo("golden in %.1f s (peak RSS %.0f MiB)", clock.elapsed() / 1000.0, peakRssBytes() / kMiB);
        ctx->continueRun();
        QVERIFY(QTest::qWaitFor([&] { return ctx->atEnd() && ctx->analysis() != nullptr; }, 600000));
        QVERIFY(test::waitIdle(*ctx, 600000));
        qInfo("prepare + golden + run + analysis: %.1f s (peak RSS %.0f MiB)", clock.elapsed() / 1000.0,
              peakRssBytes() / kMiB);

        TensorViewPanel* view = w.tensorView();
        const double relMs = showAndTime(view, {TensorKey::Source::RelError, "dxOut"});
        const DisplayFrame relFrame = view->frame();
        QCOMPARE(relFrame.planeRows, int64_t{32768});
        QCOMPARE(relFrame.planeCols, int64_t{4096});
        const double inputMs = showAndTime(view, {TensorKey::Source::Slot, "dy"});
        // The NaN and the +Inf of the embedding survive the 16x2 downsampling.
        QVERIFY(view->frame().sliceStats.nanCount == 1 && view->frame().sliceStats.infCount == 1);
        QVERIFY(!view->frame().firstNonFinite.empty());

        const double budget = budgetBytes(*ctx, relFrame);
        const double peak = peakRssBytes();
        qInfo("time to heatmap: relative error of dxOut %.0f ms, input dy %.0f ms", relMs, inputMs);
        qInfo("peak RSS %.0f MiB; budget %.0f MiB", peak / kMiB, budget / kMiB);
        const bool fast = relMs <= kTargetMs && inputMs <= kTargetMs;
        qInfo("issue 15 target, heatmap within 2 s: %s", fast ? "met" : "NOT met");
        qInfo("issue 15 target, peak RSS within the budget: %s", peak <= budget ? "met" : "NOT met");
        QVERIFY2(relMs <= kRegressionMs && inputMs <= kRegressionMs, "a heatmap took longer than ever measured");
        QVERIFY2(peak <= budget, qPrintable(QString("peak RSS %1 MiB over the budget %2 MiB")
                                                .arg(peak / kMiB, 0, 'f', 0)
                                                .arg(budget / kMiB, 0, 'f', 0)));
    }

    // The dataset view as a double-click in the tree opens it (MainWindow::viewDataset), timed
    // from the click to the frame on screen, as in a new session: the file is opened (its
    // metadata vetted) before the click, and nothing of its data was vetted. After the budget
    // test, whose peak RSS it would otherwise raise (the heap keeps what it freed).
    void datasetViewOfTheEmbeddingFromTheClick() {
        h5::forgetVettingResults();  // binding vetted the embedding whole
        MainWindow w(nullptr, false);
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QElapsedTimer open;
        open.start();
        QVERIFY(w.openFile(file_));
        qInfo("opened the file (tree and metadata vetting) in %.1f s", open.elapsed() / 1000.0);
        DatasetViewPanel* v = w.datasetView();
        QSignalSpy shown(v, &DatasetViewPanel::shown);
        QElapsedTimer clock;
        clock.start();
        w.viewDataset(kEmbedding);
        QVERIFY(QTest::qWaitFor([&] { return v->isStreamed() && !v->isLoading() && shown.count() > 0; }, 120000));
        const double ms = static_cast<double>(clock.elapsed());
        const DisplayFrame& f = v->frame(DatasetViewPanel::MapA);
        QCOMPARE(f.planeRows, int64_t{32768});
        QCOMPARE(f.planeCols, int64_t{4096});
        QVERIFY(f.tensorStats.nanCount == 1 && f.tensorStats.infCount == 1);
        qInfo("dataset view of the embedding, click to heatmap: %.0f ms (streamed)", ms);
        qInfo("issue 15 target, dataset view within 2 s of the click: %s", ms <= kTargetMs ? "met" : "NOT met");
        QVERIFY2(ms <= kRegressionMs, "the dataset view took longer than ever measured");
    }

private:
    // Chooses the tensor as a click in the tensor list does and waits for its frame.
    static double showAndTime(TensorViewPanel* view, const TensorKey& key) {
        QSignalSpy shown(view, &TensorViewPanel::frameShown);
        QElapsedTimer clock;
        clock.start();
        if (!view->showTensor(key)) return 1e9;
        if (!QTest::qWaitFor([&] { return !view->isLoading() && shown.count() > 0; }, 120000)) return 1e9;
        return static_cast<double>(clock.elapsed());
    }

    static double inputBytes(const DebugContext& ctx) {
        double inputs = 0;
        for (const auto& [name, bound] : ctx.arguments().tensors) inputs += double(bound.tensor.nbytes());
        return inputs;
    }
    static double outputBytes(const DebugContext& ctx) {
        double outputs = 0;
        for (const SlotInfo& s : ctx.plan().slots)
            if (s.kind == SlotKind::Output) outputs += double(shapeNumel(s.shape) * int64_t(dtypeSize(s.dtype)));
        return outputs;
    }
    static double budgetBytes(const DebugContext& ctx, const DisplayFrame& frame) {
        const double inputs = inputBytes(ctx), outputs = outputBytes(ctx);
        double golden = 0;
        for (const auto& [name, t] : *ctx.baseline()) golden += double(t.nbytes());
        const double workspace = double(ctx.plan().workspaceBytes);
        const double display = 2 * displayBytes(frame);
        qInfo("inputs %.0f MiB, outputs %.0f MiB, golden %.0f MiB, workspace %.0f MiB, 2 slices' display %.0f MiB",
              inputs / kMiB, outputs / kMiB, golden / kMiB, workspace / kMiB, display / kMiB);
        return inputs + outputs + golden + workspace + display + 256 * kMiB;
    }

    QString file_;
};

QTEST_MAIN(TestBigTensor)
#include "test_big_tensor.moc"
