// Qt Charts over the analysis of one output: error histograms (log-spaced bins), error per
// index of any axis (max and mean), error against |reference| (sampled), and the share of
// elements within each tolerance. The numbers come from core metrics; this only draws.
#pragma once

#include <QWidget>

#include "opscope/metrics.h"
#include "session/session_types.h"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QTabWidget;

namespace opscope::gui {

class DebugContext;

class ChartsPanel : public QWidget {
    Q_OBJECT
public:
    // Follows the context's analysis; with a null context, draws what setAnalysis() gives.
    explicit ChartsPanel(DebugContext* context, QWidget* parent = nullptr);
    void setAnalysis(AnalysisPtr analysis);
    // What the charts say while an output's summary is still being made (its progress).
    void setPendingMessage(const QString& message);
    QTabWidget* tabs() const { return tabs_; }
    // Series counts per chart, for tests: histogram, per axis, scatter, cumulative.
    std::vector<int> seriesCounts() const;

private:
    void refresh();
    void drawHistogram(const OutputAnalysis& a);
    void drawPerAxis(const OutputAnalysis& a);
    void drawScatter(const OutputAnalysis& a);
    void drawCumulative(const OutputAnalysis& a);
    void drawAxisStats(const std::vector<metrics::AxisErrorStats>& stats, int axis);
    const OutputAnalysis* current() const;

    DebugContext* context_;
    QComboBox* output_;
    QComboBox* axis_;
    QComboBox* errorKind_;
    QLabel* note_;
    QTabWidget* tabs_;
    QChartView* histogram_;
    QChartView* perAxis_;
    QChartView* scatter_;
    QChartView* cumulative_;
    AnalysisPtr analysis_;
    QString pending_;
};

}  // namespace opscope::gui
