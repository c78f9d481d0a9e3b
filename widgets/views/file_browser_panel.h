// The open file: its cases (one click loads and prepares one) and its HDF5 tree (groups,
// datasets with shape, dtype and storage, attributes of the selected object), read lazily.
// Datasets drag onto tensor arguments.
#pragma once

#include <QWidget>

class QLabel;
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
};

}  // namespace opscope::gui
