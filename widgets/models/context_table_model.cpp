#include "models/context_table_model.h"

namespace opscope::gui {

ContextTableModel::ContextTableModel(DebugContext* context, QStringList titles, QObject* parent)
    : QAbstractTableModel(parent), context_(context), titles_(std::move(titles)) {}

int ContextTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(titles_.size());
}

QVariant ContextTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section >= 0 && section < titles_.size() ? titles_[section] : QVariant();
}

void ContextTableModel::resetAll() {
    beginResetModel();
    endResetModel();
}

void ContextTableModel::repaintRows(int first, int last) {
    Q_EMIT dataChanged(index(first, 0), index(last, columnCount() - 1));
}

void ContextTableModel::repaintAll() {
    if (rowCount() > 0) repaintRows(0, rowCount() - 1);
}

}  // namespace opscope::gui
