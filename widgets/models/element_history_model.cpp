#include "models/element_history_model.h"

#include <QBrush>
#include <cmath>

#include "opscope/view/slice.h"
#include "session/debug_context.h"
#include "palette.h"

namespace opscope::gui {

ElementHistoryModel::ElementHistoryModel(DebugContext* context, QObject* parent)
    : ContextTableModel(
          context, {tr("#"), tr("Step"), tr("Tensor"), tr("Value"), tr("Reference"), tr("|Error|"), tr("Rel. error")},
          parent) {
    connect(context, &DebugContext::historyChanged, this, &ElementHistoryModel::resetAll);
    connect(context, &DebugContext::baselineChanged, this, &ElementHistoryModel::resetAll);
}

int ElementHistoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(context_->history().size());
}

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

}  // namespace opscope::gui
