#include "models/step_list_model.h"

#include <QBrush>
#include <QFont>

#include "session/debug_context.h"
#include "palette.h"

namespace opscope::gui {

StepListModel::StepListModel(DebugContext* context, QObject* parent)
    : ContextTableModel(context,
                        {tr("●"), tr("#"), tr("Step"), tr("Status"), tr("Verdict"), tr("NaN/Inf"), tr("Max rel"),
                         tr("Time (µs)"), tr("Writes"), tr("Min"), tr("Max"), tr("Mean |x|")},
                        parent) {
    connect(context, &DebugContext::planChanged, this, [this] {
        beginResetModel();
        shownPosition_ = context_->nextStep();
        endResetModel();
    });
    connect(context, &DebugContext::stepStateChanged, this, &StepListModel::onStepChanged);
    connect(context, &DebugContext::positionChanged, this, &StepListModel::onPositionChanged);
}

int StepListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(context_->plan().steps.size());
}

void StepListModel::onStepChanged(std::size_t step) {
    if (static_cast<int>(step) >= rowCount()) return;
    const int r = static_cast<int>(step);
    repaintRows(r, r);
}

void StepListModel::onPositionChanged(std::size_t next) {
    // The "next step" marker moves: repaint the old and the new row.
    const std::size_t old = shownPosition_;
    shownPosition_ = next;
    onStepChanged(old);
    onStepChanged(next);
}

QVariant StepListModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case Break: return tr("Breakpoint: Continue stops before this step (F9)");
            case Duration: return tr("Wall time of the step in microseconds");
            case Writes: return tr("Tensors the step wrote");
            case Min:
            case Max:
            case MeanAbs: return tr("Over the finite values of the step's first output");
            case MaxRel: return tr("Largest relative error of what the step wrote against the reference");
            case Verdict: return tr("Outputs compared with the reference under the chosen standard");
            default: return {};
        }
    }
    return ContextTableModel::headerData(section, o, role);
}

Qt::ItemFlags StepListModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == Break) f |= Qt::ItemIsUserCheckable;
    return f;
}

bool StepListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.column() != Break || role != Qt::CheckStateRole) return false;
    const std::size_t step = static_cast<std::size_t>(index.row());
    const bool want = value.toInt() == Qt::Checked;
    if (want != context_->hasBreakpoint(step)) context_->toggleBreakpoint(step);  // emits stepStateChanged
    return true;
}

QVariant StepListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const std::size_t row = static_cast<std::size_t>(index.row());
    if (role == Qt::CheckStateRole && index.column() == Break)
        return context_->hasBreakpoint(row) ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::DisplayRole) return displayText(row, index.column());
    return styleData(row, index.column(), role);
}

// Fonts, colours, tooltips and alignment of a cell.
QVariant StepListModel::styleData(std::size_t row, int column, int role) const {
    const PlanInfo& plan = context_->plan();
    const StepState& st = context_->stepStates()[row];
    const bool isNext = row == context_->nextStep();
    const std::optional<metrics::Verdict> verdict = st.verdict();
    if (role == Qt::FontRole && isNext) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::BackgroundRole) {
        if (column == Verdict && verdict) return QBrush(verdictBackground(*verdict));
        if (column == NonFinite && st.nonFinite) return QBrush(verdictBackground(metrics::Verdict::Fail));
        if (column == Status && st.status == StepStatus::Failed)
            return QBrush(verdictBackground(metrics::Verdict::Fail));
        return {};
    }
    if (role == Qt::ForegroundRole) {
        if (column == Verdict && verdict) return QBrush(verdictForeground(*verdict));
        if (st.status == StepStatus::Pending && !isNext) return QBrush(QColor(0x80, 0x80, 0x80));
        return {};
    }
    if (role == Qt::ToolTipRole) {
        const StepInfo& step = plan.steps[row];
        QString tip = QString::fromStdString(step.name) + "\n" + QString::fromStdString(step.detail);
        for (const SlotResult& r : st.outputs)
            if (r.judgement)
                tip += "\n" + QString::fromStdString(plan.slot(r.slot)->name) + ": " +
                       QString::fromStdString(r.judgement->reason);
        return tip;
    }
    if (role == Qt::TextAlignmentRole && column == Verdict) return int(Qt::AlignCenter);
    if (role == Qt::TextAlignmentRole && column >= Duration && column != Writes)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant StepListModel::displayText(std::size_t row, int column) const {
    const PlanInfo& plan = context_->plan();
    const StepInfo& step = plan.steps[row];
    const StepState& st = context_->stepStates()[row];
    const bool isNext = row == context_->nextStep();
    const TensorStats* stats = st.outputs.empty() ? nullptr : &st.outputs.front().stats;
    const std::optional<metrics::Verdict> verdict = st.verdict();
    switch (column) {
        case Break: return {};
        case Index: return isNext ? QStringLiteral("▶ %1").arg(row) : QString::number(row);
        case Name: return QString::fromStdString(step.name);
        case Status:
            switch (st.status) {
                case StepStatus::Pending: return isNext ? tr("next") : tr("pending");
                case StepStatus::Done: return tr("done");
                case StepStatus::Failed: return tr("failed");
            }
            return {};
        case Duration: return st.status == StepStatus::Done ? QString::number(st.durationUs, 'f', 1) : QString();
        case Writes: {
            QStringList names;
            for (int s : step.outputs)
                if (const SlotInfo* info = plan.slot(s)) names << QString::fromStdString(info->name);
            return names.join(", ");
        }
        case Min: return stats && stats->finiteCount ? formatNumber(stats->min, 4) : QString();
        case Max: return stats && stats->finiteCount ? formatNumber(stats->max, 4) : QString();
        case MeanAbs: return stats && stats->finiteCount ? formatNumber(stats->meanAbs, 4) : QString();
        case NonFinite: return nonFiniteText(st);
        case MaxRel: {
            if (!verdict) return {};
            double rel = 0;
            for (const SlotResult& r : st.outputs)
                if (r.judgement) rel = std::max(rel, r.maxRelError);
            return formatNumber(rel, 3);
        }
        case Verdict: return verdict ? verdictText(*verdict) : QString();
    }
    return {};
}

QString StepListModel::nonFiniteText(const StepState& st) {
    if (st.status != StepStatus::Done) return {};
    int64_t nan = 0, inf = 0;
    for (const SlotResult& r : st.outputs) {
        nan += r.stats.nanCount;
        inf += r.stats.infCount;
    }
    return nan || inf ? QStringLiteral("%1 / %2").arg(nan).arg(inf) : QStringLiteral("0");
}

}  // namespace opscope::gui
