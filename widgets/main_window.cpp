#include "main_window.h"

#include "file_filters.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QTimer>
#include <QToolButton>

#include <utility>

#include "opscope/h5/atomic_write.h"
#include "session/debug_context.h"
#include "session/dump_import.h"
#include "session/gui_invoke.h"
#include "session/session_io.h"
#include "views/argument_form.h"
#include "views/charts_panel.h"
#include "views/element_history_panel.h"
#include "views/file_browser_panel.h"
#include "views/log_panel.h"
#include "views/metrics_panel.h"
#include "views/step_list_panel.h"
#include "views/tensor_view_panel.h"
#include "views/vertical_scroll_area.h"

namespace opscope::gui {

namespace {
constexpr int kMaxRecent = 10;
constexpr const char* kRecentKey = "recentFiles";
constexpr const char* kConvAllowHf32Key = "msprobe/convAllowHf32";
bool convAllowHf32Setting() { return QSettings().value(kConvAllowHf32Key, true).toBool(); }  // torch_npu's default
constexpr const char* kDumpProductKey = "msprobe/product";
Product dumpProductSetting() {
    Product p = Product::AtlasA2;
    parseProduct(QSettings().value(kDumpProductKey, "a2").toString().toStdString(), &p);
    return p;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent, bool restoreLayout) : QMainWindow(parent), context_(new DebugContext(this)) {
    setObjectName("MainWindow");
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    tensorView_ = new TensorViewPanel(context_, this);
    createDatasetView();
    createDocks();
    createTimelineDock();
    createActions();
    createDatasetActions();

    createStatusBar();
    connect(cancel_, &QToolButton::clicked, context_, &DebugContext::cancel);

    connect(context_, &DebugContext::statusMessage, this, [this](const QString& text, bool isError) {
        statusBar()->showMessage(text, isError ? 15000 : 6000);
        log_->addMessage(text, isError);
    });
    connect(context_, &DebugContext::busyChanged, this, [this](bool busy) {
        busyLabel_->setText(busy ? context_->busyText() + QStringLiteral("…") : QString());
        progress_->setVisible(busy);
        cancel_->setVisible(busy);
        if (busy) {
            const int n = static_cast<int>(context_->plan().steps.size());
            progress_->setRange(0, n > 0 ? n : 0);
            progress_->setValue(static_cast<int>(context_->nextStep()));
            progress_->setFormat(tr("step %v / %m"));
        }
        if (!busy) QApplication::restoreOverrideCursor();
        updateActions();
    });
    connect(context_, &DebugContext::backgroundChanged, this, [this](bool working) {
        if (!context_->isBusy())
            busyLabel_->setText(working ? context_->backgroundText() + QStringLiteral("…") : QString());
        updateActions();
    });
    connect(context_, &DebugContext::analysisChanged, this, &MainWindow::updateActions);
    connect(context_, &DebugContext::positionChanged, this, [this](std::size_t next) {
        if (progress_->maximum() > 0) progress_->setValue(static_cast<int>(next));
        updateActions();
    });
    connect(context_, &DebugContext::planChanged, this, [this] {
        updateActions();
        updateTitle();
    });
    connect(context_, &DebugContext::fileChanged, this, &MainWindow::updateTitle);
    connect(context_, &DebugContext::operatorChanged, this, &MainWindow::updateActions);
    connect(context_, &DebugContext::runStopped, this, [this](StopKind kind, const QString& message) {
        if (kind == StopKind::NonFinite || kind == StopKind::ErrorExceeded || kind == StopKind::Breakpoint)
            statusBar()->showMessage(tr("Stopped (%1): %2").arg(QString::fromUtf8(stopKindText(kind)), message), 15000);
    });
    connect(context_, &DebugContext::caseLoaded, this, [this] { raisePanel(steps_); });

    resize(1500, 950);
    if (restoreLayout) {
        QSettings s;
        restoreGeometry(s.value("window/geometry").toByteArray());
        layoutRestored_ = restoreState(s.value("window/state").toByteArray());
        context_->setBreakOnNonFinite(s.value("debug/breakOnNonFinite", false).toBool());
        context_->setBreakOnError(s.value("debug/breakOnError", false).toBool());
        tensorView_->loadPreferences(s);
        action("breakOnNonFinite")->setChecked(context_->breakOnNonFinite());
        action("breakOnError")->setChecked(context_->breakOnError());
    }
    updateRecentMenu();
    updateActions();
    updateTitle();
}

MainWindow::~MainWindow() = default;

QDockWidget* MainWindow::dock(const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
}

QDockWidget* MainWindow::dockOf(QWidget* panel) const {
    for (QWidget* w = panel; w; w = w->parentWidget())
        if (auto* d = qobject_cast<QDockWidget*>(w)) return d;
    return nullptr;
}

void MainWindow::raisePanel(QWidget* panel) {
    if (QDockWidget* d = dockOf(panel)) d->raise();
}

void MainWindow::createDocks() {
    files_ = new FileBrowserPanel(context_, this);
    connect(files_, &FileBrowserPanel::reloadRequested, this, &MainWindow::reloadFile);
    form_ = new ArgumentForm(context_, this);
    auto* formScroll = new VerticalScrollArea(form_, this);  // the form wraps to the dock's width
    steps_ = new StepListPanel(context_, this);
    metrics_ = new MetricsPanel(context_, this);
    connect(metrics_, &MetricsPanel::exportReproRequested, this, &MainWindow::exportRepro);
    charts_ = new ChartsPanel(context_, this);
    history_ = new ElementHistoryPanel(context_, this);
    log_ = new LogPanel(this);

    // Side columns keep a readable width; the centre takes the rest.
    files_->setMinimumWidth(300);
    formScroll->setMinimumWidth(300);
    metrics_->setMinimumWidth(420);
    charts_->setMinimumWidth(420);
    QDockWidget* fileDock = dock(tr("File"), "FileDock", files_, Qt::LeftDockWidgetArea);
    QDockWidget* callDock = dock(tr("Call"), "CallDock", formScroll, Qt::LeftDockWidgetArea);
    splitDockWidget(fileDock, callDock, Qt::Vertical);
    QDockWidget* stepsDock = dock(tr("Steps"), "StepsDock", steps_, Qt::BottomDockWidgetArea);
    QDockWidget* historyDock = dock(tr("Element history"), "HistoryDock", history_, Qt::BottomDockWidgetArea);
    QDockWidget* logDock = dock(tr("Log"), "LogDock", log_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(stepsDock, historyDock);
    tabifyDockWidget(historyDock, logDock);
    stepsDock->raise();
    QDockWidget* metricsDock = dock(tr("Metrics"), "MetricsDock", metrics_, Qt::RightDockWidgetArea);
    QDockWidget* chartsDock = dock(tr("Charts"), "ChartsDock", charts_, Qt::RightDockWidgetArea);
    splitDockWidget(metricsDock, chartsDock, Qt::Vertical);
    // Bottom docks span the centre only: the side columns keep their full height.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
}

QAction* MainWindow::action(const QString& objectName) const { return findChild<QAction*>(objectName); }

template <typename Slot>
QAction* MainWindow::makeAction(const QString& text, const QString& name, const QKeySequence& key, Slot slot) {
    auto* a = new QAction(text, this);
    a->setObjectName(name);
    if (!key.isEmpty()) a->setShortcut(key);
    a->setShortcutContext(Qt::ApplicationShortcut);
    connect(a, &QAction::triggered, this, slot);
    return a;
}

void MainWindow::createActions() {
    createFileMenu();
    createDebugMenu();
    createViewMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(makeAction(tr("&Open…"), "open", QKeySequence::Open, [this] {
        const QString dir = QSettings().value("lastDir").toString();
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a case, trace, checkpoint or tensor file"),
                                                          dir, openableFilesFilter());
        if (!path.isEmpty()) openFile(path);
    }));
    addOpenFolderAction(file);
    addDumpSettingsAction(file);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(makeAction(tr("Re&load"), "reload", QKeySequence(Qt::CTRL | Qt::Key_R), [this] { reloadFile(); }));
    file->addSeparator();
    file->addAction(makeAction(tr("&Save Session…"), "saveSession", QKeySequence::Save, [this] { saveSession(); }));
    file->addAction(makeAction(tr("&Export Report (CSV/JSON)…"), "exportReport", QKeySequence(Qt::CTRL | Qt::Key_E),
                               [this] { exportReport(); }));
    file->addAction(makeAction(tr("Export Tensor View as &PNG…"), "exportPng",
                               QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), [this] { exportTensorPng(); }));
    file->addAction(
        makeAction(tr("Export Re&producer (aclnn Program)…"), "exportRepro", {}, [this] { exportRepro(); }));
    file->addSeparator();
    file->addAction(makeAction(tr("&Quit"), "quit", QKeySequence::Quit, [this] { close(); }));
}

void MainWindow::createDebugMenu() {
    QMenu* debug = menuBar()->addMenu(tr("&Debug"));
    QAction* prepare =
        makeAction(tr("&Prepare"), "prepare", QKeySequence(Qt::CTRL | Qt::Key_P), [this] { context_->prepare(); });
    prepare->setToolTip(tr("Phase 1: validate and plan (Ctrl+P)"));
    QAction* cont =
        makeAction(tr("&Continue"), "continue", QKeySequence(Qt::Key_F5), [this] { context_->continueRun(); });
    cont->setToolTip(tr("Run to the next breakpoint or the end (F5)"));
    QAction* step = makeAction(tr("&Step"), "step", QKeySequence(Qt::Key_F10), [this] { context_->step(); });
    step->setToolTip(tr("Run the next step (F10)"));
    QAction* runTo = makeAction(tr("Run to &Cursor"), "runToCursor", QKeySequence(Qt::CTRL | Qt::Key_F10), [this] {
        if (auto s = steps_->selectedStep()) context_->runTo(*s);
    });
    runTo->setToolTip(tr("Run until the selected step is next, replaying from the start if needed (Ctrl+F10)"));
    QAction* restart = makeAction(tr("&Restart"), "restart", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
                                  [this] { context_->restart(); });
    restart->setToolTip(tr("Rewind to step 0 (Ctrl+Shift+F5)"));
    QAction* cancel =
        makeAction(tr("Ca&ncel"), "cancel", QKeySequence(Qt::SHIFT | Qt::Key_F5), [this] { context_->cancel(); });
    cancel->setToolTip(tr("Stop a run before its next step (Shift+F5)"));
    QAction* bp = makeAction(tr("Toggle &Breakpoint"), "toggleBreakpoint", QKeySequence(Qt::Key_F9), [this] {
        if (auto s = steps_->selectedStep()) context_->toggleBreakpoint(*s);
    });
    for (QAction* a : {prepare, step, cont, runTo, restart, cancel}) debug->addAction(a);
    debug->addSeparator();
    debug->addAction(bp);
    addBreakConditionActions(debug);
    debugActions_ = {prepare, step, cont, runTo, restart, cancel, bp};
    createDebugToolBar();
}

void MainWindow::addBreakConditionActions(QMenu* debug) {
    QAction* nan = makeAction(tr("Break on &NaN/Inf"), "breakOnNonFinite", {},
                              [this](bool on) { context_->setBreakOnNonFinite(on); });
    nan->setCheckable(true);
    nan->setToolTip(tr("Stop after a step that writes NaN or Inf"));
    QAction* err = makeAction(tr("Break when error &exceeds the standard"), "breakOnError", {},
                              [this](bool on) { context_->setBreakOnError(on); });
    err->setCheckable(true);
    err->setToolTip(tr("Stop after a step whose output fails the standard against the reference"));
    debug->addAction(nan);
    debug->addAction(err);
}

void MainWindow::createDebugToolBar() {
    auto* bar = addToolBar(tr("Debug"));
    bar->setObjectName("DebugToolBar");
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(action("open"));
    bar->addSeparator();
    for (const char* name : {"prepare", "step", "continue", "restart", "cancel"}) bar->addAction(action(name));
    bar->addSeparator();
    bar->addAction(action("breakOnNonFinite"));
    bar->addAction(action("breakOnError"));
}

void MainWindow::createViewMenu() {
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : findChildren<QDockWidget*>()) viewMenu->addAction(d->toggleViewAction());
    viewMenu->addSeparator();
    viewMenu->addAction(makeAction(tr("&Reset Layout"), "resetLayout", {}, [this] { resetLayout(); }));
}

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(
        makeAction(tr("&Keyboard Shortcuts"), "shortcuts", QKeySequence::HelpContents, [this] { showShortcuts(); }));
    help->addAction(makeAction(tr("&About OpScope"), "about", {}, [this] {
        QMessageBox::about(this, tr("About OpScope"),
                           tr("<b>OpScope</b> — a debugger for aclnn operator executors on the CPU.<br>"
                              "Open a case, step through the plan, compare with the float64 reference."));
    }));
}

void MainWindow::updateActions() {
    const bool busy = context_->isBusy();
    const bool prepared = context_->isPrepared();
    action("prepare")->setEnabled(!busy && context_->op());
    for (const char* n : {"step", "continue", "runToCursor", "restart"}) action(n)->setEnabled(!busy && prepared);
    action("cancel")->setEnabled(busy);
    action("saveSession")->setEnabled(!busy && prepared);
    action("exportRepro")->setEnabled(!busy && prepared && !context_->isRecordedOnly());
    action("exportReport")->setEnabled(context_->analysis() != nullptr || prepared);
}

void MainWindow::updateTitle() {
    QString t = QStringLiteral("OpScope");
    if (!context_->filePath().isEmpty()) t = QFileInfo(context_->filePath()).fileName() + QStringLiteral(" — ") + t;
    if (context_->isPrepared()) t = QString::fromStdString(context_->plan().op) + QStringLiteral(" · ") + t;
    setWindowTitle(t);
}

// The open file as it is on disk now (changed since it was opened: the File panel's banner),
// with the case that was loaded loaded again when the file still has it.
void MainWindow::reloadFile() {
    const QString path = context_->filePath();
    if (path.isEmpty()) return;
    const cases::Case* shown = context_->currentCase();
    const QString casePath = shown ? QString::fromStdString(shown->path) : QString();
    if (!openDump_.isEmpty()) {
        // An import: the dump is imported again (its cache sees what changed), then the case.
        reloadCase_ = casePath;
        return openDumpFolder(openDump_);
    }
    if (openFile(path)) loadCaseIfPresent(casePath);
}

void MainWindow::loadCaseIfPresent(const QString& casePath) {
    if (casePath.isEmpty()) return;
    for (const CaseEntry& c : context_->cases())
        if (QString::fromStdString(c.path) == casePath) return context_->loadCase(casePath);
}

bool MainWindow::openFile(const QString& path) {
    openDump_.clear();  // openDumpFolder sets it again after opening its import
    QString error;
    if (!context_->openFile(path, &error)) {
        QMessageBox::warning(this, tr("Cannot open file"), error);
        return false;
    }
    if (!context_->outsideReferences().isEmpty() && !context_->file()->externalAllowed()) {
        const auto answer = QMessageBox::question(
            this, tr("File reads other files"),
            tr("%1 points at data outside itself:\n\n%2\n\nRead those files? Only do so for a file you trust; "
               "otherwise OpScope refuses to read them.")
                .arg(path, context_->outsideReferences().mid(0, 10).join("\n")),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer == QMessageBox::Yes) context_->allowExternalData();
    }
    addRecent(context_->filePath());
    QSettings().setValue("lastDir", QFileInfo(path).absolutePath());
    return true;
}

// The run's label, progress and Cancel, and an import's (views/import_progress.h).
void MainWindow::createStatusBar() {
    busyLabel_ = new QLabel(this);
    progress_ = new QProgressBar(this);
    progress_->setMaximumWidth(180);
    progress_->setTextVisible(true);
    progress_->hide();
    cancel_ = new QToolButton(this);
    cancel_->setText(tr("Cancel"));
    cancel_->setToolTip(tr("Stop the run before its next step (Shift+F5)"));
    cancel_->hide();
    importProgress_ = new ImportProgress(this);
    statusBar()->addPermanentWidget(importProgress_);
    statusBar()->addPermanentWidget(busyLabel_);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
}

void MainWindow::addOpenFolderAction(QMenu* file) {
    auto* a = new QAction(tr("Open &Folder… (msprobe dump)"), this);
    a->setObjectName("openFolder");
    a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    a->setShortcutContext(Qt::ApplicationShortcut);
    connect(a, &QAction::triggered, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open an msprobe dump folder"),
                                                              QSettings().value("lastDir").toString());
        if (!dir.isEmpty()) openDumpFolder(dir);
    });
    file->addAction(a);
}

// The dump does not record torch_npu.npu.conv.allow_hf32; the importer must be told (the CLI's
// --conv-allow-hf32). Kept in the settings, like the device below; changing either imports the
// open dump again.
void MainWindow::addDumpSettingsAction(QMenu* file) {
    auto* a = new QAction(tr("Dumps Ran with Conv HF32 (torch_npu allow_hf32)"), this);
    a->setObjectName("convAllowHf32");
    a->setCheckable(true);
    a->setChecked(convAllowHf32Setting());
    a->setToolTip(
        tr("torch_npu.npu.conv.allow_hf32 of the run that made the dump (torch_npu's default: on). "
           "Float32 convolutions are replayed and judged with HF32 operands when on, float32 when off."));
    connect(a, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(kConvAllowHf32Key, on);
        log_->addMessage(tr("Dumps are imported with torch_npu.npu.conv.allow_hf32 = %1").arg(on ? "True" : "False"),
                         false);
        if (!openDump_.isEmpty()) openDumpFolder(openDump_);  // its verdicts follow the setting
    });
    file->addAction(a);
    // Nor the device it came from (the CLI's --product): the product the cases are emulated on.
    QMenu* from = file->addMenu(tr("Dumps Came From"));
    from->setObjectName("dumpProduct");
    auto* products = new QActionGroup(from);
    for (Product p : allProducts()) {
        QAction* item = from->addAction(QString::fromUtf8(productName(p)));
        item->setObjectName(QString("dumpProduct_%1").arg(productId(p)));
        item->setCheckable(true);
        item->setChecked(p == dumpProductSetting());
        products->addAction(item);
        connect(item, &QAction::triggered, this, [this, p] {
            if (p == dumpProductSetting()) return;
            QSettings().setValue(kDumpProductKey, productId(p));
            log_->addMessage(tr("Dumps are imported as from the %1").arg(QString::fromUtf8(productName(p))), false);
            if (!openDump_.isEmpty()) openDumpFolder(openDump_);
        });
    }
}

DumpImportControl MainWindow::followImport(const ImportProgress::Flag& flag) {
    DumpImportControl control;
    control.device.convAllowHf32 = convAllowHf32Setting();
    control.device.product = dumpProductSetting();
    control.cancelled = [flag] { return flag->load(); };
    control.progress = [bar = QPointer<ImportProgress>(importProgress_), flag](std::size_t done, std::size_t total) {
        // At most one update per percent reaches the GUI thread.
        if (done != total && done * 100 / total == (done - 1) * 100 / total) return;
        // Posted to the application and checked there: the window may close meanwhile.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [bar, flag, done, total] {
                if (bar) bar->setProgress(flag, done, total);
            },
            Qt::QueuedConnection);
    };
    return control;
}

void MainWindow::openDumpFolder(const QString& dir) {
    log_->addMessage(tr("Importing the msprobe dump %1…").arg(dir), false);
    const ImportProgress::Flag flag = importProgress_->start(QFileInfo(dir).fileName());
    runInBackground<DumpImport>(
        this, [dir, control = followImport(flag)] { return importDumpFolderOnWorker(dir, control); },
        [this, dir, flag](DumpImport r, QString error) {
            importProgress_->finish(flag);
            const QString reload = std::exchange(reloadCase_, QString());  // a Reload's case, this import only
            if (error.isEmpty() && r.cancelled) {
                log_->addMessage(tr("Import of %1 cancelled: nothing was written").arg(dir), false);
                Q_EMIT dumpFolderFailed(tr("the import was cancelled"));
                return;
            }
            if (!error.isEmpty()) {
                log_->addMessage(tr("Cannot import %1: %2").arg(dir, error), true);
                if (!unattended_) QMessageBox::warning(this, tr("Cannot import the dump"), error);
                Q_EMIT dumpFolderFailed(error);
                return;
            }
            log_->addMessage(r.reused ? tr("%1 (reused: the dump has not changed since)").arg(r.summary) : r.summary,
                             false);
            for (const QString& why : r.notDone) log_->addMessage(tr("Not imported: %1").arg(why), true);
            if (!openFile(r.caseFile)) return;
            openDump_ = dir;
            context_->watchSources(r.sources);  // a new dump at `dir` changes what is shown
            loadCaseIfPresent(reload);
            Q_EMIT dumpFolderOpened(r.caseFile);
        });
}

void MainWindow::addRecent(const QString& path) {
    QSettings s;
    QStringList list = s.value(kRecentKey).toStringList();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > kMaxRecent) list.removeLast();
    s.setValue(kRecentKey, list);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList list = QSettings().value(kRecentKey).toStringList();
    for (int i = 0; i < list.size(); ++i) {
        const QString path = list[i];
        QAction* a = recentMenu_->addAction(QStringLiteral("&%1 %2").arg((i + 1) % 10).arg(path));
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    recentMenu_->setEnabled(!list.isEmpty());
}

namespace {

bool sameFile(const QString& a, const QString& b) {
    if (a.isEmpty() || b.isEmpty()) return false;
    std::error_code ec;
    return std::filesystem::equivalent(a.toStdString(), b.toStdString(), ec);
}

}  // namespace

void MainWindow::saveSession() {
    if (!context_->isPrepared()) return;
    const QString dest =
        QFileDialog::getSaveFileName(this, tr("Save session (results, metrics and trace)"),
                                     QSettings().value("lastDir").toString() + "/session.h5", tr("HDF5 files (*.h5)"));
    if (dest.isEmpty()) return;
    const QString input = context_->filePath();
    const bool replacesInput = sameFile(dest, input);
    if (replacesInput &&
        QMessageBox::question(
            this, tr("Replace the input file?"),
            tr("%1 is the file this session was loaded from. Replace it with the session?").arg(dest)) !=
            QMessageBox::Yes)
        return;
    context_->saveSession(dest, replacesInput, [this](QString error) {
        if (!error.isEmpty()) QMessageBox::warning(this, tr("Cannot save"), error);
    });
}

void MainWindow::exportReport() {
    QString filter;
    const QString dest = QFileDialog::getSaveFileName(this, tr("Export report"),
                                                      QSettings().value("lastDir").toString() + "/report.json",
                                                      tr("JSON (*.json);;CSV (*.csv)"), &filter);
    if (dest.isEmpty()) return;
    const SessionSnapshot snap = context_->snapshot();
    const bool csv = dest.endsWith(".csv", Qt::CaseInsensitive) || filter.startsWith("CSV");
    try {
        writeFileAtomically(dest.toStdString(), csv ? reportCsv(snap) : reportJson(snap),
                            {context_->filePath().toStdString()});
        Q_EMIT context_->statusMessage(tr("Wrote %1").arg(dest), false);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Cannot export"), QString::fromUtf8(e.what()));
    }
}

void MainWindow::exportTensorPng() {
    const QString dest =
        QFileDialog::getSaveFileName(this, tr("Export tensor view"),
                                     QSettings().value("lastDir").toString() + "/tensor.png", tr("PNG images (*.png)"));
    if (dest.isEmpty()) return;
    if (!tensorView_->exportPng(dest))
        QMessageBox::warning(this, tr("Cannot export"), tr("Nothing to export, or %1 is not writable").arg(dest));
}

void MainWindow::showShortcuts() {
    QString text = QStringLiteral("<table>");
    for (QAction* a : findChildren<QAction*>())
        if (!a->shortcut().isEmpty())
            text += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(a->shortcut().toString(QKeySequence::NativeText), a->text().remove('&'));
    text +=
        tr("<tr><td><b>B</b></td><td>A/B: output or reference</td></tr>"
           "<tr><td><b>F</b></td><td>fit the heatmap</td></tr>"
           "<tr><td><b>+ / −, wheel</b></td><td>zoom the heatmap</td></tr></table>");
    QMessageBox::information(this, tr("Keyboard shortcuts"), text);
}

void MainWindow::applyDefaultDockSizes() {
    QDockWidget *file = dockOf(files_), *call = dockOf(form_), *steps = dockOf(steps_), *metrics = dockOf(metrics_),
                *charts = dockOf(charts_);
    const int left = std::max(300, width() * 21 / 100), right = std::max(420, width() * 32 / 100);
    resizeDocks({file, metrics}, {left, right}, Qt::Horizontal);
    resizeDocks({steps}, {std::max(220, height() / 4)}, Qt::Vertical);
    resizeDocks({file, call}, {height() * 2 / 5, height() * 3 / 5}, Qt::Vertical);
    resizeDocks({metrics, charts}, {height() / 2, height() / 2}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    if (shownOnce_) return;
    shownOnce_ = true;
    // Dock sizes only take once the window is laid out; keep them as the "reset" layout too.
    QTimer::singleShot(0, this, [this] {
        if (!layoutRestored_) applyDefaultDockSizes();
        defaultState_ = saveState();
    });
}

void MainWindow::resetLayout() {
    restoreState(defaultState_);
    applyDefaultDockSizes();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    s.setValue("debug/breakOnNonFinite", context_->breakOnNonFinite());
    s.setValue("debug/breakOnError", context_->breakOnError());
    tensorView_->savePreferences(s);
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls())
        for (const QUrl& u : e->mimeData()->urls())
            if (u.isLocalFile()) {
                e->acceptProposedAction();
                return;
            }
}

void MainWindow::dropEvent(QDropEvent* e) {
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile()) {
            openFile(u.toLocalFile());
            e->acceptProposedAction();
            return;
        }
}

}  // namespace opscope::gui
