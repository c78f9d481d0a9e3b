#include "models/slot_table_model.h"

#include <QBrush>

#include "session/debug_context.h"
#include "palette.h"

namespace opscope::gui {

SlotTableModel::SlotTableModel(DebugContext* context, QObject* parent)
    : ContextTableModel(
          context, {tr("Slot"), tr("Kind"), tr("Dtype"), tr("Shape"), tr("Workspace"), tr("Written by step")}, parent) {
    connect(context, &DebugContext::planChanged, this, &SlotTableModel::resetAll);
    connect(context, &DebugContext::positionChanged, this, &SlotTableModel::repaintAll);
}

int SlotTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(context_->plan().slots.size());
}

QVariant SlotTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const PlanInfo& plan = context_->plan();
    const SlotInfo& s = plan.slots[static_cast<std::size_t>(index.row())];
    QStringList writers;
    for (const StepInfo& st : plan.steps)
        for (int o : st.outputs)
            if (o == s.id) writers << QString::number(st.index);
    const bool written = slotWritten(plan, context_->stepStates(), s.id);
    if (role == SlotNameRole) return QString::fromStdString(s.name);
    if (role == Qt::ForegroundRole && !written) return QBrush(QColor(0x80, 0x80, 0x80));
    if (role == Qt::ToolTipRole && !written) return tr("Not written yet at the current step");
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case Name: return QString::fromStdString(s.name);
        case Kind: return QString::fromUtf8(slotKindName(s.kind));
        case DType: return QString::fromUtf8(dtypeName(s.dtype));
        case Shape: return formatShape(s.shape) + (s.contiguous ? QString() : tr(" strided"));
        case Workspace:
            return s.kind == SlotKind::Scratch
                       ? QStringLiteral("@%1, %2").arg(s.wsOffset).arg(formatBytes(double(s.bytes)))
                       : QString();
        case WrittenBy: return writers.join(", ");
    }
    return {};
}

}  // namespace opscope::gui
