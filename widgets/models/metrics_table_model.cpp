#include "models/metrics_table_model.h"

#include <optional>
#include <string>

#include <QBrush>
#include <QFont>

#include "opscope/metric_fields.h"
#include "session/debug_context.h"
#include "palette.h"

namespace opscope::gui {

MetricsTableModel::MetricsTableModel(DebugContext* context, QObject* parent)
    : QAbstractTableModel(parent), context_(context) {
    if (context) connect(context, &DebugContext::analysisChanged, this, [this] { setAnalysis(context_->analysis()); });
}

void MetricsTableModel::setAnalysis(AnalysisPtr analysis) {
    beginResetModel();
    analysis_ = std::move(analysis);
    endResetModel();
}

QString MetricsTableModel::tabSeparated() const {
    auto cell = [](QVariant v) { return v.toString().replace(QLatin1Char('\n'), QLatin1Char(' ')); };
    QStringList lines;
    QStringList header{tr("metric")};
    for (int c = 0; c < columnCount(); ++c) header << cell(headerData(c, Qt::Horizontal, Qt::DisplayRole));
    lines << header.join(QLatin1Char('\t'));
    for (int r = 0; r < rowCount(); ++r) {
        QStringList row{cell(headerData(r, Qt::Vertical, Qt::DisplayRole))};
        for (int c = 0; c < columnCount(); ++c) row << cell(data(index(r, c), Qt::DisplayRole));
        lines << row.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QStringList MetricsTableModel::metricNames() {
    QStringList names;
    for (const metrics::MetricField& f : metrics::metricFields()) names << QString::fromUtf8(f.label);
    for (const metrics::ElementField& f : metrics::elementFields()) names << QString::fromUtf8(f.label);
    return names;
}

namespace {

QString coords(const metrics::ElementRef& e) {
    if (e.index < 0) return QStringLiteral("—");
    return formatShape(e.coords) + QStringLiteral(": %1 vs %2").arg(formatNumber(e.actual), formatNumber(e.reference));
}

QString percent(double share) { return QString::number(share * 100, 'f', 3) + QLatin1Char('%'); }

}  // namespace

QString metricValueText(const metrics::MetricField& f, const metrics::ComparisonMetrics& m) {
    const std::optional<double> v = f.value(m);
    if (!v) return QStringLiteral("—");
    switch (f.format) {
        case metrics::FieldFormat::Count: return QString::number(static_cast<qint64>(*v));
        case metrics::FieldFormat::Cosine: return QString::number(*v, 'f', 9);
        case metrics::FieldFormat::Share: return percent(*v);
        case metrics::FieldFormat::Ulp: return formatNumber(*v, 4);
        case metrics::FieldFormat::Real: return formatNumber(*v);
    }
    return {};
}

QString MetricsTableModel::metricText(const OutputAnalysis& a, int row) {
    if (!a.compared) return QStringLiteral("—");
    const auto& fields = metrics::metricFields();
    if (row >= 0 && row < static_cast<int>(fields.size()))
        return metricValueText(fields[static_cast<std::size_t>(row)], a.metrics);
    const int element = row - static_cast<int>(fields.size());
    const auto& elements = metrics::elementFields();
    if (element >= 0 && element < static_cast<int>(elements.size()))
        return coords(elements[static_cast<std::size_t>(element)].element(a.metrics));
    return {};
}

// The output judged under every standard (one that was not compared has a single row).
const OutputAnalysis* MetricsTableModel::judgedOutput() const {
    if (!analysis_) return nullptr;
    const OutputAnalysis* best = nullptr;
    for (const OutputAnalysis& o : analysis_->outputs)
        if (!best || o.judgements.size() > best->judgements.size()) best = &o;
    return best;
}

int MetricsTableModel::standardRows() const {
    const OutputAnalysis* o = judgedOutput();
    return o ? static_cast<int>(o->judgements.size()) : 0;
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
        if ((role != Qt::DisplayRole && role != Qt::ToolTipRole) ||
            section >= static_cast<int>(analysis_->outputs.size()))
            return {};
        const OutputAnalysis& a = analysis_->outputs[static_cast<std::size_t>(section)];
        return QString::fromStdString(a.output) + "\n" + QString::fromUtf8(dtypeName(a.dtype)) + formatShape(a.shape);
    }
    const int sr = standardRows();
    if (section < sr) {
        const metrics::Judgement& j = judgedOutput()->judgements[static_cast<std::size_t>(section)];
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
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) return metricNames().value(section - sr);
    return {};
}

QVariant MetricsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !analysis_) return {};
    const OutputAnalysis& a = analysis_->outputs[static_cast<std::size_t>(index.column())];
    const int sr = standardRows();
    if (index.row() < sr) {
        if (!a.compared) {
            switch (role) {
                case Qt::DisplayRole: return tr("NOT JUDGED");
                case Qt::ToolTipRole: return QString::fromStdString(a.note);
                case Qt::BackgroundRole: return QBrush(verdictBackground(metrics::Verdict::Warning));
                case Qt::TextAlignmentRole: return int(Qt::AlignCenter);
            }
            return {};
        }
        if (index.row() >= static_cast<int>(a.judgements.size())) return {};
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
    const auto& fields = metrics::metricFields();
    const int metricRow = index.row() - sr;
    if (role == Qt::BackgroundRole && a.compared && a.metrics.nonFiniteMismatches > 0 &&
        metricRow < static_cast<int>(fields.size()) &&
        std::string(fields[static_cast<std::size_t>(metricRow)].key) == "nonfinite_mismatches")
        return QBrush(verdictBackground(metrics::Verdict::Fail));
    return {};
}

}  // namespace opscope::gui
