// The debugger with real device data: an msprobe dump folder opens through the CLI's importer
// (its calls listed as cases, the calls not imported in the Log panel, the device verdict in the
// metrics panel), and a tensor argument binds from a .npy file.
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QThreadPool>
#include <QToolButton>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "main_window.h"
#include "palette.h"
#include "session/debug_context.h"
#include "session/dump_import.h"
#include "session/dump_import_cache.h"
#include "views/argument_form.h"
#include "views/file_browser_panel.h"
#include "views/import_progress.h"
#include "views/log_panel.h"
#include "views/metrics_panel.h"
#include "views/tensor_slot_widget.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

namespace {
const QString kDumps = QStringLiteral(OPSCOPE_SOURCE_DIR "/datasets/msprobe/");

// Opens a dump folder in the window and waits for its import: the case file, "" when none came.
QString openDump(MainWindow& w, const char* folder) {
    QSignalSpy opened(&w, &MainWindow::dumpFolderOpened);
    w.openDumpFolder(kDumps + folder);
    return opened.wait(60000) ? opened.last().at(0).toString() : QString();
}

// Runs the prepared call to the end (F5); its analysis, or nullptr when none came.
AnalysisPtr runToTheEnd(MainWindow& w) {
    DebugContext* ctx = w.context();
    w.action("continue")->trigger();
    if (!QTest::qWaitFor([&] { return ctx->analysis() != nullptr; }, 60000)) return nullptr;
    test::waitIdle(*ctx);
    return ctx->analysis();
}

// Loads a call of the open dump, runs it to the end and returns its device verdict.
ops::DeviceVerdict::Kind verdictOf(MainWindow& w, const char* call) {
    if (!test::loadPrepared(*w.context(), call, 60000)) return ops::DeviceVerdict::Kind::NoDevice;
    const AnalysisPtr a = runToTheEnd(w);
    return a ? a->device.kind : ops::DeviceVerdict::Kind::NoDevice;
}

// Prepares the call as the form now holds it and runs it to the end.
AnalysisPtr prepareAndRun(MainWindow& w) {
    DebugContext* ctx = w.context();
    ctx->prepare();
    if (!QTest::qWaitFor([&] { return ctx->isPrepared(); }, 60000)) return nullptr;
    return runToTheEnd(w);
}
}  // namespace

class TestMsprobeGui : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        qputenv("XDG_CACHE_HOME", cache_.path().toUtf8());  // the imported case files go here
        file_ = test::useTestSettingsAndCaseFile(dir_.path());
    }

    void openingADumpFolderListsItsCallsAndTheCallsNotImported() {
        MainWindow w(nullptr, false);
        w.show();
        const QString caseFile = openDump(w, "dump_l1");
        QVERIFY(!caseFile.isEmpty());
        QVERIFY2(caseFile.startsWith(cache_.path()), qPrintable(caseFile));
        QCOMPARE(caseFile, dumpCaseFilePath(kDumps + "dump_l1"));
        DebugContext* ctx = w.context();
        QCOMPARE(ctx->filePath(), QFileInfo(caseFile).absoluteFilePath());
        std::vector<std::string> paths;
        for (const CaseEntry& e : ctx->cases()) paths.push_back(e.path);
        QCOMPARE(paths.size(), std::size_t{16});
        QVERIFY(std::count(paths.begin(), paths.end(), "/msprobe/step0/rank0/Functional.conv2d.4") == 1);
        const QString log = w.logPanel()->toPlainText();
        QVERIFY2(log.contains("Imported 16 of 20 supported calls"), qPrintable(log));
        QVERIFY2(log.contains("; float32 convolutions with HF32 operands (cubeMathType 3: torch_npu's default"),
                 qPrintable(log));
        QVERIFY2(log.contains("step0/rank0/Functional.conv2d.3: statistics only"), qPrintable(log));
        QVERIFY2(log.contains("step0/rank0/Functional.group_norm.2: missing file"), qPrintable(log));

        // The wrong device gradient: the metrics panel says the device fails (ops::deviceVerdict).
        QVERIFY(test::loadPrepared(*ctx, "/msprobe/step0/rank0/Functional.conv2d.4", 60000));
        w.action("continue")->trigger();
        QVERIFY(QTest::qWaitFor([&] { return ctx->analysis() != nullptr; }, 60000));
        QCOMPARE(ctx->analysis()->device.kind, ops::DeviceVerdict::Kind::DeviceFails);
        QVERIFY(ctx->analysis()->device.line.find("npu/gradWeight") != std::string::npos);
        QVERIFY(test::waitIdle(*ctx));
        // The banner leads with the failing device and is never a green PASS for this call, though
        // OpScope's own outputs pass (the CLI exits 1 for it).
        const QString banner = w.metricsPanel()->verdictText();
        QVERIFY2(banner.startsWith("Device fails: npu/gradWeight"), qPrintable(banner));
        QVERIFY2(banner.contains("\nopscope: PASS under"), qPrintable(banner));
        QVERIFY2(w.metricsPanel()->verdictBackground() == verdictBackground(metrics::Verdict::Fail),
                 qPrintable(banner));
        // ... and offers the reproducer for the device's owner (docs/REPRO.md), for this call only.
        auto* repro = w.metricsPanel()->findChild<QPushButton*>("exportReproButton");
        QVERIFY(repro && !repro->isHidden());
        // A call the device gets right keeps the plain banner.
        QVERIFY(test::loadPrepared(*ctx, "/msprobe/step0/rank0/Functional.conv2d.1", 60000));
        w.action("continue")->trigger();
        QVERIFY(QTest::qWaitFor([&] { return ctx->analysis() != nullptr; }, 60000));
        QVERIFY(test::waitIdle(*ctx));
        QCOMPARE(ctx->analysis()->device.kind, ops::DeviceVerdict::Kind::Agree);
        const QString agree = w.metricsPanel()->verdictText();
        QVERIFY2(agree.startsWith("PASS under") && agree.contains("\nemulation and device agree"), qPrintable(agree));
        QVERIFY(w.metricsPanel()->verdictBackground() == verdictBackground(metrics::Verdict::Pass));
        QVERIFY(repro->isHidden());
    }

    // The device's gradients belong to the call it ran. Edited in the form (an attribute, a
    // tensor bound), the call is another one: the banner said "Device fails" for a device that
    // never ran these arguments. Now the device is not judged and the banner says why; undone,
    // the verdict is back.
    void anEditedCallDoesNotJudgeTheDevice() {
        MainWindow w(nullptr, false);
        w.show();
        QVERIFY(!openDump(w, "dump_aten").isEmpty());
        DebugContext* ctx = w.context();
        const char* call = "/msprobe/step0/rank0/Aten.grid_sampler_2d_backward.default.1";
        QCOMPARE(verdictOf(w, call), ops::DeviceVerdict::Kind::DeviceFails);
        QVERIFY(ctx->changedFromCase().empty());

        const ParamValue border = ctx->arguments().attributes.at("paddingMode");
        ctx->setAttribute("paddingMode", int64_t{0});  // zeros: the device ran border
        QCOMPARE(ctx->changedFromCase(), std::vector<std::string>{"paddingMode"});
        const AnalysisPtr edited = prepareAndRun(w);
        QVERIFY(edited);
        QCOMPARE(edited->device.kind, ops::DeviceVerdict::Kind::NoDevice);
        const QString banner = w.metricsPanel()->verdictText();
        QVERIFY2(!banner.contains("Device fails"), qPrintable(banner));
        QVERIFY2(banner.contains("Changed since the case was loaded: paddingMode"), qPrintable(banner));
        QVERIFY2(banner.contains("the device is not judged"), qPrintable(banner));
        auto* repro = w.metricsPanel()->findChild<QPushButton*>("exportReproButton");
        QVERIFY(repro && repro->isHidden());

        // Back to the arguments the device ran: judged again.
        ctx->setAttribute("paddingMode", border);
        QVERIFY(ctx->changedFromCase().empty());
        const AnalysisPtr asLoaded = prepareAndRun(w);
        QVERIFY(asLoaded);
        QCOMPARE(asLoaded->device.kind, ops::DeviceVerdict::Kind::DeviceFails);
        QVERIFY(!w.metricsPanel()->verdictText().contains("Changed since"));
    }

    // File > "Dumps Ran with Conv HF32": turning it off imports the open dump again with
    // cubeMathType 0 (never its cached import of the other setting), and a float32 convolution
    // the device ran in HF32 is then "device ran other settings" on an amber banner, not a
    // failing device. Turned back on, the call agrees again.
    void theConvHf32SettingReimportsTheOpenDump() {
        MainWindow w(nullptr, false);
        w.show();
        QAction* hf32 = w.findChild<QAction*>("convAllowHf32");
        QVERIFY(hf32 && hf32->isCheckable() && hf32->isChecked());
        QSignalSpy opened(&w, &MainWindow::dumpFolderOpened);
        w.openDumpFolder(kDumps + "dump_l1");
        QVERIFY(opened.wait(60000));
        QCOMPARE(verdictOf(w, "/msprobe/step0/rank0/Functional.conv2d.1"), ops::DeviceVerdict::Kind::Agree);

        hf32->setChecked(false);
        QVERIFY(opened.wait(60000));
        QVERIFY2(w.logPanel()->toPlainText().contains("allow_hf32 = False"), qPrintable(w.logPanel()->toPlainText()));
        QCOMPARE(verdictOf(w, "/msprobe/step0/rank0/Functional.conv2d.1"), ops::DeviceVerdict::Kind::OtherSettings);
        const QString banner = w.metricsPanel()->verdictText();
        QVERIFY2(banner.startsWith("Device ran other settings: npu/gradInput"), qPrintable(banner));
        QVERIFY2(banner.contains("allow_hf32 = True"), qPrintable(banner));
        QVERIFY(w.metricsPanel()->verdictBackground() == verdictBackground(metrics::Verdict::Warning));
        QCOMPARE(verdictOf(w, "/msprobe/step0/rank0/Functional.conv2d.4"), ops::DeviceVerdict::Kind::DeviceFails);

        hf32->setChecked(true);
        QVERIFY(opened.wait(60000));
        QCOMPARE(verdictOf(w, "/msprobe/step0/rank0/Functional.conv2d.1"), ops::DeviceVerdict::Kind::Agree);
    }

    // File > "Dumps Came From": the Atlas training series imports the open dump again with fp16
    // operands, a case of it switches the emulated product to that series, and the fixtures' A2
    // device then reads "device ran other settings" naming the A2. Back to A2, it agrees on A2.
    void theDumpsProductReimportsAndItsCasesRunOnIt() {
        MainWindow w(nullptr, false);
        w.show();
        QAction* training = w.findChild<QAction*>("dumpProduct_training");
        QAction* a2 = w.findChild<QAction*>("dumpProduct_a2");
        QVERIFY(training && a2 && a2->isChecked() && !training->isChecked());
        QSignalSpy opened(&w, &MainWindow::dumpFolderOpened);
        w.openDumpFolder(kDumps + "dump_l1");
        QVERIFY(opened.wait(60000));
        DebugContext* ctx = w.context();
        QCOMPARE(ctx->product(), Product::AtlasA2);

        training->trigger();
        QVERIFY(opened.wait(60000));
        QVERIFY(training->isChecked() && !a2->isChecked());
        const QList<QLabel*> labels = w.findChildren<QLabel*>();  // the File panel's title names the device
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel* l) {
            return l->text().contains("case(s) · from the Atlas training series (Ascend 910)");
        }));
        QCOMPARE(verdictOf(w, "/msprobe/step0/rank0/Functional.conv2d.1"), ops::DeviceVerdict::Kind::OtherSettings);
        QCOMPARE(ctx->product(), Product::AtlasTraining);
        const QString log = w.logPanel()->toPlainText();
        QVERIFY2(log.contains("imported as from the Atlas training series"), qPrintable(log));
        QVERIFY2(log.contains("warning: 2 calls hold bfloat16 tensors"), qPrintable(log));
        QVERIFY2(log.contains("Functional.conv2d.1 was recorded on the Atlas training series"), qPrintable(log));
        const QString banner = w.metricsPanel()->verdictText();
        QVERIFY2(banner.contains("import it with --product a2"), qPrintable(banner));
        // A file that records no product runs on the user's product again, not on the dump's.
        QVERIFY(w.openFile(file_));
        QVERIFY(test::loadPrepared(*ctx, "/gn/basic"));
        QCOMPARE(ctx->product(), Product::AtlasA2);
        QVERIFY(w.logPanel()->toPlainText().contains("/gn/basic records no product: emulating the Atlas A2"));

        w.openDumpFolder(kDumps + "dump_l1");
        QVERIFY(opened.wait(60000));
        a2->trigger();
        QVERIFY(opened.wait(60000));
        QCOMPARE(verdictOf(w, "/msprobe/step0/rank0/Functional.conv2d.1"), ops::DeviceVerdict::Kind::Agree);
        QCOMPARE(ctx->product(), Product::AtlasA2);
    }

    void aFolderWithoutADumpCannotBeImported() {
        QVERIFY_THROWS_EXCEPTION(std::exception, importDumpFolderOnWorker(kDumps + "readers"));
    }

    // The status bar follows an import (calls done of all) and its Cancel stops it: nothing is
    // written, the window keeps its file, and the Log says so.
    void cancellingAnImportWritesNothing() {
        MainWindow w(nullptr, false);
        w.show();
        QVERIFY(w.openFile(file_));
        const QString before = w.context()->filePath();
        const QString dir = copyOfDump("dump_cancelled");
        auto* progress = w.findChild<ImportProgress*>("importProgress");
        QVERIFY(progress);
        QVERIFY(!progress->isVisible());
        QSignalSpy failed(&w, &MainWindow::dumpFolderFailed), opened(&w, &MainWindow::dumpFolderOpened);
        w.openDumpFolder(dir);
        QVERIFY(progress->isVisible());
        QVERIFY2(progress->text().startsWith("Importing dump_cancelled"), qPrintable(progress->text()));
        // Pressed at once: the import has 1,520 calls to go (it takes a second at least).
        QTest::mouseClick(progress->findChild<QToolButton*>("cancelImport"), Qt::LeftButton);
        QVERIFY(failed.wait(60000));
        QCOMPARE(opened.count(), 0);
        QVERIFY(!progress->isVisible());
        QVERIFY(!QFileInfo::exists(dumpCaseFilePath(dir)));
        QCOMPARE(QDir(QFileInfo(dumpCaseFilePath(dir)).absolutePath())
                     .entryList({"dump_cancelled*"}, QDir::Files | QDir::Hidden)
                     .size(),
                 0);  // no temporary file either
        QCOMPARE(w.context()->filePath(), before);
        QVERIFY2(w.logPanel()->toPlainText().contains("cancelled: nothing was written"),
                 qPrintable(w.logPanel()->toPlainText()));
        // Uncancelled, the same folder imports and the bar goes away.
        w.openDumpFolder(dir);
        QVERIFY(opened.wait(60000));
        QVERIFY(!progress->isVisible());
        QVERIFY(QFileInfo::exists(dumpCaseFilePath(dir)));
    }

    // Closing the window stops its import: nothing is written and nothing waits for it to end.
    void closingTheWindowCancelsItsImport() {
        const QString dir = copyOfDump("dump_closed");
        {
            MainWindow w(nullptr, false);
            w.show();
            w.openDumpFolder(dir);
        }
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000));
        QVERIFY(!QFileInfo::exists(dumpCaseFilePath(dir)));
    }

    // msprobe dumps again into the folder whose import is open (the next run of the job): the
    // File panel says so, and Reload imports the dump again and loads the shown case from it.
    void aDumpDumpedAgainIsSaidAndReloadImportsItAgain() {
        MainWindow w(nullptr, false);
        w.show();
        const QString dir = copyOfDump("dump_redumped", "dump_aten", 1);
        QSignalSpy opened(&w, &MainWindow::dumpFolderOpened);
        w.openDumpFolder(dir);
        QVERIFY(opened.wait(60000));
        DebugContext* ctx = w.context();
        const std::string call = "/msprobe/step0/rank0/Aten.convolution_backward.default.0";
        QVERIFY(test::loadPrepared(*ctx, QString::fromStdString(call), 60000));
        QCOMPARE(ctx->cases().size(), std::size_t{8});
        QVERIFY(!ctx->changedOnDisk());

        // The new dump.json holds one call fewer.
        const QString json = dir + "/step0/rank0/dump.json";
        QFile in(json);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject dump = QJsonDocument::fromJson(in.readAll()).object();
        in.close();
        QJsonObject data = dump["data"].toObject();
        data.remove("Aten.grid_sampler_2d_backward.default.0.forward");
        dump["data"] = data;
        QFile out(json);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QJsonDocument(dump).toJson());
        out.close();
        QVERIFY(QTest::qWaitFor([&] { return ctx->changedOnDisk(); }, 10000));
        QVERIFY(w.fileBrowser()->changedOnDiskBanner()->isVisible());

        w.action("reload")->trigger();
        QVERIFY(opened.wait(60000));
        QVERIFY(!ctx->changedOnDisk());
        QVERIFY(!w.fileBrowser()->changedOnDiskBanner()->isVisible());
        QCOMPARE(ctx->cases().size(), std::size_t{7});
        QVERIFY(QTest::qWaitFor([&] { return ctx->currentCase() && ctx->currentCase()->path == call; }, 60000));
    }

    // Reopening an unchanged dump reuses its case file; a changed tensor file imports again.
    void reopeningAnUnchangedDumpReusesItsImport() {
        MainWindow w(nullptr, false);
        w.show();
        const QString dir = copyOfDump("dump_reopened");
        QSignalSpy opened(&w, &MainWindow::dumpFolderOpened);
        auto openAndLog = [&] {
            w.logPanel()->clear();
            w.openDumpFolder(dir);
            return opened.wait(60000) ? w.logPanel()->toPlainText() : QString("(not opened)");
        };
        const QString first = openAndLog();
        QVERIFY(!first.contains("reused"));
        // "Imported 1200 of 1520 supported calls from step0/rank0, ... into <case file>"
        const qsizetype at = first.indexOf("Imported ");
        QVERIFY2(at >= 0, qPrintable(first));
        const QString summary = first.mid(at, first.indexOf('\n', at) - at);
        const QString caseFile = dumpCaseFilePath(dir);
        const QDateTime written = QFileInfo(caseFile).lastModified();
        QString log = openAndLog();
        QVERIFY2(log.contains(summary + " (reused: the dump has not changed since)"), qPrintable(log));
        QVERIFY2(log.contains("step0/rank7/Functional.conv2d.3: statistics only"), qPrintable(log));
        QCOMPARE(QFileInfo(caseFile).lastModified(), written);
        QCOMPARE(w.context()->filePath(), QFileInfo(caseFile).absoluteFilePath());
        // One tensor file of one rank rewritten: the whole folder imports again.
        const QString tensor = dir + "/step0/rank5/dump_tensor_data/Functional.conv2d.0.forward.input.0.pt";
        QFile f(tensor);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(5), QFileDevice::FileModificationTime));
        f.close();
        log = openAndLog();
        QVERIFY2(log.contains(summary) && !log.contains("reused"), qPrintable(log));
        // The record of an import goes with a case file someone else replaced.
        QVERIFY(QFile::remove(caseFile));
        QVERIFY(QFile::copy(kDumps + "../convolution_backward.h5", caseFile));
        QVERIFY(!openAndLog().contains("reused"));
        // The importer is in libopscope_core.so: the fingerprint names that file, so a library
        // updated without the program imports again.
        QVERIFY2(importerBinaryPath().endsWith("/libopscope_core.so") && QFileInfo::exists(importerBinaryPath()),
                 qPrintable(importerBinaryPath()));
    }

    void theProgressOfAReplacedImportIsDropped() {
        ImportProgress p;
        const ImportProgress::Flag first = p.start("a");
        const ImportProgress::Flag second = p.start("b");
        QVERIFY(first->load());  // a new import replaces (cancels) the one before
        QVERIFY(!second->load());
        p.setProgress(second, 5, 20);
        QCOMPARE(p.text(), QString("Importing b: 5 / 20 calls"));
        p.setProgress(first, 19, 20);
        QCOMPARE(p.text(), QString("Importing b: 5 / 20 calls"));
        p.finish(first);
        QVERIFY(!p.isHidden());
        p.cancel();
        QVERIFY(second->load());
        p.finish(second);
        QVERIFY(p.isHidden());
    }

    void aTensorArgumentBindsFromANpyFile() {
        DebugContext ctx;
        ArgumentForm form(&ctx);
        form.show();
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        auto* slot = qobject_cast<TensorSlotWidget*>(form.editorFor("gamma"));
        QVERIFY(slot);
        QVERIFY(slot->findChild<QToolButton*>("bindFromFile"));
        const QString npy = kDumps + "readers/float32_c.npy";
        QSignalSpy args(&ctx, &DebugContext::argumentsChanged);
        Q_EMIT slot->fileChosen(npy);  // what "…" emits once a file is picked
        QVERIFY(args.wait(10000));
        const TensorBinding& b = ctx.arguments().tensors.at("gamma");
        QCOMPARE(b.origin, npy.toStdString());
        QCOMPARE(b.tensor.dtype(), DType::Float32);
        QVERIFY(!ctx.isPrepared());  // the plan no longer matches the form
        // A file that is not a tensor file is a message, and the binding stays.
        QSignalSpy messages(&ctx, &DebugContext::statusMessage);
        Q_EMIT slot->fileChosen(kDumps + "readers/bad_header.npy");
        QVERIFY(messages.wait(10000));
        QVERIFY(QTest::qWaitFor([&] { return messages.last().at(1).toBool(); }, 10000));
        QCOMPARE(ctx.arguments().tensors.at("gamma").origin, npy.toStdString());
        QVERIFY(test::waitIdle(ctx));
    }

    void aFileOfSeveralTensorsAsksWhichOne() {
        const QString dir = kDumps + "readers/";
        QStringList offered;
        auto pick = [&](const QString& key) {
            return [&offered, key](const QStringList& keys) {
                offered = keys;
                return key;
            };
        };
        QCOMPARE(TensorSlotWidget::specForFile(dir + "dict.pt", pick("bias")), dir + "dict.pt:bias");
        QCOMPARE(offered, (QStringList{"weight", "bias"}));  // a state dict's tensors, as for an .npz
        QCOMPARE(TensorSlotWidget::specForFile(dir + "pair.npz", pick("m")), dir + "pair.npz:m");
        QCOMPARE(offered, (QStringList{"x", "m"}));
        QCOMPARE(TensorSlotWidget::specForFile(dir + "model.safetensors", pick("norm.weight")),
                 dir + "model.safetensors:norm.weight");
        QCOMPARE(offered.size(), 9);  // a checkpoint's tensors, in the order of their data
        QCOMPARE(offered.front(), QString("embed.weight"));
        QCOMPARE(TensorSlotWidget::specForFile(dir + "checkpoint.pth", pick("model/bn.bias")),
                 dir + "checkpoint.pth:model/bn.bias");  // a state dict nested in a training checkpoint
        QCOMPARE(offered, (QStringList{"model/conv.weight", "model/bn.bias", "optimizer/state/0/step",
                                       "optimizer/state/0/exp_avg"}));
        QCOMPARE(TensorSlotWidget::specForFile(dir + "dict.pt", pick("")), QString());  // cancelled
        offered.clear();
        QCOMPARE(TensorSlotWidget::specForFile(dir + "packed.npz", pick("?")), dir + "packed.npz:y");  // one array
        QCOMPARE(TensorSlotWidget::specForFile(dir + "single.safetensors", pick("?")), dir + "single.safetensors:x");
        QCOMPARE(TensorSlotWidget::specForFile(dir + "float32_contiguous.pt", pick("?")),
                 dir + "float32_contiguous.pt");
        QCOMPARE(TensorSlotWidget::specForFile(dir + "bad_header.npy", pick("?")), dir + "bad_header.npy");
        QVERIFY(offered.isEmpty());  // nothing asked when there is nothing to choose
        // The chosen key binds.
        DebugContext ctx;
        ArgumentForm form(&ctx);
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        auto* slot = qobject_cast<TensorSlotWidget*>(form.editorFor("gamma"));
        QSignalSpy args(&ctx, &DebugContext::argumentsChanged);
        Q_EMIT slot->fileChosen(dir + "dict.pt:bias");
        QVERIFY(args.wait(10000));
        QCOMPARE(ctx.arguments().tensors.at("gamma").tensor.dtype(), DType::Float16);
        QVERIFY(test::waitIdle(ctx));
    }

private:
    // A dump of `ranks` ranks, each a copy of a committed dump's rank0 (dump_l1's: 20 supported calls).
    QString copyOfDump(const QString& name, const char* from = "dump_l1", int ranks = 80) {
        const std::filesystem::path to = QDir(dir_.path()).filePath(name).toStdString();
        const std::filesystem::path rank0 = (kDumps + from + "/step0/rank0").toStdString();
        std::filesystem::create_directories(to / "step0");
        for (int r = 0; r < ranks; ++r)
            std::filesystem::copy(rank0, to / "step0" / ("rank" + std::to_string(r)),
                                  std::filesystem::copy_options::recursive);
        return QString::fromStdString(to.string());
    }

    QTemporaryDir dir_, cache_;
    QString file_;
};

QTEST_MAIN(TestMsprobeGui)
#include "test_msprobe_gui.moc"
