#include "models/set_comparison_model.h"

#include <QColor>

#include "models/metrics_table_model.h"
#include "opscope/metric_fields.h"
#include "palette.h"

namespace opscope::gui {

void SetComparisonModel::clear() {
    beginResetModel();
    rows_.clear();
    failed_ = 0;
    endResetModel();
}

void SetComparisonModel::append(ops::Comparison comparison) {
    const int row = static_cast<int>(rows_.size());
    beginInsertRows({}, row, row);
    failed_ += !comparison.judgement.passed();
    rows_.push_back(std::move(comparison));
    endInsertRows();
}

int SetComparisonModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int SetComparisonModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

// Worst first when sorted ascending: not judged, fail, warning, pass.
int severity(const ops::Comparison& c) {
    if (!c.compared) return 0;
    switch (c.judgement.verdict) {
        case metrics::Verdict::Fail: return 1;
        case metrics::Verdict::Warning: return 2;
        case metrics::Verdict::Pass: return 3;
    }
    return 0;
}

QVariant metricCell(const metrics::MetricField& f, const ops::Comparison& c, int role) {
    if (!c.compared) return role == SetComparisonModel::kSortRole ? QVariant(-1.0) : QVariant(QStringLiteral("—"));
    if (role == SetComparisonModel::kSortRole) return f.value(c.metrics).value_or(-1.0);
    return metricValueText(f, c.metrics);
}

}  // namespace

QVariant SetComparisonModel::data(const QModelIndex& index, int role) const {
    // Looked up once: data() runs for every cell on every repaint of thousands of rows.
    static const metrics::MetricField& kMaxAbs = metrics::metricField("max_abs_error");
    static const metrics::MetricField& kMaxRel = metrics::metricField("max_rel_error");
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const ops::Comparison& c = rows_[static_cast<std::size_t>(index.row())];
    const bool text = role == Qt::DisplayRole || role == kSortRole;
    switch (index.column()) {
        case Tensor:
            if (text) return QString::fromStdString(c.output);
            break;
        case Dtype:
            if (text) return c.compared ? QString::fromUtf8(dtypeName(c.metrics.outputDtype)) : QStringLiteral("—");
            break;
        case Shape:
            if (text) return c.compared ? formatShape(c.metrics.shape) : QStringLiteral("—");
            break;
        case MaxAbs:
            if (text) return metricCell(kMaxAbs, c, role);
            break;
        case MaxRel:
            if (text) return metricCell(kMaxRel, c, role);
            break;
        case Verdict:
            if (role == kSortRole) return severity(c);
            if (role == Qt::DisplayRole) return c.compared ? verdictText(c.judgement.verdict) : tr("not judged");
            if (role == Qt::BackgroundRole && c.compared) return verdictBackground(c.judgement.verdict);
            if (role == Qt::ForegroundRole && c.compared) return verdictForeground(c.judgement.verdict);
            break;
        case Why:
            if (text) return c.judgement.passed() ? QString() : QString::fromStdString(c.judgement.reason);
            break;
        default: break;
    }
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(c.judgement.passed() ? c.judgement.standard : c.judgement.reason);
    if (role == Qt::TextAlignmentRole && (index.column() == MaxAbs || index.column() == MaxRel))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant SetComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Tensor", "Verdict", "dtype", "Shape", "Max abs", "Max rel", "Why"};
    return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}

}  // namespace opscope::gui
