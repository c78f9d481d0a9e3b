// The analysis as a table: one column per output, first a row per standard with its verdict
// (coloured; the reason as tooltip), then the metrics.
#pragma once

#include <QAbstractTableModel>

#include "opscope/metric_fields.h"
#include "session/session_types.h"

namespace opscope::gui {

class DebugContext;

// A metric's value as every table of the debugger shows it ("—" where it does not apply).
QString metricValueText(const metrics::MetricField& f, const metrics::ComparisonMetrics& m);

class MetricsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Follows the context's analysis; with a null context, shows what setAnalysis() gives.
    explicit MetricsTableModel(DebugContext* context, QObject* parent = nullptr);
    void setAnalysis(AnalysisPtr analysis);
    // The whole table as tab-separated text (header row, then one row per standard and metric):
    // what "Copy table" puts on the clipboard.
    QString tabSeparated() const;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // Metric rows after the verdict rows, by name (for reports and tests).
    static QStringList metricNames();
    // The text of metric `row` (index into metricNames()) of one output.
    static QString metricText(const OutputAnalysis& a, int row);

private:
    int standardRows() const;
    const OutputAnalysis* judgedOutput() const;
    DebugContext* context_;
    AnalysisPtr analysis_;
};

}  // namespace opscope::gui
