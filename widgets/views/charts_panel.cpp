#include "views/charts_panel.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QTabWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <tuple>
#include <cmath>

#include "session/debug_context.h"
#include "session/gui_invoke.h"
#include "palette.h"
#include "views/chart_axes.h"
#include "views/panel_setup.h"

namespace opscope::gui {

namespace {

const QColor kAbsColor(0x1f, 0x77, 0xb4);
const QColor kRelColor(0xff, 0x7f, 0x0e);

QChartView* makeView(QWidget* parent) {
    auto* v = new QChartView(new QChart(), parent);
    v->setRenderHint(QPainter::Antialiasing);
    v->chart()->legend()->setAlignment(Qt::AlignBottom);
    v->chart()->setMargins(QMargins(4, 4, 4, 4));
    return v;
}

void resetChart(QChart* c, const QString& title) {
    c->removeAllSeries();
    for (QAbstractAxis* a : c->axes()) {
        c->removeAxis(a);
        delete a;
    }
    c->setTitle(title);
}

// "relative (21 zero)": the counts only when there are any, so the legend of a narrow dock
// does not elide the name.
QString histogramSeriesName(const QString& name, const metrics::LogHistogram& h) {
    QStringList extra;
    if (h.zeros > 0) extra << ChartsPanel::tr("%1 zero").arg(h.zeros);
    if (h.nonFinite > 0) extra << ChartsPanel::tr("%1 NaN/Inf").arg(h.nonFinite);
    return extra.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, extra.join(QStringLiteral(", ")));
}

void attach(QChart* c, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y) {
    c->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
}

}  // namespace

ChartsPanel::ChartsPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    auto* l = panelLayout(this);
    auto* top = new QHBoxLayout();
    top->addWidget(new QLabel(tr("Output:"), this));
    output_ = new QComboBox(this);
    output_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(output_);
    top->addWidget(new QLabel(tr("Error:"), this));
    errorKind_ = new QComboBox(this);
    errorKind_->addItem(tr("relative"));
    errorKind_->addItem(tr("absolute"));
    top->addWidget(errorKind_);
    top->addWidget(new QLabel(tr("Per axis:"), this));
    axis_ = new QComboBox(this);
    axis_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    axis_->setToolTip(tr("The axis whose indices the 'per axis' chart shows (axis 1 = channels of NCHW)"));
    top->addWidget(axis_);
    note_ = new QLabel(this);
    note_->setStyleSheet("color: gray");
    note_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // never widens the dock
    top->addWidget(note_, 1);
    l->addLayout(top);
    tabs_ = new QTabWidget(this);
    histogram_ = makeView(tabs_);
    perAxis_ = makeView(tabs_);
    scatter_ = makeView(tabs_);
    cumulative_ = makeView(tabs_);
    tabs_->addTab(histogram_, tr("Error histogram"));
    tabs_->addTab(perAxis_, tr("Error per axis"));
    tabs_->addTab(scatter_, tr("Error vs |reference|"));
    tabs_->addTab(cumulative_, tr("Within tolerance"));
    l->addWidget(tabs_, 1);

    if (context_)
        connect(context_, &DebugContext::analysisChanged, this, [this] { setAnalysis(context_->analysis()); });
    connect(output_, &QComboBox::activated, this, &ChartsPanel::refresh);
    connect(errorKind_, &QComboBox::activated, this, &ChartsPanel::refresh);
    connect(axis_, &QComboBox::activated, this, [this] {
        if (const OutputAnalysis* a = current()) drawPerAxis(*a);
    });
    refresh();
}

void ChartsPanel::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    const QString keep = output_->currentText();
    output_->clear();
    if (analysis_)
        for (const OutputAnalysis& o : analysis_->outputs) output_->addItem(QString::fromStdString(o.output));
    int i = output_->findText(keep);
    if (i < 0 && analysis_) {
        // Start with the worst output (verdict, then max relative error), else the largest.
        auto rank = [](const OutputAnalysis& o) {
            const int v = !o.compared || o.judgements.empty() ? 0 : static_cast<int>(o.judgements.front().verdict);
            return std::make_tuple(v, o.metrics.maxRelError > 0 ? 1 : 0, o.metrics.count);
        };
        const auto& outs = analysis_->outputs;
        auto worst = std::max_element(outs.begin(), outs.end(), [&](const OutputAnalysis& a, const OutputAnalysis& b) {
            return rank(a) < rank(b);
        });
        if (worst != outs.end()) i = static_cast<int>(worst - outs.begin());
    }
    if (i >= 0) output_->setCurrentIndex(i);
    refresh();
}

void ChartsPanel::setPendingMessage(const QString& message) {
    pending_ = message;
    const OutputAnalysis* a = current();
    if (a && a->compared && !a->summarized) refresh();
}

const OutputAnalysis* ChartsPanel::current() const {
    if (!analysis_) return nullptr;
    return analysis_->find(output_->currentText().toStdString());
}

void ChartsPanel::refresh() {
    const OutputAnalysis* a = current();
    if (!a) {
        for (QChartView* v : {histogram_, perAxis_, scatter_, cumulative_})
            resetChart(v->chart(), tr("Run to the end with a reference to see the error charts"));
        note_->clear();
        axis_->clear();
        return;
    }
    if (!a->compared) {
        const QString why =
            tr("%1 was not judged: %2").arg(QString::fromStdString(a->output), QString::fromStdString(a->note));
        for (QChartView* v : {histogram_, perAxis_, scatter_, cumulative_}) resetChart(v->chart(), why);
        note_->setText(why);
        axis_->clear();
        return;
    }
    if (!a->summarized) {  // judged, the charts' pass still running: nothing to draw yet
        const QString wait = pending_.isEmpty() ? tr("Summarizing the errors for the charts…") : pending_;
        for (QChartView* v : {histogram_, perAxis_, scatter_, cumulative_}) resetChart(v->chart(), wait);
        note_->setText(wait);
        axis_->clear();
        return;
    }
    // Axis choices follow the output's rank; channels (axis 1) by default.
    const int keepAxis = axis_->currentData().isValid() ? axis_->currentData().toInt() : -1;
    axis_->clear();
    for (std::size_t d = 0; d < a->shape.size(); ++d)
        axis_->addItem(tr("axis %1 (%2)").arg(d).arg(a->shape[d]), int(d));
    const int want = keepAxis >= 0 && keepAxis < int(a->shape.size()) ? keepAxis : (a->shape.size() > 1 ? 1 : 0);
    axis_->setCurrentIndex(axis_->findData(want));
    note_->setText(tr("%1 elements, %2 sampled for the scatter").arg(a->metrics.count).arg(a->sampleAbs.size()));
    drawHistogram(*a);
    drawPerAxis(*a);
    drawScatter(*a);
    drawCumulative(*a);
}

void ChartsPanel::drawHistogram(const OutputAnalysis& a) {
    QChart* c = histogram_->chart();
    resetChart(c, tr("%1: error histogram (log-spaced bins)").arg(QString::fromStdString(a.output)));
    const metrics::LogHistogram& h0 = a.absHistogram;
    double lo = std::pow(10.0, h0.maxExponent), hi = std::pow(10.0, h0.minExponent);
    int64_t top = 1;
    for (const metrics::LogHistogram* h : {&a.absHistogram, &a.relHistogram})
        for (std::size_t i = 0; i < h->counts.size(); ++i)
            if (h->counts[i] > 0) {
                lo = std::min(lo, h->edge(i));
                hi = std::max(hi, h->edge(i + 1));
                top = std::max(top, h->counts[i]);
            }
    if (lo >= hi) {  // every error is zero (or not finite): nothing to bin
        c->setTitle(
            tr("%1: all %2 errors are exactly zero").arg(QString::fromStdString(a.output)).arg(a.metrics.count));
        lo = 1e-8;
        hi = 1;
    }
    auto* x = logAxis(tr("error"), lo, hi);
    auto* y = valueAxis(tr("elements"), 0, double(top) * 1.05);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    auto stepSeries = [&](const metrics::LogHistogram& h, const QString& name, const QColor& color) {
        auto* s = new QLineSeries();
        s->setName(histogramSeriesName(name, h));
        s->setPen(QPen(color, 2));
        for (std::size_t i = 0; i < h.counts.size(); ++i) {
            const double x0 = std::max(h.edge(i), lo), x1 = std::min(h.edge(i + 1), hi);
            if (x1 <= lo || x0 >= hi) continue;
            s->append(x0, double(h.counts[i]));
            s->append(x1, double(h.counts[i]));
        }
        attach(c, s, x, y);
    };
    stepSeries(a.absHistogram, tr("absolute"), kAbsColor);
    stepSeries(a.relHistogram, tr("relative"), kRelColor);
}

void ChartsPanel::drawPerAxis(const OutputAnalysis& a) {
    const int axis = axis_->currentData().isValid() ? axis_->currentData().toInt() : 0;
    if (a.shape.empty()) {
        resetChart(perAxis_->chart(), tr("A scalar has no axes"));
        return;
    }
    // Computed with the analysis, in its streaming pass (no error maps are kept).
    if (axis < 0 || axis >= static_cast<int>(a.perAxis.size())) {
        resetChart(perAxis_->chart(), tr("No error data for axis %1").arg(axis));
        return;
    }
    drawAxisStats(a.perAxis[static_cast<std::size_t>(axis)], axis);
}

void ChartsPanel::drawAxisStats(const std::vector<metrics::AxisErrorStats>& stats, int axis) {
    QChart* c = perAxis_->chart();
    const bool rel = errorKind_->currentIndex() == 0;
    const int64_t run = stats.empty() ? 1 : stats.front().indices;  // a long axis: runs of indices
    const QString kind = rel ? tr("Relative") : tr("Absolute");
    resetChart(c, run > 1 ? tr("%1 error per %2 indices of axis %3 (max and mean)").arg(kind).arg(run).arg(axis)
                          : tr("%1 error per index of axis %2 (max and mean)").arg(kind).arg(axis));
    auto* maxS = new QLineSeries();
    maxS->setName(tr("max"));
    maxS->setPen(QPen(QColor(0xd6, 0x27, 0x28), 2));
    auto* meanS = new QLineSeries();
    meanS->setName(tr("mean"));
    meanS->setPen(QPen(kAbsColor, 2));
    double top = 0;
    for (const metrics::AxisErrorStats& s : stats) {
        const double mx = rel ? s.maxRel : s.maxAbs, mn = rel ? s.meanRel : s.meanAbs;
        maxS->append(double(s.index), mx);
        meanS->append(double(s.index), mn);
        if (std::isfinite(mx)) top = std::max(top, mx);
    }
    auto* x =
        valueAxis(tr("index (axis %1)").arg(axis), 0, std::max<double>(1, stats.empty() ? 1 : stats.back().index));
    x->setLabelFormat("%d");
    auto* y = valueAxis(rel ? tr("rel. error") : tr("abs. error"), 0, top > 0 ? top * 1.1 : 1);
    y->setLabelFormat("%.2g");
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, maxS, x, y);
    attach(c, meanS, x, y);
    if (stats.size() <= 64) {
        maxS->setPointsVisible(true);
        meanS->setPointsVisible(true);
    }
}

void ChartsPanel::drawScatter(const OutputAnalysis& a) {
    QChart* c = scatter_->chart();
    const bool rel = errorKind_->currentIndex() == 0;
    resetChart(c, tr("%1 error against |reference| (%2 points)")
                      .arg(rel ? tr("Relative") : tr("Absolute"))
                      .arg(a.sampleAbs.size()));
    const std::vector<double>& ys = rel ? a.sampleRel : a.sampleAbs;
    auto* s = new QScatterSeries();
    s->setName(tr("sampled elements (zeros not shown on log axes)"));
    s->setMarkerSize(5);
    s->setColor(rel ? kRelColor : kAbsColor);
    s->setBorderColor(Qt::transparent);
    double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0;
    for (std::size_t i = 0; i < ys.size(); ++i) {
        const double xv = a.sampleRef[i], yv = ys[i];
        if (!(xv > 0) || !(yv > 0) || !std::isfinite(xv) || !std::isfinite(yv)) continue;
        s->append(xv, yv);
        xlo = std::min(xlo, xv);
        xhi = std::max(xhi, xv);
        ylo = std::min(ylo, yv);
        yhi = std::max(yhi, yv);
    }
    if (s->count() == 0) {
        xlo = 1e-6, xhi = 1, ylo = 1e-9, yhi = 1;
    }
    auto* x = logAxis(tr("|reference|"), xlo / 2, xhi * 2);
    auto* y = logAxis(rel ? tr("rel. error") : tr("abs. error"), ylo / 2, yhi * 2);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, s, x, y);
}

void ChartsPanel::drawCumulative(const OutputAnalysis& a) {
    QChart* c = cumulative_->chart();
    resetChart(c, tr("%1: share of elements within tolerance").arg(QString::fromStdString(a.output)));
    auto* x = logAxis(tr("tolerance"), a.relShares.empty() ? 1e-8 : a.relShares.front().tolerance,
                      a.relShares.empty() ? 1 : a.relShares.back().tolerance);
    auto* y = valueAxis(tr("share"), 0, 1);
    y->setLabelFormat("%.2f");
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    auto line = [&](const std::vector<metrics::ToleranceShare>& shares, const QString& name, const QColor& color) {
        auto* s = new QLineSeries();
        s->setName(name);
        s->setPen(QPen(color, 2));
        for (const metrics::ToleranceShare& t : shares) s->append(t.tolerance, t.share);
        attach(c, s, x, y);
    };
    line(a.relShares, tr("relative error ≤ tolerance"), kRelColor);
    line(a.absShares, tr("absolute error ≤ tolerance"), kAbsColor);
}

std::vector<int> ChartsPanel::seriesCounts() const {
    std::vector<int> out;
    for (QChartView* v : {histogram_, perAxis_, scatter_, cumulative_}) out.push_back(int(v->chart()->series().size()));
    return out;
}

}  // namespace opscope::gui
