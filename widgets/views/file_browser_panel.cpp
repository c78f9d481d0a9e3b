#include "views/file_browser_panel.h"

#include <QClipboard>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLineEdit>
#include <QMenu>
#include <QShortcut>
#include <QTimer>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "models/case_list_model.h"
#include "models/h5_tree_filter_model.h"
#include "models/h5_tree_model.h"
#include "opscope/case_file.h"
#include "opscope/ops/argument_fit.h"
#include "opscope/h5/attribute_value.h"
#include "palette.h"
#include "session/debug_context.h"
#include "views/panel_setup.h"

namespace opscope::gui {

namespace {
constexpr int kMaxCaseColumnWidth = 320;
}  // namespace

FileBrowserPanel::FileBrowserPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    QSplitter* split = titledSplitter(this, &title_, Qt::Vertical);
    buildChangedOnDiskBanner();
    caseView_ = new QTableView(split);
    buildCaseView();
    auto* treeBox = new QWidget(split);
    auto* treeLayout = new QVBoxLayout(treeBox);
    treeLayout->setContentsMargins(0, 0, 0, 0);
    treeLayout->setSpacing(2);
    filter_ = new QLineEdit(treeBox);
    treeView_ = new QTreeView(treeBox);
    treeLayout->addWidget(filter_);
    treeLayout->addWidget(treeView_, 1);
    buildTree();
    attributes_ = new QTableWidget(0, 3, split);
    attributes_->setHorizontalHeaderLabels({tr("Attribute"), tr("Type"), tr("Value")});
    attributes_->verticalHeader()->hide();
    attributes_->horizontalHeader()->setStretchLastSection(true);
    attributes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    split->addWidget(caseView_);
    split->addWidget(treeBox);
    split->addWidget(attributes_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 1);
    split->setSizes({240, 240, 90});

    addTreeMenuEntries([this](QMenu* menu, const TreeItem& item) { addBindEntries(menu, *item.node); });
    addTreeMenuEntries([this](QMenu* menu, const TreeItem& item) { addCopyEntries(menu, *item.node); });
    connect(context_, &DebugContext::fileChanged, this, &FileBrowserPanel::onFileChanged);
    connect(context_, &DebugContext::caseLoaded, this, [this](const QString& path) {
        const QModelIndex i = treeFilter_->mapFromSource(tree_->indexForPath(path.toStdString()));
        if (i.isValid()) {
            treeView_->expand(i);
            treeView_->scrollTo(i);
        }
        selectCaseRow(path);
    });
    onFileChanged();
}

// Stays up from the moment the file on disk is no longer the one shown until it is opened again.
void FileBrowserPanel::buildChangedOnDiskBanner() {
    changedOnDisk_ = new QLabel(this);
    changedOnDisk_->setObjectName("changedOnDiskBanner");
    changedOnDisk_->setWordWrap(true);
    changedOnDisk_->setStyleSheet("color: #b71c1c; font-weight: bold");
    changedOnDisk_->setText(
        tr("Changed on disk since it was opened (the file, or the dump it was imported from): the cases, tree "
           "and verdicts are of it as it was. <a href=\"reload\">Reload</a> (Ctrl+R)"));
    changedOnDisk_->hide();
    static_cast<QVBoxLayout*>(layout())->insertWidget(1, changedOnDisk_);  // under titledSplitter's title
    connect(changedOnDisk_, &QLabel::linkActivated, this, &FileBrowserPanel::reloadRequested);
    connect(context_, &DebugContext::fileChangedOnDisk, changedOnDisk_, &QWidget::show);
}

// Cases load on a click or Enter at once, and on arrow keys once the selection rests: holding
// a key down loads only the case it stops on. The shown case goes as soon as the selection
// leaves it, so no verdict stands beside a case it does not belong to.
void FileBrowserPanel::buildCaseView() {
    cases_ = new CaseListModel(context_, this);
    caseView_->setModel(cases_);
    setUpRowTable(caseView_);
    caseView_->verticalHeader()->setDefaultSectionSize(caseView_->fontMetrics().height() + 4);
    caseView_->setTextElideMode(Qt::ElideRight);
    caseView_->setWordWrap(false);
    caseView_->setToolTip(tr("Click a case, or move to it with the arrow keys, to load and prepare it"));
    caseSettle_ = new QTimer(this);
    caseSettle_->setSingleShot(true);
    caseSettle_->setInterval(kCaseSettleMs);
    connect(caseSettle_, &QTimer::timeout, this, [this] { loadCaseAt(caseView_->currentIndex()); });
    connect(caseView_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &FileBrowserPanel::onCaseCurrentChanged);
    connect(caseView_, &QTableView::clicked, this, &FileBrowserPanel::loadCaseAt);
    connect(caseView_, &QTableView::activated, this, &FileBrowserPanel::loadCaseAt);
}

void FileBrowserPanel::onCaseCurrentChanged(const QModelIndex& index) {
    const cases::Case* shown = context_->currentCase();
    const QString path = cases_->data(index, CaseListModel::PathRole).toString();
    if (!index.isValid() || (shown && QString::fromStdString(shown->path) == path)) return;
    context_->leaveCase();
    caseSettle_->start();
}

// A case loaded otherwise than from the list (--case, Reload, a session) is its current row too,
// so the list never points at another case than the one shown.
void FileBrowserPanel::selectCaseRow(const QString& path) {
    const QModelIndexList rows = cases_->match(cases_->index(0, 0), CaseListModel::PathRole, path, 1, Qt::MatchExactly);
    if (rows.isEmpty() || caseView_->currentIndex().row() == rows.front().row()) return;
    caseView_->setCurrentIndex(rows.front());  // the shown case: onCaseCurrentChanged leaves it be
    caseView_->scrollTo(rows.front());
}

void FileBrowserPanel::loadCaseAt(const QModelIndex& index) {
    caseSettle_->stop();
    if (index.isValid()) context_->loadCase(cases_->data(index, CaseListModel::PathRole).toString());
}

void FileBrowserPanel::buildTree() {
    filter_->setPlaceholderText(tr("Filter (Ctrl+F): name, path, dtype (f32), shape ([32768, 4096]) or a dimension"));
    filter_->setToolTip(tr(H5TreeFilterModel::kSyntax));
    filter_->setClearButtonEnabled(true);
    auto* find = new QShortcut(QKeySequence::Find, this);  // Ctrl+F anywhere in the window
    connect(find, &QShortcut::activated, this, [this] {
        filter_->setFocus(Qt::ShortcutFocusReason);
        filter_->selectAll();
    });
    tree_ = new H5TreeModel(this);
    treeFilter_ = new H5TreeFilterModel(tree_, this);
    treeView_->setModel(treeFilter_);
    treeView_->setDragEnabled(true);
    treeView_->setDragDropMode(QAbstractItemView::DragOnly);
    treeView_->setUniformRowHeights(true);
    treeView_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    treeView_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        treeFilter_->setQuery(text);
        if (!text.trimmed().isEmpty()) treeView_->expandAll();
    });
    connect(treeView_, &QTreeView::doubleClicked, this, [this](const QModelIndex& i) {
        if (treeFilter_->data(i, H5TreeModel::IsCaseRole).toBool())
            context_->loadCase(treeFilter_->data(i, H5TreeModel::PathRole).toString());
    });
    // Enter and double-click on a dataset (activated is both): look at it.
    connect(treeView_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        if (treeFilter_->data(i, H5TreeModel::IsDatasetRole).toBool())
            Q_EMIT datasetActivated(treeFilter_->data(i, H5TreeModel::PathRole).toString());
    });
    connect(treeView_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& i) {
        const QString path = treeFilter_->data(i, H5TreeModel::PathRole).toString();
        context_->setSelectedDataset(treeFilter_->data(i, H5TreeModel::IsDatasetRole).toBool() ? path : QString());
        showAttributes(path);
    });
    connect(treeView_, &QTreeView::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        fillTreeMenu(&menu, treeView_->indexAt(pos));
        if (!menu.isEmpty()) menu.exec(treeView_->viewport()->mapToGlobal(pos));
    });
}

void FileBrowserPanel::addTreeMenuEntries(TreeMenuAdder adder) { menuAdders_.push_back(std::move(adder)); }

QModelIndex FileBrowserPanel::viewIndexForPath(const QString& path) const {
    return treeFilter_->mapFromSource(tree_->indexForPath(path.toStdString()));
}

void FileBrowserPanel::fillTreeMenu(QMenu* menu, const QModelIndex& viewIndex) const {
    const h5::NodeInfo* node = tree_->nodeInfo(treeFilter_->mapToSource(viewIndex));
    if (!node) return;
    TreeItem item;
    item.node = node;
    item.path = QString::fromStdString(node->path);
    item.isDataset = node->kind == h5::ObjectKind::Dataset;
    item.isCase = treeFilter_->data(viewIndex, H5TreeModel::IsCaseRole).toBool();
    for (const TreeMenuAdder& add : menuAdders_) add(menu, item);
}

// "Bind to ▸ argument": every tensor argument of the chosen operator. One the dataset can never
// be (dtype, rank) is disabled with the reason; one whose shape disagrees with another bound
// tensor stays enabled with a warning, since replacing a case's tensors goes one at a time.
void FileBrowserPanel::addBindEntries(QMenu* menu, const h5::NodeInfo& node) {
    if (node.kind != h5::ObjectKind::Dataset) return;
    QMenu* bind = menu->addMenu(tr("Bind to"));
    const ops::Operator* op = context_->op();
    if (!op) {
        bind->setTitle(tr("Bind to (choose an operator or load a case first)"));
        bind->setEnabled(false);
        return;
    }
    ops::TensorShapes bound;
    for (const auto& [name, b] : context_->arguments().tensors) bound[name] = b.tensor.shape();
    const QString path = QString::fromStdString(node.path);
    for (const ops::ArgSpec& a : op->schema().tensors) {
        const auto mismatch = [&](const ops::TensorShapes& others) {
            return QString::fromStdString(
                node.dataset.nullSpace
                    ? std::string("holds no values")
                    : ops::argumentMismatch(op->schema(), a.name, node.dataset.dtype, node.dataset.shape, others));
        };
        const QString never = mismatch({}), disagrees = never.isEmpty() ? mismatch(bound) : QString();
        const QString name = QString::fromStdString(a.name);
        QAction* act = bind->addAction(!never.isEmpty()       ? tr("%1 — %2").arg(name, never)
                                       : !disagrees.isEmpty() ? tr("%1 — ⚠ %2").arg(name, disagrees)
                                                              : name);
        act->setObjectName(QStringLiteral("bindTo_") + name);
        act->setEnabled(never.isEmpty());
        const std::string argument = a.name;
        connect(act, &QAction::triggered, this, [this, argument, path] { context_->bindDataset(argument, path); });
    }
}

void FileBrowserPanel::addCopyEntries(QMenu* menu, const h5::NodeInfo& node) {
    const QString path = QString::fromStdString(node.path);
    QAction* copy = menu->addAction(tr("Copy path"));
    copy->setObjectName("copyPath");
    connect(copy, &QAction::triggered, this, [path] { QGuiApplication::clipboard()->setText(path); });
}

namespace {

// A tensor file's tensors as the tree's datasets: each key its path (the file's one unnamed
// tensor under the file's name, as DebugContext::tensorKey reads it back).
std::vector<h5::NodeInfo> tensorNodes(const std::vector<import::TensorEntry>& tensors, const QString& file) {
    std::vector<h5::NodeInfo> nodes;
    for (const import::TensorEntry& t : tensors) {
        h5::NodeInfo n;
        n.path = t.key.empty() ? QFileInfo(file).fileName().toStdString() : t.key;
        n.name = n.path.substr(n.path.rfind('/') == std::string::npos ? 0 : n.path.rfind('/') + 1);
        n.kind = h5::ObjectKind::Dataset;
        n.dataset.shape = t.shape;
        n.dataset.dtype = t.dtype;
        n.dataset.typeName = dtypeName(t.dtype);
        n.dataset.storageBytes = static_cast<uint64_t>(shapeNumel(t.shape)) * dtypeSize(t.dtype);
        nodes.push_back(std::move(n));
    }
    return nodes;
}

}  // namespace

void FileBrowserPanel::onFileChanged() {
    changedOnDisk_->setVisible(context_->changedOnDisk());
    std::set<std::string> casePaths;
    for (const CaseEntry& c : context_->cases()) casePaths.insert(c.path);
    if (context_->isTensorFile())
        tree_->setListing(tensorNodes(context_->tensorEntries(), context_->filePath()));
    else
        tree_->setFile(context_->file(), casePaths);
    attributes_->setRowCount(0);
    if (context_->isTensorFile()) {
        const QFileInfo fi(context_->filePath());
        title_->setText(tr("<b>%1</b> — %2 · %n tensor(s): double-click one to view it, drag it onto an argument", "",
                           static_cast<int>(context_->tensorEntries().size()))
                            .arg(fi.fileName().toHtmlEscaped(), formatBytes(double(fi.size()))));
        title_->setToolTip(context_->filePath());
        return;
    }
    if (!context_->file()) {
        title_->setText(
            tr("No file. <b>File › Open</b> (Ctrl+O) an .h5 file or a checkpoint (.pt, .safetensors, "
               ".npz, .npy), drop one here, or pass one on the command line."));
        return;
    }
    const QFileInfo fi(context_->filePath());
    // The device the cases came from (import msprobe --product): loading one emulates it.
    std::string unknown;
    const std::optional<Product> device = cases::recordedProductOf(*context_->file(), &unknown);
    const QString from = device             ? tr(" · from the %1").arg(QString::fromUtf8(productName(*device)))
                         : !unknown.empty() ? tr(" · from product '%1' (unknown)").arg(QString::fromStdString(unknown))
                                            : QString();
    title_->setText(tr("<b>%1</b> — %2 · %3 %4%5")
                        .arg(fi.fileName().toHtmlEscaped(), formatBytes(double(fi.size())))
                        .arg(context_->cases().size())
                        .arg(context_->isTraceFile() ? tr("recorded executor run(s)") : tr("case(s)"))
                        .arg(from.toHtmlEscaped()));
    title_->setToolTip(context_->filePath());
    // Full names where they fit, elided at the end (tooltip: the whole text) where they do not.
    caseView_->resizeColumnsToContents();
    for (int c : {int(CaseListModel::Path), int(CaseListModel::Operator)})
        caseView_->setColumnWidth(c, std::min(caseView_->columnWidth(c), kMaxCaseColumnWidth));
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
