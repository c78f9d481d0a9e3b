// The executors of an open trace side by side: one row per executor, one bar per step at its
// recorded start (from the executor's first step) and duration, at any trace level: a trace recorded at level stats or
// metadata is browsable here even though it cannot be replayed. Hover a bar for the step and its time; click a row to
// show that executor's steps in the Steps panel (replayable or not).
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "opscope/trace.h"

namespace opscope::gui {

class DebugContext;

struct TimelineBar {
    double startUs = 0, durationUs = 0;  // from the executor's first step
    QString name;
};
struct TimelineRow {
    QString label;  // "#3 aclnnRmsNormGrad"
    QString path;   // the executor's case path, "/executors/000003"
    std::vector<TimelineBar> bars;
};
// One row per executor, each timed from its own first step.
std::vector<TimelineRow> timelineRows(const std::vector<ExecutorTrace>& executors);

class TimelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePanel(DebugContext* context, QWidget* parent = nullptr);
    void setRows(std::vector<TimelineRow> rows);
    const std::vector<TimelineRow>& rows() const { return rows_; }
    // The bar under a widget position: {row, bar}, or {-1, -1}.
    std::pair<int, int> barAt(QPointF pos) const;
    QSize sizeHint() const override { return {600, 160}; }

protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mousePressEvent(QMouseEvent*) override;

private:
    void onFileChanged();
    QRectF barRect(int row, const TimelineBar& bar) const;
    double endUs() const;

    DebugContext* context_;
    std::vector<TimelineRow> rows_;
    QString message_;
    uint64_t request_ = 0;
};

}  // namespace opscope::gui
