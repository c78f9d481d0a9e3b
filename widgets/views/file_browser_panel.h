// The open file: its cases (one click loads and prepares one) and its HDF5 tree (groups,
// datasets with shape, dtype and storage, attributes of the selected object), read lazily.
// Datasets drag onto tensor arguments.
#pragma once

#include <QWidget>

#include "opscope/h5/tensor_io.h"

class QLabel;
class QLineEdit;
class QMenu;
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

    QTableView* caseView() const { return caseView_; }
    QTreeView* treeView() const { return treeView_; }
    QLineEdit* filterBox() const { return filter_; }
    // The right-click menu of a tree row (an index of treeView()'s model).
    void fillTreeMenu(QMenu* menu, const QModelIndex& viewIndex);

private:
    void buildCaseView();
    void buildTree();
    void onFileChanged();
    void showAttributes(const QString& path);
    void onCaseCurrentChanged(const QModelIndex& index);
    void loadCaseAt(const QModelIndex& index);
    void addBindEntries(QMenu* menu, const h5::NodeInfo& node);
    void addCopyEntries(QMenu* menu, const h5::NodeInfo& node);

    DebugContext* context_;
    QLabel* title_;
    QTableView* caseView_;
    CaseListModel* cases_;
    QTimer* caseSettle_;
    QLineEdit* filter_;
    QTreeView* treeView_;
    H5TreeModel* tree_;
    H5TreeFilterModel* treeFilter_;
    QTableWidget* attributes_;
};

}  // namespace opscope::gui
