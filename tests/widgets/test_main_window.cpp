// The main window as a user drives it (actions and shortcuts on a live session), and keeping
// a session: the saved HDF5 file is a trace that reopens as a case, the report is valid
// CSV/JSON, files are written atomically and never over the input.
#include <QAction>
#include <QLabel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "main_window.h"
#include "models/case_list_model.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/trace.h"
#include "session/session_io.h"
#include "views/file_browser_panel.h"
#include "views/step_list_panel.h"
#include "views/tensor_view_panel.h"
#include "widget_test_support.h"

using namespace opscope;
using namespace opscope::gui;

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { file_ = test::useTestSettingsAndCaseFile(dir_.path()); }

    void shortcutsDriveTheDebugger() {
        MainWindow w(nullptr, false);
        QVERIFY(test::showExposed(w, {1400, 900}));
        QVERIFY(!w.action("step")->isEnabled());
        QVERIFY(w.openFile(file_));
        DebugContext* ctx = w.context();
        QVERIFY(test::loadPrepared(*ctx, "/gn/basic"));
        QVERIFY(w.action("step")->isEnabled());
        QCOMPARE(w.action("step")->shortcut(), QKeySequence(Qt::Key_F10));
        QCOMPARE(w.action("continue")->shortcut(), QKeySequence(Qt::Key_F5));
        QCOMPARE(w.action("toggleBreakpoint")->shortcut(), QKeySequence(Qt::Key_F9));

        QTest::keyClick(&w, Qt::Key_F10);  // Step
        QVERIFY(test::waitIdle(*ctx));
        QCOMPARE(ctx->nextStep(), std::size_t(1));
        QTest::keyClick(&w, Qt::Key_F5);  // Continue
        QVERIFY(test::waitIdle(*ctx));
        QVERIFY(ctx->atEnd());
        QVERIFY(QTest::qWaitFor([&] { return ctx->analysis() != nullptr; }, 20000));
        QTest::keyClick(&w, Qt::Key_F5, Qt::ControlModifier | Qt::ShiftModifier);  // Restart
        QVERIFY(test::waitIdle(*ctx));
        QCOMPARE(ctx->nextStep(), std::size_t(0));

        // A breakpoint on the last step from the step list, then Continue stops before it.
        const int last = int(ctx->plan().steps.size()) - 1;
        w.stepList()->stepView()->setCurrentIndex(w.stepList()->stepView()->model()->index(last, 0));
        QTest::keyClick(&w, Qt::Key_F9);
        QVERIFY(ctx->hasBreakpoint(std::size_t(last)));
        QTest::keyClick(&w, Qt::Key_F5);
        QVERIFY(test::waitIdle(*ctx));
        QCOMPARE(ctx->nextStep(), std::size_t(last));
        QTest::keyClick(&w, Qt::Key_F5);
        QVERIFY(test::waitIdle(*ctx));
        QVERIFY(ctx->atEnd());
        QVERIFY(
            QTest::qWaitFor([&] { return !w.tensorView()->isLoading() && w.tensorView()->frame().valid(); }, 20000));
        const QImage shot = w.grab().toImage();
        QCOMPARE(shot.size(), w.size());
    }

    void sessionsAndReportsAreKept() {
        DebugContext ctx;
        QVERIFY(ctx.openFile(file_));
        QVERIFY(test::loadPrepared(ctx, "/gn/basic"));
        ctx.continueRun();
        QVERIFY(test::waitIdle(ctx));
        QVERIFY(QTest::qWaitFor([&] { return ctx.analysis() && ctx.finalOutputs(); }, 20000));

        const SessionSnapshot snap = ctx.snapshot();
        QCOMPARE(snap.casePath, std::string("/gn/basic"));

        const std::string saved = dir_.filePath("session.h5").toStdString();
        bool done = false;
        QString error;
        // Never over the input unless asked.
        ctx.saveSession(file_, false, [&](QString e) {
            error = e;
            done = true;
        });
        QVERIFY(done && !error.isEmpty());
        done = false;
        error.clear();
        ctx.saveSession(QString::fromStdString(saved), false, [&](QString e) {
            error = e;
            done = true;
        });
        QVERIFY(QTest::qWaitFor([&] { return done; }, 20000));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(ctx.atEnd());
        // A full trace of one run plus the results, and it reopens as a case.
        const std::vector<ExecutorTrace> traces = readTraceFile(saved);
        QCOMPARE(traces.size(), std::size_t(1));
        QCOMPARE(traces[0].steps.size(), ctx.plan().steps.size());
        const h5::File f = h5::File::openReadOnly(saved);
        QVERIFY(f.isDataset("/session/outputs/gradInput"));
        QVERIFY(f.isDataset("/session/reference/gradInput"));
        QCOMPARE(f.readAttribute<std::vector<std::string>>("/session/metrics/gradInput", "verdicts").front(),
                 std::string("pass"));
        QCOMPARE(h5::readTensor(f, "/session/outputs/gradInput").shape(), (std::vector<int64_t>{2, 4, 2, 3}));
        DebugContext again;
        QVERIFY(again.openFile(QString::fromStdString(saved)));
        QVERIFY(again.isTraceFile());
        QCOMPARE(again.cases().size(), std::size_t(1));
        QVERIFY(test::loadPrepared(again, QString::fromStdString(again.cases()[0].path)));

        const QByteArray json = reportJson(snap);
        const QJsonDocument doc = QJsonDocument::fromJson(json);
        QVERIFY(doc.isObject());
        QCOMPARE(doc.object()["op"].toString(), QString("aclnnGroupNormBackward"));
        // The comparisons in the CLI report's schema (ops::writeComparisonJson).
        const QJsonArray comparisons = doc.object()["comparisons"].toArray();
        QCOMPARE(comparisons.size(), 3);
        QCOMPARE(doc.object()["verdict"].toString(), QString("pass"));
        const QJsonObject first = comparisons[0].toObject();
        QCOMPARE(first["compared"].toBool(), true);
        QVERIFY(first["metrics"].toObject().contains("share_rel_below_1e-3"));
        QVERIFY(first["metrics"].toObject().contains("worst_rel"));
        const QByteArray csv = reportCsv(snap);
        QVERIFY(csv.startsWith("op,output,dtype,item,value\n"));
        QVERIFY(csv.contains("gradInput,float32,verdict cann,pass"));

        const std::string report = dir_.filePath("report.json").toStdString();
        writeFileAtomically(report, json, {file_.toStdString()});
        QVERIFY(QFile::exists(QString::fromStdString(report)));
        // Never over the input.
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 writeFileAtomically(file_.toStdString(), json, {file_.toStdString()}));
        QVERIFY(ctx.openFile(file_));  // still a valid case file
    }

    // The open file written again on disk (an import to the same path: a new file renamed over it;
    // then a change in place): the File panel says so at once, and Reload opens it again with
    // the case that was loaded.
    void aFileChangedOnDiskIsSaidUntilReloaded() {
        const QString copy = dir_.filePath("changing.h5"), next = dir_.filePath("changing.next.h5");
        QVERIFY(QFile::copy(file_, copy));
        MainWindow w(nullptr, false);
        QVERIFY(test::showExposed(w, {1400, 900}));
        QVERIFY(w.openFile(copy));
        DebugContext* ctx = w.context();
        QVERIFY(test::loadPrepared(*ctx, "/gn/basic"));
        QLabel* banner = w.fileBrowser()->changedOnDiskBanner();
        QVERIFY(!ctx->changedOnDisk());
        QVERIFY(!banner->isVisible());
        QSignalSpy changed(ctx, &DebugContext::fileChangedOnDisk);

        QVERIFY(QFile::copy(file_, next));
        QVERIFY(std::rename(next.toLocal8Bit().constData(), copy.toLocal8Bit().constData()) == 0);
        QVERIFY(changed.wait(5000));
        QVERIFY(ctx->changedOnDisk());
        QVERIFY(banner->isVisible());

        QTest::keyClick(&w, Qt::Key_R, Qt::ControlModifier);  // Reload
        QVERIFY(!ctx->changedOnDisk());
        QVERIFY(!banner->isVisible());
        QVERIFY(QTest::qWaitFor([&] { return ctx->currentCase() && ctx->isPrepared(); }, 20000));
        QCOMPARE(ctx->currentCase()->path, std::string("/gn/basic"));
        const QModelIndex row = w.fileBrowser()->caseView()->currentIndex();  // the list points at it too
        QCOMPARE(row.data(CaseListModel::PathRole).toString(), QString("/gn/basic"));

        QFile inPlace(copy);  // the watch follows the new file at the path
        QVERIFY(inPlace.open(QIODevice::Append));
        inPlace.write("x");
        inPlace.close();
        QVERIFY(changed.wait(5000));
        QVERIFY(banner->isVisible());
        QCOMPARE(changed.count(), 2);
    }

private:
    QTemporaryDir dir_;
    QString file_;
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
