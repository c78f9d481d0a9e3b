// The cases (or recorded executors) of the open file: one click loads one.
#pragma once

#include "models/context_table_model.h"

namespace opscope::gui {

class CaseListModel : public ContextTableModel {
    Q_OBJECT
public:
    enum Column { Path, Operator, Description, ColumnCount };
    enum Role { PathRole = Qt::UserRole + 1 };

    explicit CaseListModel(DebugContext* context, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

private:
    QString loaded_;
};

}  // namespace opscope::gui
