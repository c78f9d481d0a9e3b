#include "models/element_history_model.h"

#include <QBrush>
#include <cmath>

#include "opscope/view/slice.h"
#include "session/debug_context.h"
#include "palette.h"

namespace opscope::gui {

ElementHistoryModel::ElementHistoryModel(DebugContext* context, QObject* parent)
    : QAbstractTableModel(parent), context_(context) {
    auto reset = [this] {
        beginResetModel();
        endResetModel();
    };
    connect(context, &DebugContext::historyChanged, this, reset);
    connect(context, &DebugContext::baselineChanged, this, reset);
}

int ElementHistoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(context_->history().size());
}

int ElementHistoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

bool ElementHistoryModel::referenceValue(double* out) const {
    const ElementPick& p = context_->pick();
    const TensorMapPtr b = context_->baseline();
    if (!b || p.output.empty()) return false;
    auto it = b->find(p.output);
    if (it == b->end() || it->second.shape() != p.shape) return false;
    // As the comparisons (and the "Picked" line) see it: rounded to the output's dtype.
    const SlotInfo* output = context_->plan().findSlot(p.output);
    const DType dt = output && isFloatingType(output->dtype) ? output->dtype : DType::Float32;
    *out = metrics::roundToDtype(it->second.getAsDouble(view::flatIndex(p.shape, p.index)), dt);
    return true;
}

QVariant ElementHistoryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const HistoryEntry& h = context_->history()[static_cast<std::size_t>(index.row())];
    double ref = 0;
    const bool hasRef = referenceValue(&ref);
    const double abs = std::fabs(h.value - ref);
    const double rel = metrics::relativeError(h.value, ref);
    if (role == Qt::TextAlignmentRole && index.column() >= Value) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole && !std::isfinite(h.value)) return QBrush(verdictBackground(metrics::Verdict::Fail));
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Step: return QString::number(h.step);
        case StepName: return QString::fromStdString(h.stepName);
        case Tensor: return QString::fromStdString(h.slotName);
        case Value: return formatNumber(h.value, 9);
        case Reference: return hasRef ? formatNumber(ref, 9) : QString();
        case AbsError: return hasRef ? formatNumber(abs, 3) : QString();
        case RelError: return hasRef ? formatNumber(rel, 3) : QString();
    }
    return {};
}

QVariant ElementHistoryModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"#", "Step", "Tensor", "Value", "Reference", "|Error|", "Rel. error"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace opscope::gui
