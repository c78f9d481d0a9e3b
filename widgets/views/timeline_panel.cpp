#include "views/timeline_panel.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <limits>

#include "session/debug_context.h"
#include "session/gui_invoke.h"

namespace opscope::gui {

namespace {
constexpr int kLabelWidth = 190, kRowHeight = 22, kTop = 20;
}

std::vector<TimelineRow> timelineRows(const std::vector<ExecutorTrace>& executors) {
    std::vector<TimelineRow> rows;
    for (std::size_t i = 0; i < executors.size(); ++i) {
        TimelineRow row;
        row.label = QStringLiteral("#%1 %2").arg(i).arg(QString::fromStdString(executors[i].op));
        row.path = QString::fromStdString(traceExecutorPath(i));
        double origin = std::numeric_limits<double>::infinity();
        for (const StepTrace& s : executors[i].steps) origin = std::min(origin, s.startUs);
        for (const StepTrace& s : executors[i].steps)
            row.bars.push_back({s.startUs - origin, s.durationUs, QString::fromStdString(s.name)});
        rows.push_back(std::move(row));
    }
    return rows;
}

TimelinePanel::TimelinePanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    setMouseTracking(true);
    connect(context_, &DebugContext::fileChanged, this, &TimelinePanel::onFileChanged);
    onFileChanged();
}

void TimelinePanel::onFileChanged() {
    rows_.clear();
    const uint64_t request = ++request_;
    message_ = context_->isTraceFile() ? tr("Reading the trace…") : tr("Open an OpScope trace to see its executors");
    update();
    if (!context_->isTraceFile()) return;
    const std::string file = context_->filePath().toStdString();
    runInBackground<std::vector<TimelineRow>>(
        this, [file] { return timelineRows(readTraceFile(file, TraceValues::Skip)); },
        [this, request](std::vector<TimelineRow> rows, QString error) {
            if (request != request_) return;
            message_ = error;
            setRows(std::move(rows));
        });
}

void TimelinePanel::setRows(std::vector<TimelineRow> rows) {
    rows_ = std::move(rows);
    setMinimumHeight(kTop + kRowHeight * static_cast<int>(rows_.size()) + 4);  // the dock scrolls
    update();
}

double TimelinePanel::endUs() const {
    double end = 1;
    for (const TimelineRow& r : rows_)
        for (const TimelineBar& b : r.bars) end = std::max(end, b.startUs + b.durationUs);
    return end;
}

QRectF TimelinePanel::barRect(int row, const TimelineBar& bar) const {
    const double scale = (width() - kLabelWidth - 8) / endUs();
    const double w = std::max(1.0, bar.durationUs * scale);
    return {kLabelWidth + bar.startUs * scale, double(kTop + row * kRowHeight + 2), w, double(kRowHeight - 4)};
}

std::pair<int, int> TimelinePanel::barAt(QPointF pos) const {
    for (int r = 0; r < static_cast<int>(rows_.size()); ++r)
        for (int b = 0; b < static_cast<int>(rows_[r].bars.size()); ++b)
            if (barRect(r, rows_[r].bars[b]).adjusted(-1, 0, 1, 0).contains(pos)) return {r, b};
    return {-1, -1};
}

void TimelinePanel::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (rows_.empty()) {
        p.drawText(rect(), Qt::AlignCenter, message_);
        return;
    }
    p.drawText(QRect(kLabelWidth, 0, width() - kLabelWidth, kTop), Qt::AlignVCenter | Qt::AlignLeft, tr("0 µs"));
    p.drawText(QRect(kLabelWidth, 0, width() - kLabelWidth - 8, kTop), Qt::AlignVCenter | Qt::AlignRight,
               tr("%1 µs").arg(endUs(), 0, 'f', 1));
    for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
        const QRect label(4, kTop + r * kRowHeight, kLabelWidth - 8, kRowHeight);
        p.setPen(palette().text().color());
        p.drawText(label, Qt::AlignVCenter | Qt::AlignLeft,
                   fontMetrics().elidedText(rows_[r].label, Qt::ElideRight, label.width()));
        for (std::size_t b = 0; b < rows_[r].bars.size(); ++b) {
            const QRectF box = barRect(r, rows_[r].bars[b]);
            p.fillRect(box, QColor::fromHsv(static_cast<int>(b * 47 % 360), 110, 230));
            p.setPen(QColor(60, 60, 60));
            p.drawRect(box);
            const QString name = rows_[r].bars[b].name;
            if (box.width() > fontMetrics().horizontalAdvance(name) + 6) p.drawText(box, Qt::AlignCenter, name);
        }
    }
}

void TimelinePanel::mouseMoveEvent(QMouseEvent* e) {
    const auto [r, b] = barAt(e->position());
    if (r < 0) return QToolTip::hideText();
    const TimelineBar& bar = rows_[static_cast<std::size_t>(r)].bars[static_cast<std::size_t>(b)];
    QToolTip::showText(e->globalPosition().toPoint(),
                       tr("%1 · step %2 %3\nstart %4 µs · %5 µs")
                           .arg(rows_[static_cast<std::size_t>(r)].label)
                           .arg(b)
                           .arg(bar.name)
                           .arg(bar.startUs, 0, 'f', 1)
                           .arg(bar.durationUs, 0, 'f', 1),
                       this);
}

void TimelinePanel::mousePressEvent(QMouseEvent* e) {
    const int row = (static_cast<int>(e->position().y()) - kTop) / kRowHeight;
    if (e->position().y() < kTop || row >= static_cast<int>(rows_.size())) return;
    context_->loadCase(rows_[static_cast<std::size_t>(row)].path);
}

}  // namespace opscope::gui
