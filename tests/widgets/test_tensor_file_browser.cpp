// A tensor file opened in the debugger (File › Open, a drop, the command line): a training
// checkpoint's .pt, a .safetensors, an .npz or an .npy lists its tensors as the tree's datasets
// (keys with '/' under their groups), from its directory alone; a double-click views a key (read
// by block or streamed when big: test_dataset_view.cpp), "Bind to" and a double-click on an
// empty slot bind FILE:KEY, and an HDF5 file opened after it is a tree of HDF5 again.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QMenu>
#include <QTreeView>
#include <QtTest>

#include "main_window.h"
#include "models/h5_tree_model.h"
#include "opscope/import/tensor_file.h"
#include "views/argument_form.h"
#include "views/dataset_view_panel.h"
#include "views/file_browser_panel.h"
#include "widget_test_support.h"
#include "window_test_support.h"

using namespace opscope;
using namespace opscope::gui;

namespace {

QString reader(const char* name) { return QStringLiteral(OPSCOPE_SOURCE_DIR "/datasets/msprobe/readers/") + name; }

QModelIndex viewIndex(FileBrowserPanel& panel, const QString& path) { return panel.viewIndexForPath(path); }

// The main window on a reader fixture, and the tree's row of `path` in it.
std::pair<std::unique_ptr<MainWindow>, QModelIndex> windowOn(const char* file, const QString& path) {
    std::unique_ptr<MainWindow> window = test::shownWindowWith(reader(file));
    const QModelIndex row = window ? viewIndex(*window->fileBrowser(), path) : QModelIndex();
    return {std::move(window), row};
}

}  // namespace

class TestTensorFileBrowser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { caseFile_ = test::useTestSettingsAndCaseFile(dir_.path()); }

    // checkpoint.pth is {"model": {...}, "optimizer": {"state": {0: {...}}}}: its keys' groups
    // are the tree's groups, each key a dataset with its dtype, shape and bytes; no cases.
    void aCheckpointListsItsTensorsUnderTheirGroups() {
        DebugContext ctx;
        FileBrowserPanel panel(&ctx);
        auto tester = std::make_unique<QAbstractItemModelTester>(
            panel.treeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY2(ctx.openFile(reader("checkpoint.pth"), &error), qPrintable(error));
        QVERIFY(ctx.isTensorFile());
        QVERIFY(ctx.cases().empty());
        H5TreeModel* tree = panel.treeModel();
        QCOMPARE(tree->rowCount(), 2);
        QCOMPARE(tree->index(0, H5TreeModel::Name).data().toString(), QString("model"));
        QCOMPARE(tree->index(1, H5TreeModel::Name).data().toString(), QString("optimizer"));
        const QModelIndex conv = tree->indexForPath("model/conv.weight");
        QVERIFY(conv.isValid());
        QCOMPARE(conv.data().toString(), QString("conv.weight"));
        QVERIFY(conv.data(H5TreeModel::IsDatasetRole).toBool());
        QCOMPARE(conv.siblingAtColumn(H5TreeModel::Type).data().toString(), QString("float32"));
        QCOMPARE(conv.siblingAtColumn(H5TreeModel::Shape).data().toString(), QString("[2, 3, 5]"));
        QCOMPARE(conv.siblingAtColumn(H5TreeModel::Storage).data().toString(), QString("120 B"));
        QVERIFY(tree->indexForPath("optimizer/state/0/exp_avg").isValid());
        QVERIFY(!tree->indexForPath("model/missing").isValid());
        QVERIFY(panel.findChild<QLabel*>()->text().contains("4 tensor(s)"));

        // An HDF5 file opened after it: the tree is the HDF5 file's again. (Without the tester:
        // its own check of a reset fetches the lazily listed HDF5 groups, which it then takes
        // for rows inserted while the reset is in flight.)
        tester.reset();
        QVERIFY(ctx.openFile(caseFile_));
        QVERIFY(!ctx.isTensorFile());
        QVERIFY(!tree->indexForPath("model/conv.weight").isValid());
        QVERIFY(!ctx.cases().empty());
    }

    // Double-click views FILE:KEY; the menu offers View, Compare and Bind to, not the HDF5
    // group compare; a bound key's origin is FILE:KEY, read by the same reader as the CLI's.
    void aKeyIsViewedAndBoundAsFileKey() {
        const auto [window, embed] = windowOn("model.safetensors", "embed.weight");
        QVERIFY(window && embed.isValid());
        FileBrowserPanel& panel = *window->fileBrowser();
        panel.treeView()->setCurrentIndex(embed);
        QTest::keyClick(panel.treeView(), Qt::Key_Return);
        DatasetViewPanel* v = window->datasetView();
        QVERIFY(QTest::qWaitFor([&] { return v->hasTensor() && !v->isLoading(); }, 20000));
        QCOMPARE(v->viewedDataset()->path, QString("embed.weight"));
        QVERIFY(v->title().contains("model.safetensors:embed.weight"));
        const HostTensor want = import::readTensorFile(reader("model.safetensors").toStdString() + ":embed.weight");
        QCOMPARE(v->heldTensor()->toDoubles(), want.toDoubles());

        QVERIFY(window->context()->setOperator("aclnnRmsNormGrad"));
        QMenu menu;
        panel.fillTreeMenu(&menu, viewIndex(panel, "embed.weight"));
        QVERIFY(test::menuAction(menu, "viewDataset"));
        QMenu groupMenu;
        panel.fillTreeMenu(&groupMenu, viewIndex(panel, "embed.weight").parent());  // the root: no group row
        QVERIFY(groupMenu.findChild<QAction*>("compareGroupWithFile") == nullptr);
        test::menuAction(menu, "bindTo_x")->trigger();
        DebugContext& ctx = *window->context();
        QVERIFY(QTest::qWaitFor([&] { return ctx.arguments().tensors.count("x") == 1; }, 10000));
        QCOMPARE(ctx.arguments().tensors.at("x").origin, reader("model.safetensors").toStdString() + ":embed.weight");
        QCOMPARE(ctx.arguments().tensors.at("x").tensor.toDoubles(), want.toDoubles());
    }

    // A file of one unnamed tensor (.npy) lists it under the file's name; viewing it and
    // binding it (a double-click on an empty slot binds the tree's selection) read the file.
    void aFileOfOneTensorListsItUnderItsName() {
        const auto [window, only] = windowOn("float32_c.npy", "float32_c.npy");
        QVERIFY(window && only.isValid());
        FileBrowserPanel& panel = *window->fileBrowser();
        QCOMPARE(only.siblingAtColumn(H5TreeModel::Shape).data().toString(), QString("[4, 6, 5]"));
        window->viewDataset("float32_c.npy");
        DatasetViewPanel* v = window->datasetView();
        QVERIFY(QTest::qWaitFor([&] { return v->hasTensor() && !v->isLoading(); }, 20000));
        QCOMPARE(v->viewedDataset()->path, QString());
        const HostTensor want = import::readTensorFile(reader("float32_c.npy").toStdString());
        QCOMPARE(v->heldTensor()->toDoubles(), want.toDoubles());

        DebugContext& ctx = *window->context();
        QVERIFY(ctx.setOperator("aclnnRmsNormGrad"));
        panel.treeView()->setCurrentIndex(only);
        QTest::mouseDClick(window->argumentForm()->editorFor("dy"), Qt::LeftButton);
        QVERIFY(QTest::qWaitFor([&] { return ctx.arguments().tensors.count("dy") == 1; }, 10000));
        QCOMPARE(ctx.arguments().tensors.at("dy").origin, reader("float32_c.npy").toStdString());
    }

    // A damaged tensor file is one sentence naming it; the open file stays open.
    void aDamagedTensorFileIsOneSentence() {
        DebugContext ctx;
        FileBrowserPanel panel(&ctx);
        QVERIFY(ctx.openFile(reader("model.safetensors")));
        QString error;
        QVERIFY(!ctx.openFile(reader("bad_not_zip.pt"), &error));
        QVERIFY2(error.contains("bad_not_zip.pt") && !error.contains('\n'), qPrintable(error));
        QVERIFY(ctx.isTensorFile());
        QVERIFY(panel.treeModel()->indexForPath("embed.weight").isValid());
    }

private:
    QTemporaryDir dir_;
    QString caseFile_;
};

QTEST_MAIN(TestTensorFileBrowser)
#include "test_tensor_file_browser.moc"
