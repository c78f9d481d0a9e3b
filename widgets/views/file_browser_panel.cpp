#include "views/file_browser_panel.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "models/case_list_model.h"
#include "models/h5_tree_model.h"
#include "opscope/h5/attribute_value.h"
#include "session/debug_context.h"

namespace opscope::gui {

FileBrowserPanel::FileBrowserPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel(this);
    title_->setWordWrap(true);
    l->addWidget(title_);
    auto* split = new QSplitter(Qt::Vertical, this);
    caseView_ = new QTableView(split);
    cases_ = new CaseListModel(context, this);
    caseView_->setModel(cases_);
    caseView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    caseView_->setSelectionMode(QAbstractItemView::SingleSelection);
    caseView_->verticalHeader()->hide();
    caseView_->horizontalHeader()->setStretchLastSection(true);
    caseView_->verticalHeader()->setDefaultSectionSize(caseView_->fontMetrics().height() + 4);
    caseView_->setTextElideMode(Qt::ElideLeft);
    caseView_->setWordWrap(false);
    caseView_->setToolTip(tr("Click a case to load and prepare it"));
    treeView_ = new QTreeView(split);
    tree_ = new H5TreeModel(this);
    treeView_->setModel(tree_);
    treeView_->setDragEnabled(true);
    treeView_->setDragDropMode(QAbstractItemView::DragOnly);
    treeView_->setUniformRowHeights(true);
    treeView_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    attributes_ = new QTableWidget(0, 3, split);
    attributes_->setHorizontalHeaderLabels({tr("Attribute"), tr("Type"), tr("Value")});
    attributes_->verticalHeader()->hide();
    attributes_->horizontalHeader()->setStretchLastSection(true);
    attributes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    split->addWidget(caseView_);
    split->addWidget(treeView_);
    split->addWidget(attributes_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 1);
    split->setSizes({240, 240, 90});
    l->addWidget(split, 1);

    connect(caseView_, &QTableView::clicked, this,
            [this](const QModelIndex& i) { context_->loadCase(cases_->data(i, CaseListModel::PathRole).toString()); });
    connect(caseView_, &QTableView::activated, this,
            [this](const QModelIndex& i) { context_->loadCase(cases_->data(i, CaseListModel::PathRole).toString()); });
    connect(treeView_, &QTreeView::doubleClicked, this, [this](const QModelIndex& i) {
        if (tree_->data(i, H5TreeModel::IsCaseRole).toBool())
            context_->loadCase(tree_->data(i, H5TreeModel::PathRole).toString());
    });
    // Enter and double-click on a dataset (activated is both).
    connect(treeView_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        if (tree_->data(i, H5TreeModel::IsDatasetRole).toBool())
            Q_EMIT datasetActivated(tree_->data(i, H5TreeModel::PathRole).toString());
    });
    treeView_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(treeView_, &QTreeView::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex i = treeView_->indexAt(pos);
        if (!i.isValid()) return;
        QMenu menu(this);
        fillTreeMenu(&menu, i);
        if (!menu.isEmpty()) menu.exec(treeView_->viewport()->mapToGlobal(pos));
    });
    connect(treeView_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& i) { showAttributes(tree_->data(i, H5TreeModel::PathRole).toString()); });
    connect(context_, &DebugContext::fileChanged, this, &FileBrowserPanel::onFileChanged);
    connect(context_, &DebugContext::caseLoaded, this, [this](const QString& path) {
        const QModelIndex i = tree_->indexForPath(path.toStdString());
        if (i.isValid()) {
            treeView_->expand(i);
            treeView_->scrollTo(i);
        }
    });
    onFileChanged();
}

void FileBrowserPanel::addTreeMenuEntries(TreeMenuAdder adder) { menuAdders_.push_back(std::move(adder)); }

void FileBrowserPanel::fillTreeMenu(QMenu* menu, const QModelIndex& index) const {
    TreeItem item;
    item.path = tree_->data(index, H5TreeModel::PathRole).toString();
    item.isDataset = tree_->data(index, H5TreeModel::IsDatasetRole).toBool();
    item.isCase = tree_->data(index, H5TreeModel::IsCaseRole).toBool();
    for (const TreeMenuAdder& add : menuAdders_) add(menu, item);
}

void FileBrowserPanel::onFileChanged() {
    std::set<std::string> casePaths;
    for (const CaseEntry& c : context_->cases()) casePaths.insert(c.path);
    tree_->setFile(context_->file(), casePaths);
    attributes_->setRowCount(0);
    if (!context_->file()) {
        title_->setText(
            tr("No file. <b>File › Open</b> (Ctrl+O), drop an .h5 file here, or pass one on the command line."));
        return;
    }
    const QFileInfo fi(context_->filePath());
    title_->setText(
        tr("<b>%1</b> — %2 · %3 %4")
            .arg(fi.fileName().toHtmlEscaped(), QString::number(fi.size() / 1024.0 / 1024.0, 'f', 2) + " MiB")
            .arg(context_->cases().size())
            .arg(context_->isTraceFile() ? tr("recorded executor run(s)") : tr("case(s)")));
    title_->setToolTip(context_->filePath());
    caseView_->resizeColumnsToContents();
    caseView_->setColumnWidth(CaseListModel::Path, std::min(caseView_->columnWidth(CaseListModel::Path), 230));
    showAttributes("/");
}

void FileBrowserPanel::showAttributes(const QString& qpath) {
    attributes_->setRowCount(0);
    const h5::File* f = context_->file();
    if (!f || qpath.isEmpty()) return;
    const std::string path = qpath.toStdString();
    try {
        const std::vector<std::string> names = f->attributeNames(path);
        attributes_->setRowCount(static_cast<int>(names.size()));
        for (std::size_t i = 0; i < names.size(); ++i) {
            const int r = static_cast<int>(i);
            attributes_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(names[i])));
            attributes_->setItem(
                r, 1, new QTableWidgetItem(QString::fromStdString(h5::describeAttribute(*f, path, names[i]))));
            auto* value = new QTableWidgetItem(QString::fromStdString(h5::attributeText(*f, path, names[i])));
            value->setToolTip(value->text());
            attributes_->setItem(r, 2, value);
        }
        attributes_->resizeColumnToContents(0);
    } catch (const std::exception& e) {
        attributes_->setRowCount(1);
        attributes_->setItem(0, 0, new QTableWidgetItem(tr("error")));
        attributes_->setItem(0, 2, new QTableWidgetItem(QString::fromUtf8(e.what())));
    }
}

}  // namespace opscope::gui
