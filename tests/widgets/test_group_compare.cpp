// The Group compare tab: every dataset below a group of the open file against the same group of
// another file, with the verdicts `opscope-cli compare A.h5:/g B.h5:/g` gives (both run
// ops::compareTensorSets), rows as keys are compared, Cancel and a second compare that leave no
// row of the first, a sentence for a group the other file lacks, and a row opened as a pair in
// the Dataset view.
#include <QFile>
#include <QMenu>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <set>

#include "main_window.h"
#include "models/set_comparison_model.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/ops/tensor_sets.h"
#include "views/dataset_view_panel.h"
#include "views/file_browser_panel.h"
#include "views/group_compare_panel.h"
#include "widget_test_support.h"
#include "window_test_support.h"

using namespace opscope;
using namespace opscope::gui;

namespace {

HostTensor weights(double noise);

// /ckpt of a checkpoint: a weight perturbed by `noise`, a bias as is, and `extra` only when asked;
// /many: `manyKeys` small datasets (a long compare to cancel).
QString addCheckpoint(const QString& file, double noise, const char* extra, int manyKeys) {
    h5::File f = h5::File::openReadWrite(file.toStdString());
    h5::writeTensor(f, "/ckpt/layer0/weight", weights(noise));
    h5::writeTensor(f, "/ckpt/layer0/bias", test::ramp(DType::Float16, {16}, 0.25, 0.01));
    if (extra) h5::writeTensor(f, std::string("/ckpt/") + extra, test::ramp(DType::Float32, {4}, 1.0, 0.0));
    for (int k = 0; k < manyKeys; ++k)
        h5::writeTensor(f, "/many/t" + std::to_string(k), test::ramp(DType::Float32, {64}, 1.0, double(k)));
    return file;
}

// A .safetensors of float32 tensors, in key order.
QString writeSafetensors(const QString& path, const std::vector<std::pair<std::string, HostTensor>>& tensors) {
    std::string header = "{", data;
    for (const auto& [key, t] : tensors) {
        std::string shape;
        for (int64_t n : t.shape()) shape += (shape.empty() ? "" : ",") + std::to_string(n);
        header += (header.size() > 1 ? "," : "") + std::string("\"") + key + "\":{\"dtype\":\"F32\",\"shape\":[" +
                  shape + "],\"data_offsets\":[" + std::to_string(data.size()) + "," +
                  std::to_string(data.size() + t.nbytes()) + "]}";
        data.append(static_cast<const char*>(t.data()), t.nbytes());
    }
    header += "}";
    std::string prefix(8, '\0');
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly)) return {};
    const std::string bytes = prefix + header + data;
    out.write(bytes.data(), static_cast<qint64>(bytes.size()));
    return path;
}

HostTensor weights(double noise) {
    HostTensor w = test::ramp(DType::Float32, {8, 16}, 0.5, 0.1);
    for (int64_t i = 0; i < w.numel(); ++i) w.setFromDouble(i, w.getAsDouble(i) * (1 + noise * std::cos(double(i))));
    return w;
}

bool waitFinished(GroupComparePanel* p) {
    return QTest::qWaitFor([&] { return !p->isRunning(); }, 60000);
}

}  // namespace

class TestGroupCompare : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        const auto [first, other] = test::useTestSettingsAndTwoCaseFiles(dir_.path());
        file_ = addCheckpoint(first, 0.0, "only_a", 400);
        other_ = addCheckpoint(other, 1e-2, "only_b", 400);
    }

    void init() { QVERIFY(window_ = test::shownWindowWith(file_)); }
    void cleanup() { window_.reset(); }

    // The tree's right-click menu offers it on groups (and not on datasets); the rows are the
    // CLI's comparisons, field for field.
    void aGroupComparesAsTheCliDoes() {
        MainWindow& w = *window_;
        QMenu groupMenu, datasetMenu;
        w.fileBrowser()->fillTreeMenu(&groupMenu, w.fileBrowser()->viewIndexForPath("/ckpt"));
        w.fileBrowser()->fillTreeMenu(&datasetMenu, w.fileBrowser()->viewIndexForPath("/ckpt/layer0/bias"));
        QVERIFY(test::menuAction(groupMenu, "compareGroupWithFile"));
        QVERIFY(!test::menuAction(datasetMenu, "compareGroupWithFile"));

        w.compareGroup("/ckpt", other_);
        GroupComparePanel* p = w.groupCompare();
        QCOMPARE(w.findChild<QTabWidget*>("CentreTabs")->currentWidget(), p);
        QVERIFY(waitFinished(p));
        QVERIFY2(p->error().isEmpty(), qPrintable(p->error()));

        const std::vector<ops::Comparison> cli = ops::compareTensorSets(
            ops::hdf5GroupSet(file_.toStdString(), "/ckpt", "a"), ops::hdf5GroupSet(other_.toStdString(), "/ckpt", "b"),
            metrics::parseStandard("cann"));
        const std::vector<ops::Comparison>& shown = p->model()->comparisons();
        QCOMPARE(shown.size(), cli.size());
        QCOMPARE(shown.size(), std::size_t{4});  // layer0/bias, layer0/weight, only_a, only_b
        for (std::size_t i = 0; i < cli.size(); ++i) {
            QCOMPARE(shown[i].output, cli[i].output);
            QCOMPARE(shown[i].compared, cli[i].compared);
            QCOMPARE(int(shown[i].judgement.verdict), int(cli[i].judgement.verdict));
            QCOMPARE(shown[i].metrics.maxAbsError, cli[i].metrics.maxAbsError);
        }
        SetComparisonModel* m = p->model();
        auto row = [&](const std::string& key) {
            for (int r = 0; r < m->rowCount(); ++r)
                if (m->comparison(r).output == key) return r;
            return -1;
        };
        QVERIFY(m->comparison(row("layer0/bias")).judgement.passed());
        QVERIFY(!m->comparison(row("layer0/weight")).judgement.passed());  // 1% apart
        QCOMPARE(m->data(m->index(row("only_a"), SetComparisonModel::Verdict), Qt::DisplayRole).toString(),
                 QString("not judged"));
        QVERIFY(m->data(m->index(row("only_b"), SetComparisonModel::Why), Qt::DisplayRole)
                    .toString()
                    .contains("has no 'only_b'"));
        QCOMPARE(m->failedCount(), 3);
        QVERIFY(p->status().startsWith("4 tensors: 1 passed, 3 failed or not compared"));
    }

    // Another standard judges every key again, as `opscope-cli compare --standard` would: the
    // weight 1% apart fails cann and passes rtol=0.05.
    void anotherStandardJudgesEveryKeyAgain() {
        MainWindow& w = *window_;
        w.compareGroup("/ckpt", other_);
        GroupComparePanel* p = w.groupCompare();
        QVERIFY(waitFinished(p));
        auto weightPassed = [&] {
            for (const ops::Comparison& c : p->model()->comparisons())
                if (c.output == "layer0/weight") return c.judgement.passed();
            return false;
        };
        QVERIFY(!weightPassed());
        p->setStandard("rtol=0.05,atol=0");
        QVERIFY(waitFinished(p));
        QVERIFY(weightPassed());
        QVERIFY(p->status().contains("standard: rtol=0.05"));
        const std::vector<ops::Comparison> cli = ops::compareTensorSets(
            ops::hdf5GroupSet(file_.toStdString(), "/ckpt", "a"), ops::hdf5GroupSet(other_.toStdString(), "/ckpt", "b"),
            metrics::parseStandard("rtol=0.05,atol=0"));
        QCOMPARE(p->model()->comparisons().size(), cli.size());
        for (std::size_t i = 0; i < cli.size(); ++i)
            QCOMPARE(int(p->model()->comparisons()[i].judgement.verdict), int(cli[i].judgement.verdict));
    }

    // Activating a row views that pair in the Dataset view, compared under the tab's standard.
    void aRowOpensThePairInTheDatasetView() {
        MainWindow& w = *window_;
        w.compareGroup("/ckpt", other_);
        GroupComparePanel* p = w.groupCompare();
        p->setStandard("dual-thousandth");
        QVERIFY(waitFinished(p));
        QTableView* table = p->table();
        QModelIndex weight;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            if (table->model()->index(r, 0).data().toString() == "layer0/weight") weight = table->model()->index(r, 0);
        QVERIFY(weight.isValid());
        Q_EMIT table->activated(weight);
        DatasetViewPanel* v = w.datasetView();
        QCOMPARE(w.findChild<QTabWidget*>("CentreTabs")->currentWidget(), v);
        QVERIFY(QTest::qWaitFor([&] { return v->isComparing() && !v->isLoading(); }, 20000));
        QCOMPARE(v->viewedDataset()->path, QString("/ckpt/layer0/weight"));
        QVERIFY(v->analysis());
        QCOMPARE(QString::fromStdString(v->analysis()->standard), p->standard());  // judged as its row was
    }

    // Cancel stops between keys; nothing of it lands afterwards. A second compare started while
    // one runs owns the table alone.
    void cancelAndASecondCompareLeaveNoStaleRow() {
        MainWindow& w = *window_;
        GroupComparePanel* p = w.groupCompare();
        w.compareGroup("/many", other_);
        QVERIFY(QTest::qWaitFor([&] { return p->model()->rowCount() > 0; }, 20000));
        p->cancel();
        QVERIFY(!p->isRunning());
        const int atCancel = p->model()->rowCount();
        QVERIFY(atCancel < 400);
        QThreadPool::globalInstance()->waitForDone();
        QTest::qWait(100);  // rows already posted to the GUI thread are delivered (and dropped)
        QCOMPARE(p->model()->rowCount(), atCancel);
        QVERIFY(p->status().contains("cancelled"));

        w.compareGroup("/many", other_);
        QVERIFY(QTest::qWaitFor([&] { return p->model()->rowCount() > 0; }, 20000));
        w.compareGroup("/ckpt", other_);
        QVERIFY(waitFinished(p));
        QThreadPool::globalInstance()->waitForDone();
        QTest::qWait(100);
        QCOMPARE(p->model()->rowCount(), 4);
        const std::set<std::string> ckpt{"layer0/bias", "layer0/weight", "only_a", "only_b"};
        for (const ops::Comparison& c : p->model()->comparisons()) QVERIFY2(ckpt.count(c.output), c.output.c_str());
    }

    // Two .safetensors checkpoints (File > Compare Checkpoints…): their keys, the CLI's verdicts,
    // and a row opened as the pair in the Dataset view, read by the tensor-file readers.
    void twoSafetensorsCheckpointsCompareKeyByKey() {
        const QString a =
            writeSafetensors(dir_.filePath("a.safetensors"),
                             {{"layer.weight", weights(0)}, {"layer.bias", test::ramp(DType::Float32, {16}, 1, 0)}});
        const QString b =
            writeSafetensors(dir_.filePath("b.safetensors"),
                             {{"layer.weight", weights(1e-2)}, {"layer.bias", test::ramp(DType::Float32, {16}, 1, 0)}});
        MainWindow& w = *window_;
        GroupComparePanel* p = w.groupCompare();
        p->compare({a, {}}, {b, {}});
        QVERIFY(waitFinished(p));
        QVERIFY2(p->error().isEmpty(), qPrintable(p->error()));
        const std::vector<ops::Comparison> cli = ops::compareTensorSets(
            ops::tensorFileSet(a.toStdString()), ops::tensorFileSet(b.toStdString()), metrics::parseStandard("cann"));
        const std::vector<ops::Comparison>& shown = p->model()->comparisons();
        QCOMPARE(shown.size(), std::size_t{2});
        for (std::size_t i = 0; i < cli.size(); ++i) {
            QCOMPARE(shown[i].output, cli[i].output);
            QCOMPARE(int(shown[i].judgement.verdict), int(cli[i].judgement.verdict));
        }
        QVERIFY(p->status().startsWith("2 tensors: 1 passed, 1 failed"));
        QTableView* table = p->table();
        QModelIndex weight;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            if (table->model()->index(r, 0).data().toString() == "layer.weight") weight = table->model()->index(r, 0);
        Q_EMIT table->activated(weight);
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(QTest::qWaitFor([&] { return v->isComparing() && !v->isLoading(); }, 20000));
        QCOMPARE(v->viewedDataset()->label(), QString("a.safetensors:layer.weight"));
        QVERIFY(v->analysis());
    }

    // Two folders of tensor files (File > Compare Tensor Folders…): a row a file, and a row opened
    // as that file's tensor against the other folder's.
    void twoFoldersCompareFileByFile() {
        QDir(dir_.path()).mkpath("run_a/sub");
        QDir(dir_.path()).mkpath("run_b/sub");
        for (const char* run : {"run_a", "run_b"}) {
            const QString root = dir_.filePath(run);
            writeSafetensors(root + "/sub/layer.safetensors", {{"w", weights(run[4] == 'a' ? 0 : 1e-2)}});
            writeSafetensors(root + "/bias.safetensors", {{"b", test::ramp(DType::Float32, {16}, 1, 0)}});
        }
        MainWindow& w = *window_;
        GroupComparePanel* p = w.groupCompare();
        p->compare({dir_.filePath("run_a"), {}}, {dir_.filePath("run_b"), {}});
        QVERIFY(waitFinished(p));
        QVERIFY2(p->error().isEmpty(), qPrintable(p->error()));
        QCOMPARE(p->model()->rowCount(), 2);
        QCOMPARE(p->model()->comparison(1).output, std::string("sub/layer.safetensors"));
        QVERIFY(!p->model()->comparison(1).judgement.passed());
        QTableView* table = p->table();
        for (int r = 0; r < table->model()->rowCount(); ++r)
            if (table->model()->index(r, 0).data().toString() == "sub/layer.safetensors")
                Q_EMIT table->activated(table->model()->index(r, 0));
        DatasetViewPanel* v = w.datasetView();
        QVERIFY(QTest::qWaitFor([&] { return v->isComparing() && !v->isLoading(); }, 20000));
        QCOMPARE(v->viewedDataset()->file, dir_.filePath("run_a") + "/sub/layer.safetensors");
        QVERIFY(v->analysis());
    }

    // A group the other file lacks is a sentence in the tab, not an empty table.
    void aMissingGroupIsASentence() {
        MainWindow& w = *window_;
        w.compareGroup("/ckpt", other_, "/nowhere");
        GroupComparePanel* p = w.groupCompare();
        QVERIFY(waitFinished(p));
        QVERIFY(p->error().contains("no group '/nowhere'"));
        QCOMPARE(p->model()->rowCount(), 0);
    }

private:
    QTemporaryDir dir_;
    QString file_, other_;
    std::unique_ptr<MainWindow> window_;
};

QTEST_MAIN(TestGroupCompare)
#include "test_group_compare.moc"
