#include "models/metrics_table_model.h"

#include <QBrush>
#include <QFont>

#include "session/debug_context.h"
#include "views/palette.h"

namespace opscope::gui {

MetricsTableModel::MetricsTableModel(DebugContext* context, QObject* parent)
    : QAbstractTableModel(parent), context_(context) {
    connect(context, &DebugContext::analysisChanged, this, [this] {
        beginResetModel();
        analysis_ = context_->analysis();
        endResetModel();
    });
}

QStringList MetricsTableModel::metricNames() {
    return {"Elements",          "Cosine similarity", "Max abs error",     "Mean abs error",  "Max rel error",
            "Mean rel error",    "RMSE",              "Error balance",     "Max ULP error",   "Mean ULP error",
            "Rel error < 1e-2",  "Rel error < 1e-3",  "Rel error < 1e-4",  "Small-value error ratio",
            "NaN (out / ref)",   "Inf (out / ref)",   "NaN/Inf mismatches", "Worst rel at",   "Worst abs at"};
}

namespace {

QString coords(const metrics::ElementRef& e) {
    if (e.index < 0) return QStringLiteral("—");
    return formatShape(e.coords) + QStringLiteral(": %1 vs %2").arg(formatNumber(e.actual), formatNumber(e.reference));
}

QString percent(double share) { return QString::number(share * 100, 'f', 3) + QLatin1Char('%'); }

}  // namespace

QString MetricsTableModel::metricText(const OutputAnalysis& a, int row) {
    const metrics::ComparisonMetrics& m = a.metrics;
    switch (row) {
        case 0: return QString::number(m.count);
        case 1: return QString::number(m.cosine, 'f', 9);
        case 2: return formatNumber(m.maxAbsError);
        case 3: return formatNumber(m.meanAbsError);
        case 4: return formatNumber(m.maxRelError);
        case 5: return formatNumber(m.meanRelError);
        case 6: return formatNumber(m.rmse);
        case 7: return formatNumber(m.errorBalance);
        case 8: return m.ulpApplicable ? formatNumber(m.maxUlpError, 4) : QStringLiteral("—");
        case 9: return m.ulpApplicable ? formatNumber(m.meanUlpError, 4) : QStringLiteral("—");
        case 10: return percent(m.shareRelBelow1e2);
        case 11: return percent(m.shareRelBelow1e3);
        case 12: return percent(m.shareRelBelow1e4);
        case 13: return m.smallValueCount ? percent(m.smallValueErrorRatio) + QStringLiteral(" of %1").arg(m.smallValueCount)
                                          : QStringLiteral("—");
        case 14: return QStringLiteral("%1 / %2").arg(m.nanActual).arg(m.nanReference);
        case 15: return QStringLiteral("%1 / %2").arg(m.infActual).arg(m.infReference);
        case 16: return QString::number(m.nonFiniteMismatches);
        case 17: return coords(m.worstRel);
        case 18: return coords(m.worstAbs);
    }
    return {};
}

int MetricsTableModel::standardRows() const {
    return analysis_ && !analysis_->outputs.empty() ? static_cast<int>(analysis_->outputs.front().judgements.size()) : 0;
}

int MetricsTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !analysis_) return 0;
    return standardRows() + static_cast<int>(metricNames().size());
}

int MetricsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || !analysis_ ? 0 : static_cast<int>(analysis_->outputs.size());
}

QVariant MetricsTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (!analysis_) return {};
    if (o == Qt::Horizontal) {
        if (role != Qt::DisplayRole || section >= static_cast<int>(analysis_->outputs.size())) return {};
        const OutputAnalysis& a = analysis_->outputs[static_cast<std::size_t>(section)];
        return QString::fromStdString(a.output) + "\n" + QString::fromUtf8(dtypeName(a.dtype)) + formatShape(a.shape);
    }
    const int sr = standardRows();
    if (section < sr) {
        const metrics::Judgement& j = analysis_->outputs.front().judgements[static_cast<std::size_t>(section)];
        if (role == Qt::DisplayRole) return QString::fromStdString(j.standard);
        if (role == Qt::FontRole && section == 0) {
            QFont f;
            f.setBold(true);
            return f;
        }
        if (role == Qt::ToolTipRole)
            return section == 0 ? tr("The standard steps are judged by") : tr("Another standard, for comparison");
        return {};
    }
    if (role == Qt::DisplayRole) return metricNames().value(section - sr);
    return {};
}

QVariant MetricsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !analysis_) return {};
    const OutputAnalysis& a = analysis_->outputs[static_cast<std::size_t>(index.column())];
    const int sr = standardRows();
    if (index.row() < sr) {
        const metrics::Judgement& j = a.judgements[static_cast<std::size_t>(index.row())];
        switch (role) {
            case Qt::DisplayRole: return verdictText(j.verdict);
            case Qt::ToolTipRole: return QString::fromStdString(j.reason);
            case Qt::BackgroundRole: return QBrush(verdictBackground(j.verdict));
            case Qt::ForegroundRole: return QBrush(verdictForeground(j.verdict));
            case Qt::TextAlignmentRole: return int(Qt::AlignCenter);
        }
        return {};
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) return metricText(a, index.row() - sr);
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole && index.row() - sr == 16 && a.metrics.nonFiniteMismatches > 0)
        return QBrush(verdictBackground(metrics::Verdict::Fail));
    return {};
}

}  // namespace opscope::gui
