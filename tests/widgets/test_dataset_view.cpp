// Checkpoint workflows in the main window: look at any dataset of the tree without an operator
// (double-click, Enter, the tree's "View", --case on a dataset) with its statistics and first
// NaN/Inf; compare any two (two datasets, the same path in two files, a run's output with a
// dataset) with the metrics `opscope-cli compare` computes; the heatmap's and the metrics
// table's right-click menus (copy at full precision, CSV/.npy/PNG exports, copy table).
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QClipboard>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>
#include <cmath>
#include <limits>

#include "main_window.h"
#include "models/h5_tree_model.h"
#include "models/metrics_table_model.h"
#include "session/analysis.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/import/npy.h"
#include "opscope/import/tensor_file.h"
#include "opscope/metric_fields.h"
#include "opscope/ops/evaluation.h"
#include "opscope/view/slice_export.h"
#include "views/charts_panel.h"
#include "views/dataset_view_panel.h"
#include "views/file_browser_panel.h"
#include "views/heatmap_widget.h"
#include "views/slice_controls.h"
#include "views/tensor_view_panel.h"
#include "widget_test_support.h"
#include "window_test_support.h"

using namespace opscope;
using namespace opscope::gui;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A checkpoint-like weight [3, 4, 5]: a NaN at [1, 2, 3], an Inf at [2, 0, 0], zeros.
HostTensor weight(double noise) {
    HostTensor t = test::ramp(DType::Float32, {3, 4, 5}, 1.0, 0.0);
    for (int64_t i = 0; i < t.numel(); ++i) t.setFromDouble(i, t.getAsDouble(i) * (1 + noise * std::cos(double(i))));
    t.setFromDouble(1 * 20 + 2 * 5 + 3, kNaN);
    t.setFromDouble(2 * 20, HUGE_VAL);
    t.setFromDouble(7, 0.0);
    t.setFromDouble(8, 0.0);
    return t;
}

// A stack [6, 8, 10] of distinct values, a NaN at [4, 3, 7]: read slice by slice above 1 KiB.
HostTensor stack(double noise) {
    std::vector<double> v(6 * 8 * 10);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = (double(i) - 100.0) * 0.25 * (1 + noise);
    v[4 * 80 + 3 * 10 + 7] = kNaN;
    return HostTensor::fromDoubles(DType::Float32, {6, 8, 10}, v);
}

QString addDatasets(const QString& file, double noise) {
    h5::File f = h5::File::openReadWrite(file.toStdString());
    h5::writeTensor(f, "/ckpt/layer0/weight", weight(noise));
    h5::writeTensor(f, "/ckpt/stack", stack(noise));
    h5::writeTensor(f, "/ckpt/layer0/bias", test::ramp(DType::Float64, {16}, 0.25, 0.0));
    h5::writeTensor(f, "/ckpt/layer0/bias_fp16", test::ramp(DType::Float16, {16}, 0.25, 0.01));
    return file;
}

bool waitShown(DatasetViewPanel* v) {
    return QTest::qWaitFor(
        [&] { return v->hasTensor() && !v->isLoading() && v->frame(DatasetViewPanel::MapA).valid(); }, 20000);
}

QModelIndex treeIndex(MainWindow& w, const char* path) { return w.fileBrowser()->viewIndexForPath(path); }

// Views a dataset above the slice-only threshold (1 KiB) in bands of `bandBytes`: true once it is
// shown streamed, none of it held.
bool viewStreamed(DatasetViewPanel* v, const DatasetRef& ref, uint64_t bandBytes) {
    v->setSliceOnlyAbove(1024);
    v->setStreamBandBytes(bandBytes);
    v->view(ref);
    return QTest::qWaitFor([&] { return v->isStreamed() && !v->isLoading(); }, 20000) && !v->heldTensor();
}

}  // namespace

class TestDatasetView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        const auto [first, other] = test::useTestSettingsAndTwoCaseFiles(dir_.path());
        file_ = addDatasets(first, 0.0);
        other_ = addDatasets(other, 1e-3);  // the same paths, perturbed
    }

    void init() { QVERIFY(window_ = test::shownWindowWith(file_)); }
    void cleanup() { window_.reset(); }

    // Double-click shows the dataset with its statistics; Enter on another shows that one.
    void doubleClickAndEnterViewADataset() {
        MainWindow& w = *window_;
        QTreeView* tree = w.fileBrowser()->treeView();
        const QModelIndex weightIndex = treeIndex(w, "/ckpt/layer0/weight");
        QVERIFY(weightIndex.isValid());
        tree->scrollTo(weightIndex);
        const QPoint at = tree->visualRect(weightIndex).center();
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(waitShown(v));
        QCOMPARE(w.findChild<QTabWidget*>("CentreTabs")->currentWidget(), v);
        QCOMPARE(v->viewedDataset()->path, QString("/ckpt/layer0/weight"));
        const DisplayFrame& f = v->frame(DatasetViewPanel::MapA);
        const TensorStats expected = computeStats(weight(0).view());
        QCOMPARE(f.tensorStats.nanCount, 1);
        QCOMPARE(f.tensorStats.infCount, 1);
        QCOMPARE(f.tensorStats.zeroCount, expected.zeroCount);
        QVERIFY(expected.zeroCount >= 2);
        QCOMPARE(f.tensorStats.stddev, expected.stddev);
        QCOMPARE(f.firstNonFinite, (std::vector<int64_t>{1, 2, 3}));
        QVERIFY(v->statsText().contains("std"));
        QVERIFY(v->statsText().contains("[1, 2, 3]"));
        QCOMPARE(f.planeRows, 4);  // the last two axes of [3, 4, 5]
        QCOMPARE(f.planeCols, 5);
        QVERIFY(!v->isComparing());

        const QModelIndex bias = treeIndex(w, "/ckpt/layer0/bias");
        tree->setCurrentIndex(bias);
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_Return);
        QVERIFY(QTest::qWaitFor([&] { return v->viewedDataset()->path == "/ckpt/layer0/bias"; }, 20000));
        QVERIFY(waitShown(v));
        QCOMPARE(v->frame(DatasetViewPanel::MapA).planeCols, 16);
    }

    // --case on a dataset opens its view; on a case it loads the case.
    void showPathViewsADatasetOrLoadsACase() {
        MainWindow& w = *window_;
        w.showPath("/ckpt/layer0/weight");
        QVERIFY(waitShown(w.datasetView()));
        w.showPath("/gn/basic");
        QVERIFY(QTest::qWaitFor([&] { return w.context()->isPrepared(); }, 20000));
        QVERIFY(test::waitIdle(*w.context()));
    }

    // The tree's menu: View, then "Compare with this" on another dataset; the metrics are the
    // CLI's (ops::compareOutput as runCompare calls it), field by field.
    void compareTwoDatasetsAgreesWithTheCli() {
        MainWindow& w = *window_;
        QMenu menu;
        w.fileBrowser()->fillTreeMenu(&menu, treeIndex(w, "/ckpt/layer0/bias"));
        QAction* view = test::menuAction(menu, "viewDataset");
        QVERIFY(view);
        QVERIFY(!test::menuAction(menu, "compareDataset")->isEnabled());  // nothing viewed yet
        view->trigger();
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(waitShown(v));
        QMenu second;
        w.fileBrowser()->fillTreeMenu(&second, treeIndex(w, "/ckpt/layer0/bias_fp16"));
        QAction* cmp = test::menuAction(second, "compareDataset");
        QVERIFY(cmp && cmp->isEnabled());
        cmp->trigger();
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->isComparing());

        const HostTensor a = h5::readTensor(h5::File::openReadOnly(file_.toStdString()), "/ckpt/layer0/bias");
        const HostTensor b = h5::readTensor(h5::File::openReadOnly(file_.toStdString()), "/ckpt/layer0/bias_fp16");
        const ops::Comparison cli = ops::compareOutput("/ckpt/layer0/bias", "actual", a, "reference", b,
                                                       ops::judgedDtype(a), metrics::parseStandard("cann"));
        const ops::Comparison& gui = v->analysis()->comparisons.front();
        expectSameComparison(gui, cli);
        compareWithCliJson(gui, "/ckpt/layer0/bias", "/ckpt/layer0/bias_fp16");
    }

    // File > Compare With File: the same path in another file; A | B | error side by side, A/B.
    void sameDatasetInTwoFilesSideBySideAndAb() {
        MainWindow& w = *window_;
        QVERIFY(w.action("compareWithFile"));
        w.viewDataset("/ckpt/layer0/weight");
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(waitShown(v));
        w.compareDataset({other_, "/ckpt/layer0/weight"});
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->title().contains("other") || v->title().contains(QFileInfo(other_).fileName()));
        const OutputAnalysis& o = v->analysis()->outputs.front();
        QVERIFY(o.compared);
        QVERIFY(o.metrics.maxRelError > 0);  // perturbed by 1e-3
        QVERIFY(o.judgements.size() >= 3);   // every standard, cann first
        QCOMPARE(QString::fromStdString(o.judgements.front().standard), QString("cann"));
        QVERIFY(v->frame(DatasetViewPanel::MapB).valid());
        QVERIFY(v->frame(DatasetViewPanel::MapError).valid());
        QVERIFY(v->heatmap(DatasetViewPanel::MapError)->isVisible());
        QVERIFY(v->metricsModel()->rowCount() > int(metrics::metricFields().size()));

        const TensorStats bStats = v->frame(DatasetViewPanel::MapB).tensorStats;
        QSignalSpy shown(v, &DatasetViewPanel::shown);
        v->setShowReference(true);  // A/B: B in the main map
        QVERIFY(shown.wait(10000));
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading(); }, 10000));
        QCOMPARE(v->frame(DatasetViewPanel::MapA).tensorStats.mean, bStats.mean);
        v->setSideBySide(false);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading(); }, 10000));
        QVERIFY(!v->heatmap(DatasetViewPanel::MapB)->isVisible());
    }

    // `opscope FILE --case DATASET --compare SPEC` without --screenshot (showPathComparedWith):
    // the spec's three forms name the right dataset, A is shown and then compared; a path that
    // is neither a dataset nor a group is left to --case alone.
    void commandLineCompareOfADataset() {
        MainWindow& w = *window_;
        QCOMPARE(w.referenceFor("/ckpt/layer0/bias").file, w.context()->filePath());
        QCOMPARE(w.referenceFor("/ckpt/layer0/bias").path, QString("/ckpt/layer0/bias"));
        const DatasetRef other = w.referenceFor(other_ + ":/ckpt/layer0/weight");
        QCOMPARE(other.file, other_);
        QCOMPARE(other.path, QString("/ckpt/layer0/weight"));
        const DatasetRef key = w.referenceFor("/data/step 3/model.pt:layers.0.w");
        QCOMPARE(key.file, QString("/data/step 3/model.pt"));
        QCOMPARE(key.path, QString("layers.0.w"));
        QVERIFY(!w.showPathComparedWith("/no/such/object", "/ckpt/layer0/weight"));

        QVERIFY(w.showPathComparedWith("/ckpt/layer0/weight", other_ + ":/ckpt/layer0/weight"));
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->title().contains(QFileInfo(other_).fileName()));
        QVERIFY(v->analysis()->outputs.front().compared);
        QVERIFY(v->analysis()->outputs.front().metrics.maxRelError > 0);  // perturbed by 1e-3
        QVERIFY(v->frame(DatasetViewPanel::MapError).valid());
    }

    // An output of the run against any dataset, from the tree's menu.
    void runOutputAgainstADataset() {
        MainWindow& w = *window_;
        DebugContext* ctx = w.context();
        QVERIFY(test::loadPrepared(*ctx, "/gn/basic"));
        ctx->continueRun();
        QVERIFY(test::waitIdle(*ctx));
        QVERIFY(QTest::qWaitFor([&] { return ctx->finalOutputs() != nullptr; }, 20000));
        QMenu menu;
        w.fileBrowser()->fillTreeMenu(&menu, treeIndex(w, "/gn/basic/inputs/gradOut"));
        QAction* gradInput = nullptr;
        for (QAction* a : menu.findChildren<QAction*>())
            if (a->text().startsWith("gradInput")) gradInput = a;
        QVERIFY(gradInput);
        gradInput->trigger();
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->title().startsWith("A: gradInput"));
        QVERIFY(v->analysis()->outputs.front().compared);  // same shape [2, 4, 2, 3]

        // The call's tensor view has the same menu: what it shows, named with the case.
        QVERIFY(
            QTest::qWaitFor([&] { return !w.tensorView()->isLoading() && w.tensorView()->frame().valid(); }, 20000));
        const HeatmapContent shown = w.tensorView()->heatmapContent(false);
        QVERIFY(shown.tensor);
        QCOMPARE(shown.tensorName, QString::fromStdString(w.tensorView()->currentKey().name));
        QCOMPARE(shown.caseName, QString("/gn/basic"));
        QVERIFY(contentTitle(shown).contains("[0, 0, :, :]"));
        const QString npy = dir_.filePath("call_slice.npy");
        QCOMPARE(exportSliceNpy(shown, npy), QString());
        QCOMPARE(import::readNpy(npy.toStdString()).shape(), (std::vector<int64_t>{2, 3}));
    }

    // The heatmap's menu: copy at full precision; CSV, .npy (round-trips), labelled PNG;
    // never over the file the tensor came from.
    void heatmapMenuCopiesAndExports() {
        MainWindow& w = *window_;
        w.viewDataset("/ckpt/layer0/weight");
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(waitShown(v));
        HeatmapWidget* h = v->heatmap(DatasetViewPanel::MapA);
        h->fitToWindow();
        int64_t row = -1, col = -1;
        QVERIFY(h->elementAt(h->rect().center(), &row, &col));
        QMenu menu;
        const HeatmapContent content = v->content(DatasetViewPanel::MapA);
        fillHeatmapMenu(&menu, h, h->rect().center(), content);
        QAction* copy = test::menuAction(menu, "copyValue");
        QVERIFY(copy && copy->isEnabled());
        copy->trigger();
        const double exact = weight(0).getAsDouble(row * 5 + col);
        QCOMPARE(QApplication::clipboard()->text(),
                 QString::fromStdString(view::fullPrecisionText(exact, DType::Float32)));
        QCOMPARE(QApplication::clipboard()->text().toFloat(), static_cast<float>(exact));

        const QString csv = dir_.filePath("slice.csv"), npy = dir_.filePath("slice.npy"), png = dir_.filePath("s.png");
        QCOMPARE(exportSliceCsv(content, csv), QString());
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        QCOMPARE(csvFile.readAll().count('\n'), 4);  // the [0, :, :] slice: 4 rows of 5
        QCOMPARE(exportSliceNpy(content, npy), QString());
        const HostTensor slice = import::readNpy(npy.toStdString());
        QCOMPARE(slice.shape(), (std::vector<int64_t>{4, 5}));
        for (int64_t i = 0; i < 20; ++i) QCOMPARE(slice.getAsDouble(i), weight(0).getAsDouble(i));
        QCOMPARE(exportLabelledPng(content, h, png), QString());
        const QImage image(png);
        QVERIFY(image.height() > h->height());
        QCOMPARE(contentTitle(content), QString("cases.h5:/ckpt/layer0/weight [0, :, :] · cases.h5"));
        // The source file is an input: refused, and left as it was.
        const qint64 size = QFileInfo(file_).size();
        QVERIFY(!exportSliceNpy(content, file_).isEmpty());
        QCOMPARE(QFileInfo(file_).size(), size);
    }

    // A big dataset of rank >= 3 viewed alone holds only the block of the slice on screen; moving
    // the slice (index or displayed axes) reads that slice's block; the readout, the exports and
    // the first NaN speak of the dataset's indices. Compared, B is held the same way, and the
    // metrics come from every element, a band of each side at a time, as the CLI's.
    void bigDatasetIsReadOneSliceAtATime() {
        MainWindow& w = *window_;
        DatasetViewPanel* v = w.datasetView();
        v->setSliceOnlyAbove(1024);  // the stack is 1920 bytes
        w.viewDataset("/ckpt/stack");
        QVERIFY(waitShown(v));
        QVERIFY(v->holdsSliceOnly());
        QCOMPARE(v->heldTensor()->shape(), (std::vector<int64_t>{1, 8, 10}));
        QVERIFY(v->title().contains("[6, 8, 10]"));
        QVERIFY(v->statsText().contains("only slice [0, :, :] of [6, 8, 10] was read"));
        expectSlice(v, {0, 0, 0}, 1, 2);

        SliceControls* controls = v->findChild<SliceControls*>();
        view::SliceSpec s = controls->slice();
        s.index[0] = 4;
        controls->setSlice(s);
        QVERIFY(v->isLoading());
        QVERIFY(waitShown(v));
        QCOMPARE(v->heldTensor()->shape(), (std::vector<int64_t>{1, 8, 10}));
        expectSlice(v, {4, 0, 0}, 1, 2);
        const DisplayFrame& f = v->frame(DatasetViewPanel::MapA);
        QCOMPARE(f.tensorStats.count, 80);  // the slice's statistics
        QCOMPARE(f.tensorStats.nanCount, 1);
        QCOMPARE(f.firstNonFinite, (std::vector<int64_t>{4, 3, 7}));
        QVERIFY(v->statsText().contains("[4, 3, 7]"));
        QVERIFY(v->statsText().contains("only slice [4, :, :]"));
        const HeatmapContent content = v->content(DatasetViewPanel::MapA);
        QCOMPARE(contentTitle(content), QString("cases.h5:/ckpt/stack [4, :, :] · cases.h5"));
        const QString npy = dir_.filePath("stack.npy");
        QCOMPARE(exportSliceNpy(content, npy), QString());
        const HostTensor exported = import::readNpy(npy.toStdString());
        QCOMPARE(exported.shape(), (std::vector<int64_t>{8, 10}));
        QCOMPARE(exported.getAsDouble(0), stack(0).getAsDouble(4 * 80));

        for (int64_t k : {1, 2, 5}) {  // moved on before the reads end: only the last one shows
            s = controls->slice();
            s.index[0] = k;
            controls->setSlice(s);
        }
        QVERIFY(waitShown(v));
        expectSlice(v, {5, 0, 0}, 1, 2);
        QVERIFY(v->statsText().contains("only slice [5, :, :]"));

        expectStackSliceAcrossAxis1(v, 5);

        v->setCompareBandBytes(3 * 10 * 4);  // three rows of 10 a band: 16 bands of the stack
        w.compareDataset({other_, "/ckpt/stack"});
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->holdsSliceOnly());
        const std::vector<int64_t> block{6, 1, 10};  // the slice [:, 5, :] shown last
        QCOMPARE(v->heldTensor()->shape(), block);
        QCOMPARE(v->heldReference()->shape(), block);
        expectAnalysisOfWholePair(v, stack(0), stack(1e-3), "/ckpt/stack");
        QVERIFY(v->frame(DatasetViewPanel::MapB).valid());
        QCOMPARE(v->frame(DatasetViewPanel::MapError).tensorStats.count, 60);  // the slice's errors

        // Another slice: A's and B's blocks of it are read; the verdict, of every element, stays.
        const AnalysisPtr verdict = v->analysis();
        view::SliceSpec other = controls->slice();
        other.index[1] = 2;
        controls->setSlice(other);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !v->isLoading() && v->content(DatasetViewPanel::MapB).tensor &&
                       v->frame(DatasetViewPanel::MapB).tensorStats.min == stack(1e-3).getAsDouble(2 * 10);
            },
            20000));
        QCOMPARE(v->analysis(), verdict);
        QCOMPARE(v->heldReference()->shape(), block);
        QVERIFY(v->isComparing());
    }

    // A running comparison shows its progress and a Cancel: cancelled, no verdict comes, not even
    // late; a new dataset viewed while one runs ends it the same way.
    void comparisonCancelsAndNeverShowsALateVerdict() {
        DatasetViewPanel* v = window_->datasetView();
        v->setSliceOnlyAbove(1024);
        v->setCompareBandBytes(40);  // one row of 10 a band, each vetted alone: a slow pass
        window_->viewDataset("/ckpt/stack");
        QVERIFY(waitShown(v));
        auto* cancel = v->findChild<QToolButton*>("cancelCompare");
        QVERIFY(cancel && cancel->isHidden());
        v->compareWith({other_, "/ckpt/stack"});
        QVERIFY(QTest::qWaitFor([&] { return !cancel->isHidden(); }, 20000));
        QVERIFY2(v->verdictLine().startsWith("Comparing"), qPrintable(v->verdictLine()));
        cancel->click();
        QVERIFY(cancel->isHidden());
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading(); }, 20000));
        QTest::qWait(1000);
        QVERIFY(!v->analysis());
        QVERIFY2(v->verdictLine().contains("cancelled"), qPrintable(v->verdictLine()));

        v->compareWith({other_, "/ckpt/stack"});
        QVERIFY(QTest::qWaitFor([&] { return !cancel->isHidden(); }, 20000));
        window_->viewDataset("/ckpt/layer0/weight");
        QVERIFY(waitShown(v));
        QTest::qWait(1000);
        QVERIFY(!v->isComparing() && !v->analysis());
        QVERIFY(cancel->isHidden());
    }

    // The verdict does not wait for the charts: their pass over the pair runs after it, the
    // charts say so meanwhile (never an empty histogram read as "all errors zero"), and Cancel
    // then stops only the charts; compared again, the charts come.
    void theVerdictComesBeforeTheCharts() {
        DatasetViewPanel* v = window_->datasetView();
        v->setSliceOnlyAbove(1024);
        v->setCompareBandBytes(40);  // a slow pass, as above
        window_->viewDataset("/ckpt/stack");
        QVERIFY(waitShown(v));
        auto* cancel = v->findChild<QToolButton*>("cancelCompare");
        auto* histogram = v->charts()->findChild<QChartView*>();
        QVERIFY(histogram);
        v->compareWith({other_, "/ckpt/stack"});
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() != nullptr; }, 60000));
        const QString verdict = v->verdictLine();
        QVERIFY2(!verdict.startsWith("Comparing"), qPrintable(verdict));
        QVERIFY(v->isLoading());
        QVERIFY(!v->analysis()->outputs.front().summarized);
        QVERIFY2(histogram->chart()->title().startsWith("Summarizing the errors"),
                 qPrintable(histogram->chart()->title()));
        QVERIFY(!cancel->isHidden());
        cancel->click();
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading(); }, 20000));
        QTest::qWait(500);
        QCOMPARE(v->verdictLine(), verdict);  // the verdict stays
        QVERIFY(v->analysis() && !v->analysis()->outputs.front().summarized);
        QVERIFY2(histogram->chart()->title().contains("cancelled"), qPrintable(histogram->chart()->title()));

        v->setCompareBandBytes(uint64_t(64) << 20);
        v->compareWith({other_, "/ckpt/stack"});
        QVERIFY(waitShown(v));
        QVERIFY(v->analysis() && v->analysis()->outputs.front().summarized);
        QCOMPARE(v->verdictLine(), verdict);
        QVERIFY2(!histogram->chart()->title().startsWith("Summarizing"), qPrintable(histogram->chart()->title()));
    }

    // A slice read vets only its block: in a file whose slice 3 is damaged (one gzip chunk per
    // slice, tests/data/make_damaged_chunk.py) slice 0 shows, slice 3 is refused in one sentence
    // naming the file, and slice 4 shows after it.
    void damagedSliceIsRefusedAndIntactSlicesShow() {
        DatasetViewPanel* v = window_->datasetView();
        v->setSliceOnlyAbove(32 * 1024);  // the stack is 96 KiB, a slice 16 KiB
        const QString damaged = QStringLiteral(OPSCOPE_SOURCE_DIR "/tests/data/damaged_chunk.h5");
        v->view({damaged, "/stack"});
        QVERIFY(waitShown(v));
        QVERIFY(v->holdsSliceOnly());
        QCOMPARE(v->frame(DatasetViewPanel::MapA).tensorStats.min, -100.0);
        QCOMPARE(v->message(), QString());
        SliceControls* controls = v->findChild<SliceControls*>();
        view::SliceSpec s = controls->slice();
        s.index[0] = 3;
        controls->setSlice(s);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && !v->message().isEmpty(); }, 20000));
        QVERIFY2(v->message().contains(damaged) && !v->message().contains('\n'), qPrintable(v->message()));
        s.index[0] = 4;
        controls->setSlice(s);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && v->message().isEmpty(); }, 20000));
        QVERIFY(waitShown(v));
        QCOMPARE(v->frame(DatasetViewPanel::MapA).tensorStats.min, 0.25 * (4 * 64 * 64) - 100);

        // Compared with itself: slice 4 of both shows; the pass over every element meets the
        // damaged slice, refused in one sentence, and no verdict is made.
        v->setCompareBandBytes(64 * 64 * 4);
        v->compareWith({damaged, "/stack"});
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && !v->message().isEmpty(); }, 20000));
        QVERIFY2(v->message().contains(damaged) && !v->message().contains('\n'), qPrintable(v->message()));
        QVERIFY2(v->verdictLine().startsWith("NOT JUDGED"), qPrintable(v->verdictLine()));
        QVERIFY(!v->analysis());
        QVERIFY(v->heldReference());  // slice 4 of B was read and shown
    }

    // A big rank-2 dataset is streamed in row bands into one pass: the frame (cells, statistics
    // with std and zeros, histogram, first NaN/Inf) equals the whole read's, only the summary is
    // held, and a NaN and an Inf in two different bands are found. A damaged band is refused.
    void bigRank2DatasetIsStreamedInRowBands() {
        const QString file = dir_.filePath("embedding.h5");
        HostTensor embed = test::ramp(DType::Float32, {300, 40}, 0.125, -700.0);
        embed.setFromDouble(217 * 40 + 13, kNaN);  // band 7 of 10
        embed.setFromDouble(250 * 40, HUGE_VAL);   // band 8
        embed.setFromDouble(3, 0.0);
        HostTensor embedB = HostTensor::copyOf(embed.view());  // a reference 1e-4 away, one element 2% off
        for (int64_t i = 0; i < embedB.numel(); ++i) embedB.setFromDouble(i, embed.getAsDouble(i) * (1 + 1e-4));
        embedB.setFromDouble(123 * 40 + 7, embed.getAsDouble(123 * 40 + 7) * 1.02);
        {
            h5::File f = h5::File::create(file.toStdString());
            h5::writeTensor(f, "/embed", embed);
            h5::writeTensor(f, "/embed_b", embedB);
        }
        DatasetViewPanel* v = window_->datasetView();
        v->view({file, "/embed"});  // 48000 bytes: under the default threshold, read whole
        QVERIFY(waitShown(v));
        QVERIFY(!v->isStreamed());
        const DisplayFrame whole = v->frame(DatasetViewPanel::MapA);

        QVERIFY(viewStreamed(v, {file, "/embed"}, 30 * 40 * 4));  // 30 rows a band: 10 bands
        const DisplayFrame streamed = v->frame(DatasetViewPanel::MapA);
        QCOMPARE(streamed.image, whole.image);
        QCOMPARE(streamed.histogram.counts, whole.histogram.counts);
        const TensorStats want = computeStats(embed.view());
        QCOMPARE(streamed.tensorStats.count, want.count);
        QCOMPARE(streamed.tensorStats.nanCount, 1);
        QCOMPARE(streamed.tensorStats.infCount, 1);
        QCOMPARE(streamed.tensorStats.zeroCount, want.zeroCount);
        QCOMPARE(streamed.tensorStats.min, want.min);
        QCOMPARE(streamed.tensorStats.max, want.max);
        QVERIFY(std::fabs(streamed.tensorStats.mean - want.mean) <= 1e-12 * std::fabs(want.mean));
        QVERIFY(std::fabs(streamed.tensorStats.stddev - want.stddev) <= 1e-12 * want.stddev);
        QCOMPARE(whole.tensorStats.stddev, streamed.tensorStats.stddev);
        QCOMPARE(streamed.firstNonFinite, (std::vector<int64_t>{217, 13}));
        QVERIFY2(v->statsText().contains("10 bands"), qPrintable(v->statsText()));
        QVERIFY(v->statsText().contains("[217, 13]"));

        // Rows along axis 1: streamed again in bands of dataset columns; the first NaN/Inf is
        // the first in the slice's row-major order (display row 0 holds the Inf at [250, 0]).
        SliceControls* controls = v->findChild<SliceControls*>();
        view::SliceSpec t = controls->slice();
        t.rowAxis = 1;
        t.colAxis = 0;
        controls->setSlice(t);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && v->frame(DatasetViewPanel::MapA).planeRows == 40; },
                                20000));
        QVERIFY(v->isStreamed());
        QCOMPARE(v->frame(DatasetViewPanel::MapA).planeCols, 300);
        QCOMPARE(v->frame(DatasetViewPanel::MapA).tensorStats.min, want.min);
        QCOMPARE(v->frame(DatasetViewPanel::MapA).tensorStats.nanCount, 1);
        QCOMPARE(v->frame(DatasetViewPanel::MapA).firstNonFinite, (std::vector<int64_t>{250, 0}));

        // Compared: A, B and their relative error streamed in step from the same bands (none
        // held), the metrics from a band of each side at a time, as the CLI's of the whole pair.
        // A's summary of this slice is kept: the pair's stream reads A for the error only.
        const std::shared_ptr<const view::SliceSummary> aSummary = v->streamedSummary();
        v->setCompareBandBytes(30 * 40 * 4);
        v->compareWith({file, "/embed_b"});
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->isStreamed() && v->isReferenceStreamed());
        QCOMPARE(v->streamedSummary().get(), aSummary.get());
        QVERIFY(!v->heldTensor() && !v->heldReference());
        expectAnalysisOfWholePair(v, embed, embedB, "/embed");
        const HostTensor relError = metrics::errorMaps(embed, embedB, DType::Float32).relError;
        const TensorStats errors = computeStats(relError.view());
        const DisplayFrame& errorFrame = v->frame(DatasetViewPanel::MapError);
        QCOMPARE(errorFrame.tensorStats.count, errors.count);
        QCOMPARE(errorFrame.tensorStats.nanCount, errors.nanCount);
        QCOMPARE(errorFrame.tensorStats.max, errors.max);
        QCOMPARE(v->frame(DatasetViewPanel::MapB).tensorStats.max, computeStats(embedB.view()).max);
        QVERIFY2(v->statsText().contains("streamed in step"), qPrintable(v->statsText()));
        // Another slice of the pair: A's summary is of the old one, so A is summarized again.
        t.rowAxis = 0;
        t.colAxis = 1;
        controls->setSlice(t);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && v->frame(DatasetViewPanel::MapA).planeRows == 300; },
                                20000));
        QVERIFY(v->streamedSummary() && v->streamedSummary().get() != aSummary.get());
        QCOMPARE(v->frame(DatasetViewPanel::MapA).image, whole.image);
        QCOMPARE(v->frame(DatasetViewPanel::MapA).firstNonFinite, (std::vector<int64_t>{217, 13}));
        QCOMPARE(v->frame(DatasetViewPanel::MapB).tensorStats.max, computeStats(embedB.view()).max);

        // Moved on while streaming: the stale stream stops and only the last dataset shows.
        v->view({file, "/embed"});
        v->view({file_, "/ckpt/layer0/bias"});
        QVERIFY(waitShown(v));
        QTest::qWait(200);
        QCOMPARE(v->viewedDataset()->path, QString("/ckpt/layer0/bias"));
        QVERIFY(!v->isStreamed());

        // The damaged slice of damaged_chunk.h5 streamed: refused in one sentence.
        const QString damaged = QStringLiteral(OPSCOPE_SOURCE_DIR "/tests/data/damaged_chunk.h5");
        v->setStreamBandBytes(16 * 64 * 4);
        v->view({damaged, "/stack"});
        QVERIFY(QTest::qWaitFor([&] { return v->isStreamed() && !v->isLoading(); }, 20000));
        view::SliceSpec s = controls->slice();
        s.index[0] = 3;
        controls->setSlice(s);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && !v->message().isEmpty(); }, 20000));
        QVERIFY2(v->message().contains(damaged), qPrintable(v->message()));

        // Across the slices, one row (one slice's chunk) a band: bands are vetted in groups of
        // 1, 2, 4 while the earlier ones are read; slice 3, in the third group, is still refused.
        s.index[0] = 4;
        controls->setSlice(s);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && v->message().isEmpty(); }, 20000));
        v->setStreamBandBytes(64 * 4);
        s.rowAxis = 0;
        s.colAxis = 1;
        s.index = {0, 0, 5};
        controls->setSlice(s);
        QVERIFY(QTest::qWaitFor([&] { return !v->isLoading() && !v->message().isEmpty(); }, 20000));
        QVERIFY2(v->message().contains(damaged) && !v->message().contains('\n'), qPrintable(v->message()));
    }

    // A big rank-1 tensor (a flat optimizer buffer) is streamed in parts of its one row: the frame
    // equals the whole read's (cells, min, max, counts, first NaN; mean and std to rounding), and
    // compared with another, both and their error are streamed, the verdict the CLI's.
    void bigRank1TensorIsStreamedInParts() {
        const QString file = dir_.filePath("flat.h5");
        HostTensor flat = test::ramp(DType::Float32, {12000}, 0.0625, -300.0);
        flat.setFromDouble(9123, kNaN);
        HostTensor flatB = HostTensor::copyOf(flat.view());
        for (int64_t i = 0; i < flatB.numel(); ++i) flatB.setFromDouble(i, flat.getAsDouble(i) * (1 + 3e-4));
        flatB.setFromDouble(9123, kNaN);
        flatB.setFromDouble(77, 5.0);
        {
            h5::File f = h5::File::create(file.toStdString());
            h5::writeTensor(f, "/flat", flat);
            h5::writeTensor(f, "/flat_b", flatB);
        }
        DatasetViewPanel* v = window_->datasetView();
        v->view({file, "/flat"});  // 48000 bytes: read whole
        QVERIFY(waitShown(v));
        QVERIFY(!v->isStreamed() && v->heldTensor());
        const DisplayFrame whole = v->frame(DatasetViewPanel::MapA);

        QVERIFY(viewStreamed(v, {file, "/flat"}, 1000 * 4));  // 12 parts
        const DisplayFrame streamed = v->frame(DatasetViewPanel::MapA);
        QCOMPARE(streamed.image, whole.image);
        QCOMPARE(streamed.histogram.counts, whole.histogram.counts);
        QCOMPARE(streamed.tensorStats.count, whole.tensorStats.count);
        QCOMPARE(streamed.tensorStats.nanCount, 1);
        QCOMPARE(streamed.tensorStats.min, whole.tensorStats.min);
        QCOMPARE(streamed.tensorStats.max, whole.tensorStats.max);
        QVERIFY(std::fabs(streamed.tensorStats.mean - whole.tensorStats.mean) <=
                1e-12 * std::fabs(whole.tensorStats.mean));
        QVERIFY(std::fabs(streamed.tensorStats.stddev - whole.tensorStats.stddev) <= 1e-12 * whole.tensorStats.stddev);
        QCOMPARE(streamed.firstNonFinite, (std::vector<int64_t>{9123}));
        QVERIFY2(v->statsText().contains("12 bands"), qPrintable(v->statsText()));

        v->setCompareBandBytes(2500 * 4);
        v->compareWith({file, "/flat_b"});
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->isStreamed() && v->isReferenceStreamed() && !v->heldTensor() && !v->heldReference());
        expectAnalysisOfWholePair(v, flat, flatB, "/flat");
        const TensorStats errors = computeStats(metrics::errorMaps(flat, flatB, DType::Float32).relError.view());
        QCOMPARE(v->frame(DatasetViewPanel::MapError).tensorStats.max, errors.max);
        QCOMPARE(v->frame(DatasetViewPanel::MapB).tensorStats.max, computeStats(flatB.view()).max);
    }

    // A tensor of a .npy/.pt/.safetensors file is read as an HDF5 dataset is: a big rank-3 one a
    // slice's block at a time, a big rank-2 one streamed in row bands (TensorFile::readBlock reads
    // the bytes each covers), with the same frame as when it is read whole.
    void bigTensorOfATensorFileIsReadBySliceOrStreamed() {
        DatasetViewPanel* v = window_->datasetView();
        const QString stackFile = dir_.filePath("stack.npy");
        import::writeNpy(stackFile.toStdString(), stack(0).view());
        v->setSliceOnlyAbove(1024);  // the stack is 1920 bytes
        v->view({stackFile, ""});
        QVERIFY(waitShown(v));
        QVERIFY(v->holdsSliceOnly());
        QCOMPARE(v->heldTensor()->shape(), (std::vector<int64_t>{1, 8, 10}));
        QVERIFY(v->statsText().contains("only slice [0, :, :] of [6, 8, 10] was read"));
        expectSlice(v, {0, 0, 0}, 1, 2);
        expectStackSliceAcrossAxis1(v, 3);
        QCOMPARE(v->frame(DatasetViewPanel::MapA).firstNonFinite, (std::vector<int64_t>{4, 3, 7}));

        const QString embedFile = dir_.filePath("embed.npy");
        HostTensor embed = test::ramp(DType::Float32, {300, 40}, 0.125, -700.0);
        embed.setFromDouble(217 * 40 + 13, kNaN);
        import::writeNpy(embedFile.toStdString(), embed.view());
        v->setSliceOnlyAbove(1 << 20);
        v->view({embedFile, ""});
        QVERIFY(waitShown(v));
        QVERIFY(!v->isStreamed());
        const DisplayFrame whole = v->frame(DatasetViewPanel::MapA);
        QVERIFY(viewStreamed(v, {embedFile, ""}, 30 * 40 * 4));
        const DisplayFrame streamed = v->frame(DatasetViewPanel::MapA);
        QCOMPARE(streamed.image, whole.image);
        QCOMPARE(streamed.tensorStats.count, whole.tensorStats.count);
        QCOMPARE(streamed.tensorStats.min, whole.tensorStats.min);
        QCOMPARE(streamed.tensorStats.max, whole.tensorStats.max);
        QCOMPARE(streamed.firstNonFinite, (std::vector<int64_t>{217, 13}));
        QVERIFY2(v->statsText().contains("10 bands"), qPrintable(v->statsText()));

        // Compared with a float64 .npy of other values: the pair streamed in bands of the float64
        // side's rows (the larger element), the pass over every element a few rows of each file at a
        // time (TensorFile::readBlock), its verdict the CLI's of the whole pair.
        const QString referenceFile = dir_.filePath("embed_reference.npy");
        HostTensor reference(DType::Float64, {300, 40});
        for (int64_t i = 0; i < reference.numel(); ++i)
            reference.setFromDouble(i, embed.getAsDouble(i) * (1 + 2e-4 * std::sin(double(i))));
        reference.setFromDouble(217 * 40 + 13, 1.0);  // a number where A has its NaN
        import::writeNpy(referenceFile.toStdString(), reference.view());
        v->setCompareBandBytes(7 * 40 * 8);
        v->compareWith({referenceFile, ""});
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QVERIFY(v->isStreamed() && v->isReferenceStreamed());
        expectAnalysisOfWholePair(v, embed, reference, "");
        QCOMPARE(v->frame(DatasetViewPanel::MapB).tensorStats.max, computeStats(reference.view()).max);
        QCOMPARE(v->frame(DatasetViewPanel::MapError).tensorStats.nanCount, 1);  // A's NaN against a number

        // A view of a .pt storage (offset and transposed strides) sliced: the block of the view.
        const QString strided = QStringLiteral(OPSCOPE_SOURCE_DIR "/datasets/msprobe/readers/float32_strided.pt");
        const HostTensor full = import::readTensorFile(strided.toStdString());
        v->setSliceOnlyAbove(64);  // 108 bytes, a slice 36
        v->view({strided, ""});
        QVERIFY(waitShown(v));
        QVERIFY(v->holdsSliceOnly());
        QCOMPARE(v->heldTensor()->shape(), (std::vector<int64_t>{1, 3, 3}));
        for (int64_t i = 0; i < 9; ++i) QCOMPARE(v->heldTensor()->getAsDouble(i), full.getAsDouble(i));
    }

    // Ctrl+F anywhere in the window puts the cursor in the tree's filter box.
    void ctrlFFocusesTheTreeFilter() {
        MainWindow& w = *window_;
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.datasetView()->heatmap(DatasetViewPanel::MapA)->setFocus();
        QVERIFY(!w.fileBrowser()->filterBox()->hasFocus());
        w.fileBrowser()->filterBox()->setText("weight");
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F, Qt::ControlModifier);
        QVERIFY(QTest::qWaitFor([&] { return w.fileBrowser()->filterBox()->hasFocus(); }, 2000));
        QCOMPARE(w.fileBrowser()->filterBox()->selectedText(), QString("weight"));  // typing replaces it
    }

    // "Copy table" on the metrics table: tab-separated, one row per standard and metric.
    void metricsTableCopiesAsTabSeparated() {
        MainWindow& w = *window_;
        w.viewDataset("/ckpt/layer0/bias");
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(waitShown(v));
        w.compareDataset({file_, "/ckpt/layer0/bias_fp16"});
        QVERIFY(QTest::qWaitFor([&] { return v->analysis() && !v->isLoading(); }, 20000));
        QTableView* table = nullptr;
        for (QTableView* t : v->findChildren<QTableView*>())
            if (t->model() == v->metricsModel()) table = t;
        QVERIFY(table);
        QAction* copy = nullptr;
        for (QAction* a : table->actions())
            if (a->objectName() == "copyTable") copy = a;
        QVERIFY(copy);
        copy->trigger();
        const QStringList lines = QApplication::clipboard()->text().trimmed().split('\n');
        QCOMPARE(lines.size(), v->metricsModel()->rowCount() + 1);
        QVERIFY(lines.front().startsWith("metric\t/ckpt/layer0/bias"));
        const QString cosine = QString::fromUtf8(metrics::metricField("cosine").label);
        QVERIFY(!lines.filter(QRegularExpression("^" + cosine + "\t")).isEmpty());
        for (const QString& l : lines) QCOMPARE(l.count('\t'), 1);
    }

private:
    // The stack's slice with rows along axis 0 and columns along axis 2, at `index` of axis 1:
    // moved to, read as its block alone, and shown with the stack's values.
    void expectStackSliceAcrossAxis1(DatasetViewPanel* v, int64_t index) {
        SliceControls* controls = v->findChild<SliceControls*>();
        view::SliceSpec s = controls->slice();
        s.rowAxis = 0;
        s.colAxis = 2;
        s.index = {0, index, 0};
        controls->setSlice(s);
        QVERIFY(waitShown(v));
        QCOMPARE(v->heldTensor()->shape(), (std::vector<int64_t>{6, 1, 10}));
        expectSlice(v, {0, index, 0}, 0, 2);
    }

    // Every cell of the shown slice (the plane through `at` along rowAxis x colAxis) has the
    // stack's value, in the frame's range and in the full-precision readout.
    void expectSlice(DatasetViewPanel* v, std::vector<int64_t> at, int rowAxis, int colAxis) {
        const HostTensor full = stack(0);
        const HeatmapContent content = v->content(DatasetViewPanel::MapA);
        const int64_t rows = full.shape()[rowAxis], cols = full.shape()[colAxis];
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) {
                at[rowAxis] = r;
                at[colAxis] = c;
                const double want = view::elementValue(full.view(), at);
                const QString shown = fullPrecisionValue(content, r, c);
                if (std::isnan(want)) {
                    QVERIFY2(shown.contains("nan", Qt::CaseInsensitive), qPrintable(shown));
                    continue;
                }
                QCOMPARE(shown, QString::fromStdString(view::fullPrecisionText(want, DType::Float32)));
                lo = std::min(lo, want);
                hi = std::max(hi, want);
            }
        QCOMPARE(v->frame(DatasetViewPanel::MapA).tensorStats.min, lo);
        QCOMPARE(v->frame(DatasetViewPanel::MapA).tensorStats.max, hi);
    }

    // The comparison of the GUI and the CLI's of the same pair: every metric, the verdict and why.
    static void expectSameComparison(const ops::Comparison& gui, const ops::Comparison& cli) {
        QVERIFY(gui.compared && cli.compared);
        for (const metrics::MetricField& f : metrics::metricFields()) {
            const auto g = f.value(gui.metrics), c = f.value(cli.metrics);
            QCOMPARE(g.has_value(), c.has_value());
            if (g) QVERIFY2(*g == *c || (std::isnan(*g) && std::isnan(*c)), f.key);
        }
        QCOMPARE(gui.judgement.verdict, cli.judgement.verdict);
        QCOMPARE(gui.judgement.reason, cli.judgement.reason);
    }

    // The view's analysis is ops::compareOutput's of the whole pair under every standard shown.
    static void expectAnalysisOfWholePair(DatasetViewPanel* v, const HostTensor& a, const HostTensor& b,
                                          const std::string& name) {
        const OutputAnalysis& o = v->analysis()->outputs.front();
        const std::vector<metrics::Standard> standards = standardsToShow(metrics::parseStandard("cann"));
        QCOMPARE(o.judgements.size(), standards.size());
        for (std::size_t i = 0; i < standards.size(); ++i) {
            const ops::Comparison cli =
                ops::compareOutput(name, "actual", a, "reference", b, ops::judgedDtype(a), standards[i]);
            if (i == 0) expectSameComparison(v->analysis()->comparisons.front(), cli);
            QCOMPARE(o.judgements[i].reason, cli.judgement.reason);
        }
        const metrics::ErrorSummary e =
            metrics::summarizeErrors(a, b, ops::judgedDtype(a), metrics::logTolerances(-8, 0, 4), 4000);
        QCOMPARE(o.relHistogram.counts, e.relHistogram.counts);
        QCOMPARE(o.sampleRel, e.sampleRel);
        QCOMPARE(o.perAxis.size(), e.perAxis.size());
        QCOMPARE(o.perAxis.back().back().meanRel, e.perAxis.back().back().meanRel);
    }

    // The CLI itself, when it was built beside the tests: the same values in its JSON.
    void compareWithCliJson(const ops::Comparison& gui, const QString& a, const QString& b) {
        const QString cli = QCoreApplication::applicationDirPath() + "/../app/opscope-cli";
        if (!QFileInfo::exists(cli)) return;  // the in-process comparison above still holds
        QProcess p;
        p.start(cli, {"compare", file_ + ":" + a, file_ + ":" + b, "--json"});
        QVERIFY(p.waitForFinished(60000));
        const QJsonObject metricsJson =
            QJsonDocument::fromJson(p.readAllStandardOutput()).object()["comparison"].toObject()["metrics"].toObject();
        QVERIFY(!metricsJson.isEmpty());
        for (const metrics::MetricField& f : metrics::metricFields()) {
            const auto g = f.value(gui.metrics);
            const QJsonValue c = metricsJson[f.key];
            if (!g || std::isnan(*g)) {
                QVERIFY2(c.isNull(), f.key);
                continue;
            }
            QVERIFY2(std::fabs(c.toDouble() - *g) <= 1e-12 * std::max(1.0, std::fabs(*g)), f.key);
        }
    }

    QTemporaryDir dir_;
    QString file_, other_;
    std::unique_ptr<MainWindow> window_;
};

QTEST_MAIN(TestDatasetView)
#include "test_dataset_view.moc"
