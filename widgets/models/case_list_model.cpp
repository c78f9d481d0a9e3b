#include "models/case_list_model.h"

#include <QFont>

#include "session/debug_context.h"

namespace opscope::gui {

CaseListModel::CaseListModel(DebugContext* context, QObject* parent)
    : ContextTableModel(context, {tr("Case"), tr("Operator"), tr("Description")}, parent) {
    connect(context, &DebugContext::fileChanged, this, [this] {
        beginResetModel();
        loaded_.clear();
        endResetModel();
    });
    connect(context, &DebugContext::caseLoaded, this, [this](const QString& path) {
        loaded_ = path;
        repaintAll();
    });
}

int CaseListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(context_->cases().size());
}

QVariant CaseListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const CaseEntry& c = context_->cases()[static_cast<std::size_t>(index.row())];
    const QString path = QString::fromStdString(c.path);
    if (role == PathRole) return path;
    if (role == Qt::FontRole && path == loaded_) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole) return path + "\n" + QString::fromStdString(c.description);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Path: return path;
        case Operator: return QString::fromStdString(c.op);
        case Description: return QString::fromStdString(c.description);
    }
    return {};
}

}  // namespace opscope::gui
