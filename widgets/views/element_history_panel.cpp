#include "views/element_history_panel.h"

#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QSplitter>
#include <QTableView>
#include <QValueAxis>
#include <QVBoxLayout>
#include <cmath>

#include "models/element_history_model.h"
#include "session/debug_context.h"
#include "palette.h"
#include "views/panel_setup.h"

namespace opscope::gui {

ElementHistoryPanel::ElementHistoryPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    QSplitter* split = titledSplitter(this, &title_, Qt::Horizontal);
    table_ = new QTableView(split);
    model_ = new ElementHistoryModel(context, this);
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    chart_ = new QChartView(new QChart(), split);
    chart_->setRenderHint(QPainter::Antialiasing);
    chart_->chart()->legend()->setAlignment(Qt::AlignBottom);
    chart_->chart()->setMargins(QMargins(2, 2, 2, 2));
    chart_->setMinimumWidth(220);
    split->addWidget(table_);
    split->addWidget(chart_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    connect(model_, &QAbstractItemModel::modelReset, this, &ElementHistoryPanel::refresh);
    refresh();
}

void ElementHistoryPanel::refresh() {
    const ElementPick& p = context_->pick();
    title_->setText(p.valid() ? tr("<b>%1</b> %2 after each step that wrote it (or its output's scratch)")
                                    .arg(QString::fromStdString(p.slot), formatShape(p.index))
                              : tr("Click an element in the tensor view to follow it through the steps."));
    QChart* c = chart_->chart();
    c->removeAllSeries();
    for (QAbstractAxis* a : c->axes()) {
        c->removeAxis(a);
        delete a;
    }
    const auto& h = context_->history();
    if (h.empty()) return;
    auto* values = new QLineSeries();
    values->setName(tr("value"));
    values->setPointsVisible(true);
    double lo = 1e300, hi = -1e300;
    for (const HistoryEntry& e : h) {
        if (!std::isfinite(e.value)) continue;
        values->append(double(e.step), e.value);
        lo = std::min(lo, e.value);
        hi = std::max(hi, e.value);
    }
    double ref = 0;
    QLineSeries* refLine = nullptr;
    if (model_->referenceValue(&ref)) {
        refLine = new QLineSeries();
        refLine->setName(tr("reference"));
        refLine->setPen(QPen(QColor(0x2e, 0x7d, 0x32), 1, Qt::DashLine));
        refLine->append(double(h.front().step) - 0.5, ref);  // across the whole axis, even for one step
        refLine->append(double(h.back().step) + 0.5, ref);
        lo = std::min(lo, ref);
        hi = std::max(hi, ref);
    }
    if (lo > hi) return;
    const double pad = (hi - lo) * 0.1 + std::fabs(hi) * 1e-6 + 1e-30;
    auto* x = new QValueAxis();
    x->setTitleText(tr("step"));
    x->setLabelFormat("%d");
    x->setRange(double(h.front().step) - 0.5, double(h.back().step) + 0.5);
    x->setTickType(QValueAxis::TicksDynamic);  // one tick per step
    x->setTickAnchor(0);
    x->setTickInterval(std::max(1.0, std::ceil(double(h.back().step - h.front().step + 1) / 12)));
    auto* y = new QValueAxis();
    y->setRange(lo - pad, hi + pad);
    y->setLabelFormat("%.4g");
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    c->addSeries(values);
    values->attachAxis(x);
    values->attachAxis(y);
    if (refLine) {
        c->addSeries(refLine);
        refLine->attachAxis(x);
        refLine->attachAxis(y);
    }
}

}  // namespace opscope::gui
