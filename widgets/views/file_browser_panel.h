// The open file: its cases (one click loads and prepares one) and its HDF5 tree (groups,
// datasets with shape, dtype and storage, attributes of the selected object), read lazily and
// filtered by name, path, dtype or shape. Datasets drag onto tensor arguments; double-click or
// Enter on one views it; the right-click menu is built by every feature's adder in turn.
#pragma once

#include <QWidget>
#include <functional>
#include <vector>

#include "opscope/h5/tensor_io.h"

class QLabel;
class QLineEdit;
class QMenu;
class QModelIndex;
class QTimer;
class QTableView;
class QTableWidget;
class QTreeView;

namespace opscope::gui {

class CaseListModel;
class DebugContext;
class H5TreeFilterModel;
class H5TreeModel;

class FileBrowserPanel : public QWidget {
    Q_OBJECT
public:
    // Cases load once the case list's selection has rested this long (arrow keys held down).
    static constexpr int kCaseSettleMs = 150;

    explicit FileBrowserPanel(DebugContext* context, QWidget* parent = nullptr);

    // The tree's right-click menu is built for the item under the mouse by every registered
    // adder in turn (Bind to, Copy path, View and Compare, ...): each feature adds its own entries.
    struct TreeItem {
        QString path;
        bool isDataset = false;
        bool isCase = false;
        const h5::NodeInfo* node = nullptr;  // never null when an adder runs
    };
    using TreeMenuAdder = std::function<void(QMenu* menu, const TreeItem& item)>;
    void addTreeMenuEntries(TreeMenuAdder adder);
    // The right-click menu of a tree row (an index of treeView()'s model, which is filtered).
    void fillTreeMenu(QMenu* menu, const QModelIndex& viewIndex) const;
    // The row of `path` in treeView()'s model (invalid when the filter hides it or it is absent).
    QModelIndex viewIndexForPath(const QString& path) const;

    QTableView* caseView() const { return caseView_; }
    QLabel* changedOnDiskBanner() const { return changedOnDisk_; }
    QTreeView* treeView() const { return treeView_; }
    QLineEdit* filterBox() const { return filter_; }
    H5TreeModel* treeModel() const { return tree_; }

Q_SIGNALS:
    // Double-click or Enter on a dataset of the tree: look at it.
    void datasetActivated(const QString& path);
    // The banner's "Reload" link: open the file again (File › Reload).
    void reloadRequested();

private:
    void buildCaseView();
    void buildChangedOnDiskBanner();
    void buildTree();
    void onFileChanged();
    void showAttributes(const QString& path);
    void onCaseCurrentChanged(const QModelIndex& index);
    void loadCaseAt(const QModelIndex& index);
    void selectCaseRow(const QString& path);
    void addBindEntries(QMenu* menu, const h5::NodeInfo& node);
    void addCopyEntries(QMenu* menu, const h5::NodeInfo& node);

    DebugContext* context_;
    QLabel* title_;
    QLabel* changedOnDisk_;  // shown while the open file differs from the one on disk
    QTableView* caseView_;
    CaseListModel* cases_;
    QTimer* caseSettle_;
    QLineEdit* filter_;
    QTreeView* treeView_;
    H5TreeModel* tree_;
    H5TreeFilterModel* treeFilter_;
    QTableWidget* attributes_;
    std::vector<TreeMenuAdder> menuAdders_;
};

}  // namespace opscope::gui
