// The plan's tensor slots: inputs, outputs and the scratch tensors placed in the workspace,
// with the steps that write them. Selecting one shows it in the tensor view.
#pragma once

#include "models/context_table_model.h"

namespace opscope::gui {

class SlotTableModel : public ContextTableModel {
    Q_OBJECT
public:
    enum Column { Name, Kind, DType, Shape, Workspace, WrittenBy, ColumnCount };
    enum Role { SlotNameRole = Qt::UserRole + 1 };
    explicit SlotTableModel(DebugContext* context, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

private:
};

}  // namespace opscope::gui
