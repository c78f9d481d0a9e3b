// The main window's dataset workflows: look at any dataset of the tree without an operator
// (double-click, Enter, "View", `--case /path/to/dataset`), and compare any two (a dataset with
// another, the same path in another file, a call's output with a dataset, every dataset below a
// group with the same group of another file).
#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QTabWidget>
#include <QTreeView>

#include "main_window.h"

#include "file_filters.h"
#include "models/h5_tree_model.h"
#include "opscope/h5/h5_file.h"
#include "opscope/import/tensor_file.h"
#include "session/debug_context.h"
#include "views/dataset_view_panel.h"
#include "views/file_browser_panel.h"
#include "views/group_compare_panel.h"
#include "views/tensor_view_panel.h"

namespace opscope::gui {

void MainWindow::createDatasetView() {
    datasetView_ = new DatasetViewPanel(this);
    centre_ = new QTabWidget(this);
    centre_->setObjectName("CentreTabs");
    centre_->addTab(tensorView_, tr("Call tensors"));
    centre_->addTab(datasetView_, tr("Dataset"));
    groupCompare_ = new GroupComparePanel(this);
    centre_->addTab(groupCompare_, tr("Group compare"));
    setCentralWidget(centre_);
    connect(groupCompare_, &GroupComparePanel::pairActivated, this, [this](const DatasetRef& a, const DatasetRef& b) {
        datasetView_->setStandard(groupCompare_->standard());  // the pair judged as its row was
        datasetView_->viewAndCompare(a, b);
        centre_->setCurrentWidget(datasetView_);
    });
    connect(context_, &DebugContext::caseLoaded, this, [this] { centre_->setCurrentWidget(tensorView_); });
}

void MainWindow::createDatasetActions() {
    auto* compare = new QAction(tr("Compare With &File…"), this);
    compare->setObjectName("compareWithFile");
    compare->setToolTip(tr("Compare the dataset shown with the same path in another file (two checkpoints)"));
    connect(compare, &QAction::triggered, this, [this] { compareWithFile(); });
    auto* checkpoints = new QAction(tr("Compare Chec&kpoints…"), this);
    checkpoints->setObjectName("compareCheckpoints");
    checkpoints->setToolTip(tr("Every tensor of one checkpoint (HDF5, .pt, .safetensors, .npz) against another's"));
    connect(checkpoints, &QAction::triggered, this, [this] { compareCheckpoints(); });
    auto* folders = new QAction(tr("Compare Tensor &Folders…"), this);
    folders->setObjectName("compareFolders");
    folders->setToolTip(
        tr("Every tensor file of one folder (an msprobe dump's dump_tensor_data) against "
           "the same file of another"));
    connect(folders, &QAction::triggered, this, [this] { compareFolders(); });
    for (QAction* top : menuBar()->actions())
        if (top->menu() && top->menu()->actions().contains(action("saveSession")))
            top->menu()->insertActions(action("saveSession"), {compare, checkpoints, folders});
    connect(files_, &FileBrowserPanel::datasetActivated, this, &MainWindow::viewDataset);
    files_->addTreeMenuEntries([this](QMenu* menu, const FileBrowserPanel::TreeItem& item) {
        if (item.node->kind == h5::ObjectKind::Group && !context_->isTensorFile()) {
            QAction* group = menu->addAction(tr("Compare Group With File…"), this,
                                             [this, path = item.path] { compareGroupWithFile(path); });
            group->setObjectName("compareGroupWithFile");
            group->setToolTip(tr("Every dataset below this group against the same group in another file"));
        }
        if (!item.isDataset) return;
        QAction* view = menu->addAction(tr("View"), this, [this, path = item.path] { viewDataset(path); });
        view->setObjectName("viewDataset");
        const std::optional<DatasetRef> a = datasetView_->viewedDataset();
        const DatasetRef b = datasetAt(item.path);
        QAction* cmp = menu->addAction(a ? tr("Compare %1 with this").arg(a->path) : tr("Compare with… (view A first)"),
                                       this, [this, b] { compareDataset(b); });
        cmp->setObjectName("compareDataset");
        cmp->setEnabled(datasetView_->hasTensor() && !(a && a->file == b.file && a->path == b.path));
        const auto outputs = context_->finalOutputs();
        if (!outputs || outputs->empty()) return;
        QMenu* sub = menu->addMenu(tr("Compare output with this"));
        for (const auto& [name, tensor] : *outputs) {
            const QString label = QString::fromStdString(name) + tr(" (this run)");
            auto t = std::make_shared<const HostTensor>(tensor);
            sub->addAction(label, this, [this, label, t, b] {
                datasetView_->showTensor(label, t);
                compareDataset(b);
            });
        }
    });
}

DatasetRef MainWindow::datasetAt(const QString& treePath) const {
    return {context_->filePath(), context_->isTensorFile() ? context_->tensorKey(treePath) : treePath};
}

void MainWindow::showDataset(const QString& path, const DatasetRef* reference) {
    if (context_->filePath().isEmpty()) return;
    if (reference)
        datasetView_->viewAndCompare(datasetAt(path), *reference);
    else
        datasetView_->view(datasetAt(path));
    centre_->setCurrentWidget(datasetView_);
    const QModelIndex item = files_->viewIndexForPath(path);
    if (item.isValid()) {
        files_->treeView()->setCurrentIndex(item);
        files_->treeView()->scrollTo(item);
    }
}

void MainWindow::compareDataset(const DatasetRef& reference) {
    datasetView_->compareWith(reference);
    centre_->setCurrentWidget(datasetView_);
}

namespace {

// What `path` names in the open HDF5 file: Missing when no file is open or the path is not an
// object of it (loading it as a case then says so).
h5::ObjectKind kindAt(const h5::File* f, const QString& path) {
    try {
        return f ? f->info(path.toStdString()).kind : h5::ObjectKind::Missing;
    } catch (const std::exception&) {
        return h5::ObjectKind::Missing;
    }
}

}  // namespace

void MainWindow::showPath(const QString& path) {
    // A key of a tensor file is a dataset; a wrong one is the view's sentence.
    if (context_->isTensorFile() || kindAt(context_->file(), path) == h5::ObjectKind::Dataset)
        viewDataset(path);
    else
        context_->loadCase(path);
}

DatasetRef MainWindow::referenceFor(const QString& spec) const {
    const std::string s = spec.toStdString();
    if (import::isTensorFileSpec(s)) {
        const QString file = QString::fromStdString(import::tensorFilePath(s));
        return {file, spec.mid(file.size() + 1)};
    }
    const int colon = spec.lastIndexOf(QStringLiteral(":/"));
    return colon > 0 ? DatasetRef{spec.left(colon), spec.mid(colon + 1)} : DatasetRef{context_->filePath(), spec};
}

bool MainWindow::showPathComparedWith(const QString& path, const QString& spec) {
    const h5::ObjectKind kind = kindAt(context_->file(), path);
    if (kind == h5::ObjectKind::Group) {
        const int colon = spec.lastIndexOf(QStringLiteral(":/"));
        compareGroup(path, colon > 0 ? spec.left(colon) : spec, colon > 0 ? spec.mid(colon + 1) : path);
        return true;
    }
    if (kind != h5::ObjectKind::Dataset && !context_->isTensorFile()) return false;
    viewDatasetComparedWith(path, referenceFor(spec));
    return true;
}

void MainWindow::compareWithFile() {
    const std::optional<DatasetRef> a = datasetView_->viewedDataset();
    if (!a) {
        QMessageBox::information(this, tr("Compare With File"),
                                 tr("First view a dataset (double-click it in the file tree): it is then compared "
                                    "with the same path in the file you choose."));
        return;
    }
    const QString other = QFileDialog::getOpenFileName(this, tr("Compare %1 with the same path in…").arg(a->path),
                                                       QSettings().value("lastDir").toString(), openableFilesFilter());
    if (!other.isEmpty()) compareDataset({other, a->path});
}

void MainWindow::compareGroupWithFile(const QString& group) {
    const QString other =
        QFileDialog::getOpenFileName(this, tr("Compare every dataset below %1 with the same group in…").arg(group),
                                     QSettings().value("lastDir").toString(), hdf5FilesFilter());
    if (!other.isEmpty()) compareGroup(group, other);
}

namespace {

// A checkpoint as a set: an HDF5 file's root group, or a tensor file's keys (an empty path).
DatasetRef checkpointSet(const QString& file) {
    return {file, import::isTensorFileSpec(file.toStdString()) ? QString() : QStringLiteral("/")};
}

}  // namespace

void MainWindow::compareCheckpoints() {
    const QString filter = openableFilesFilter();
    const QString dir = QSettings().value("lastDir").toString();
    const QString a = QFileDialog::getOpenFileName(this, tr("Compare checkpoint A (the actual)…"), dir, filter);
    if (a.isEmpty()) return;
    const QString b =
        QFileDialog::getOpenFileName(this, tr("…with checkpoint B (the reference)"), QFileInfo(a).path(), filter);
    if (b.isEmpty()) return;
    groupCompare_->compare(checkpointSet(a), checkpointSet(b));
    centre_->setCurrentWidget(groupCompare_);
}

void MainWindow::compareFolders() {
    const QString a = QFileDialog::getExistingDirectory(this, tr("Compare the tensor files of folder A (the actual)…"),
                                                        QSettings().value("lastDir").toString());
    if (a.isEmpty()) return;
    const QString b = QFileDialog::getExistingDirectory(this, tr("…with those of folder B (the reference)"), a);
    if (b.isEmpty()) return;
    groupCompare_->compare({a, {}}, {b, {}});
    centre_->setCurrentWidget(groupCompare_);
}

void MainWindow::compareGroup(const QString& group, const QString& otherFile, const QString& otherGroup) {
    if (context_->filePath().isEmpty()) return;
    groupCompare_->compare({context_->filePath(), group}, {otherFile, otherGroup.isEmpty() ? group : otherGroup});
    centre_->setCurrentWidget(groupCompare_);
}

}  // namespace opscope::gui
