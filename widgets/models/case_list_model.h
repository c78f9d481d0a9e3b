// The cases (or recorded executors) of the open file: one click loads one.
#pragma once

#include <QAbstractTableModel>

namespace opscope::gui {

class DebugContext;

class CaseListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Path, Operator, Description, ColumnCount };
    enum Role { PathRole = Qt::UserRole + 1 };

    explicit CaseListModel(DebugContext* context, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    DebugContext* context_;
    QString loaded_;
};

}  // namespace opscope::gui
