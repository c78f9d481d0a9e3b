// The open file: its cases (one click loads and prepares one) and its HDF5 tree (groups,
// datasets with shape, dtype and storage, attributes of the selected object), read lazily.
// Datasets drag onto tensor arguments.
#pragma once

#include <QWidget>
#include <functional>
#include <vector>

class QLabel;
class QMenu;
class QModelIndex;
class QTableView;
class QTableWidget;
class QTreeView;

namespace opscope::gui {

class CaseListModel;
class DebugContext;
class H5TreeModel;

class FileBrowserPanel : public QWidget {
    Q_OBJECT
public:
    explicit FileBrowserPanel(DebugContext* context, QWidget* parent = nullptr);

    // The tree's right-click menu is built for the item under the mouse by every registered
    // adder in turn (View and Compare, Copy path, Bind to, ...): each feature adds its own entries.
    struct TreeItem {
        QString path;
        bool isDataset = false;
        bool isCase = false;
    };
    using TreeMenuAdder = std::function<void(QMenu* menu, const TreeItem& item)>;
    void addTreeMenuEntries(TreeMenuAdder adder);
    // The menu for one tree row (what a right-click shows; tests inspect it).
    void fillTreeMenu(QMenu* menu, const QModelIndex& index) const;
    QTreeView* treeView() const { return treeView_; }
    H5TreeModel* treeModel() const { return tree_; }

Q_SIGNALS:
    // Double-click or Enter on a dataset of the tree: look at it.
    void datasetActivated(const QString& path);

private:
    void onFileChanged();
    void showAttributes(const QString& path);

    DebugContext* context_;
    QLabel* title_;
    QTableView* caseView_;
    CaseListModel* cases_;
    QTreeView* treeView_;
    H5TreeModel* tree_;
    QTableWidget* attributes_;
    std::vector<TreeMenuAdder> menuAdders_;
};

}  // namespace opscope::gui
