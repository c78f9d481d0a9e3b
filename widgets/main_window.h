// The debugger's main window: menus, toolbar and shortcuts a debugger user expects, docks
// for the views, the status bar with progress and Cancel, recent files, drag and drop of
// files, and the layout kept in QSettings. It wires actions to the context; the views
// observe the context themselves.
#pragma once

#include <QMainWindow>

#include "session/dump_import.h"
#include "views/import_progress.h"

class QAction;
class QKeySequence;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;
class QToolButton;

namespace opscope::gui {

class ArgumentForm;
class ChartsPanel;
class DatasetViewPanel;
class GroupComparePanel;
class DebugContext;
struct DatasetRef;
class ElementHistoryPanel;
class FileBrowserPanel;
class LogPanel;
class MetricsPanel;
class StepListPanel;
class TensorViewPanel;
class TimelinePanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // restoreLayout = false ignores saved geometry and layout (screenshots, tests).
    explicit MainWindow(QWidget* parent = nullptr, bool restoreLayout = true);
    ~MainWindow() override;

    DebugContext* context() const { return context_; }
    bool openFile(const QString& path);
    // File › Reload: the open file opened again, or for an import its dump imported again; the
    // case that was shown loads again when it is still there.
    void reloadFile();
    // Imports an msprobe dump folder into a case file in the cache (session/dump_import.h) off
    // the GUI thread, lists the calls not imported in the Log panel, then opens the file;
    // dumpFolderOpened follows.
    void openDumpFolder(const QString& dir);
    // No dialogs without a user (--screenshot, scripts): errors go to the Log panel and the
    // signals only.
    void setUnattended(bool unattended) { unattended_ = unattended; }

Q_SIGNALS:
    void dumpFolderOpened(const QString& caseFile);
    void dumpFolderFailed(const QString& error);

public:
    TensorViewPanel* tensorView() const { return tensorView_; }
    StepListPanel* stepList() const { return steps_; }
    ArgumentForm* argumentForm() const { return form_; }
    MetricsPanel* metricsPanel() const { return metrics_; }
    ChartsPanel* chartsPanel() const { return charts_; }
    FileBrowserPanel* fileBrowser() const { return files_; }
    ElementHistoryPanel* historyPanel() const { return history_; }
    LogPanel* logPanel() const { return log_; }
    DatasetViewPanel* datasetView() const { return datasetView_; }
    GroupComparePanel* groupCompare() const { return groupCompare_; }
    TimelinePanel* timeline() const { return timeline_; }

    // ---- datasets without an operator (main_window_datasets.cpp) ----------------------------
    // Shows a dataset of the open file (a tree path: an HDF5 path, or a tensor file's key) in
    // the Dataset tab; viewDatasetComparedWith compares it with `reference` once it is shown.
    void viewDataset(const QString& path) { showDataset(path, nullptr); }
    void viewDatasetComparedWith(const QString& path, const DatasetRef& reference) { showDataset(path, &reference); }
    // The dataset a tree path of the open file names (a tensor file's key by DebugContext::tensorKey).
    DatasetRef datasetAt(const QString& treePath) const;
    // Compares the dataset shown (A) with `reference` (B).
    void compareDataset(const DatasetRef& reference);
    // Every dataset below `group` of the open file against `otherGroup` (the same group when
    // empty) of `otherFile`, in the Group compare tab.
    void compareGroup(const QString& group, const QString& otherFile, const QString& otherGroup = {});
    // --case PATH: a dataset's view for a dataset, else loads the case.
    void showPath(const QString& path);
    // The dataset a --compare spec names: "PATH" in the open file, "FILE.h5:PATH", or a tensor
    // file's "FILE.pt:KEY".
    DatasetRef referenceFor(const QString& spec) const;
    // --case PATH --compare SPEC: a group against another file's ("FILE.h5[:/GROUP]", the same
    // group unless named) in the Group compare tab; a dataset against referenceFor(SPEC), once
    // it is shown. False (nothing done) when PATH is neither.
    bool showPathComparedWith(const QString& path, const QString& spec);
    // The dock that holds `panel` (one of the accessors above), raised to the front.
    void raisePanel(QWidget* panel);
    QAction* action(const QString& objectName) const;

protected:
    void closeEvent(QCloseEvent*) override;
    void showEvent(QShowEvent*) override;
    void dragEnterEvent(QDragEnterEvent*) override;
    void dropEvent(QDropEvent*) override;

private:
    void loadCaseIfPresent(const QString& casePath);
    void showDataset(const QString& path, const DatasetRef* reference);
    void createDocks();
    void createActions();
    void createStatusBar();
    void addOpenFolderAction(QMenu* file);
    void addDumpSettingsAction(QMenu* file);  // File > "Dumps Ran with Conv HF32", "Dumps Came From"
    DumpImportControl followImport(const ImportProgress::Flag& flag);  // the status bar follows it
    void createFileMenu();
    void createDebugMenu();
    void addBreakConditionActions(QMenu* debug);
    void createDebugToolBar();
    void createViewMenu();
    void createHelpMenu();
    template <typename Slot>
    QAction* makeAction(const QString& text, const QString& name, const QKeySequence& key, Slot slot);
    void updateActions();
    void updateTitle();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void saveSession();
    void exportReport();
    void exportTensorPng();
    void exportRepro();  // main_window_repro.cpp
    void showShortcuts();
    void resetLayout();
    void applyDefaultDockSizes();
    QDockWidget* dock(const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area);
    QDockWidget* dockOf(QWidget* panel) const;
    void createDatasetView();     // the central tabs: the call's tensors and the Dataset view
    void createDatasetActions();  // File > Compare With File…, the tree's View / Compare entries
    void compareWithFile();
    void compareGroupWithFile(const QString& group);
    void compareCheckpoints();  // File > Compare Checkpoints…: two files of any checkpoint format
    void compareFolders();      // File > Compare Tensor Folders…: two folders of tensor files
    void createTimelineDock();  // the trace's executors on a time axis, beside Steps

    DebugContext* context_;
    TensorViewPanel* tensorView_;
    QTabWidget* centre_ = nullptr;
    DatasetViewPanel* datasetView_ = nullptr;
    GroupComparePanel* groupCompare_ = nullptr;
    TimelinePanel* timeline_ = nullptr;
    StepListPanel* steps_;
    ArgumentForm* form_;
    MetricsPanel* metrics_;
    bool unattended_ = false;
    ChartsPanel* charts_;
    FileBrowserPanel* files_;
    ElementHistoryPanel* history_;
    LogPanel* log_;
    QMenu* recentMenu_ = nullptr;
    QLabel* busyLabel_;
    QProgressBar* progress_;
    QToolButton* cancel_;
    ImportProgress* importProgress_;
    QByteArray defaultState_;
    bool layoutRestored_ = false;
    bool shownOnce_ = false;
    std::vector<QAction*> debugActions_;
    QString openDump_;    // the msprobe dump folder whose import is open, if one is
    QString reloadCase_;  // File › Reload of an import: the case to load once it is imported again
};

}  // namespace opscope::gui
