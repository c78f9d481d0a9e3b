// The plan's tensor slots: inputs, outputs and the scratch tensors placed in the workspace,
// with the steps that write them. Selecting one shows it in the tensor view.
#pragma once

#include <QAbstractTableModel>

namespace opscope::gui {

class DebugContext;

class SlotTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Kind, DType, Shape, Workspace, WrittenBy, ColumnCount };
    enum Role { SlotNameRole = Qt::UserRole + 1 };
    explicit SlotTableModel(DebugContext* context, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    DebugContext* context_;
};

}  // namespace opscope::gui
