#include "views/step_list_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "models/slot_table_model.h"
#include "models/step_list_model.h"
#include "session/argument_binding.h"
#include "session/debug_context.h"
#include "palette.h"
#include "views/panel_setup.h"

namespace opscope::gui {

StepListPanel::StepListPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    auto* l = panelLayout(this);
    summary_ = wrappedLabel(this);
    l->addWidget(summary_);
    tabs_ = new QTabWidget(this);
    steps_ = new QTableView(tabs_);
    stepModel_ = new StepListModel(context, this);
    steps_->setModel(stepModel_);
    setUpRowTable(steps_);
    steps_->verticalHeader()->setDefaultSectionSize(steps_->fontMetrics().height() + 6);
    steps_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    steps_->horizontalHeader()->setSectionResizeMode(StepListModel::Writes, QHeaderView::Interactive);
    steps_->setColumnWidth(StepListModel::Writes, 200);
    steps_->setWordWrap(false);
    steps_->setTextElideMode(Qt::ElideMiddle);
    steps_->setContextMenuPolicy(Qt::CustomContextMenu);
    steps_->setAlternatingRowColors(true);
    tabs_->addTab(steps_, tr("Steps"));
    slots_ = new QTableView(tabs_);
    slotModel_ = new SlotTableModel(context, this);
    slots_->setModel(slotModel_);
    setUpRowTable(slots_);
    slots_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    tabs_->addTab(slots_, tr("Slots"));
    l->addWidget(tabs_, 1);

    connect(steps_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
        if (i.isValid()) context_->selectStep(static_cast<std::size_t>(i.row()));
    });
    connect(stepModel_, &QAbstractItemModel::modelReset, this, [this] {
        // The selection model is replaced on reset only by setModel; reconnecting is not needed.
        updateSummary();
    });
    connect(slots_, &QTableView::clicked, this, [this](const QModelIndex& i) {
        const QString name = slotModel_->data(i, SlotTableModel::SlotNameRole).toString();
        if (!name.isEmpty()) context_->selectTensor({TensorKey::Source::Slot, name.toStdString()});
    });
    connect(steps_, &QTableView::customContextMenuRequested, this, &StepListPanel::showMenu);
    connect(context_, &DebugContext::positionChanged, this, [this](std::size_t next) {
        updateSummary();
        if (next < static_cast<std::size_t>(stepModel_->rowCount()))
            steps_->scrollTo(stepModel_->index(static_cast<int>(next), 0));
    });
    connect(context_, &DebugContext::runStopped, this, &StepListPanel::updateSummary);
    connect(context_, &DebugContext::operatorChanged, this, &StepListPanel::updateSummary);
    connect(context_, &DebugContext::prepareFailed, this, &StepListPanel::updateSummary);
    updateSummary();
}

std::optional<std::size_t> StepListPanel::selectedStep() const {
    const QModelIndex i = steps_->currentIndex();
    if (!i.isValid()) return std::nullopt;
    return static_cast<std::size_t>(i.row());
}

void StepListPanel::updateSummary() {
    if (context_->isRecordedOnly()) {
        const PlanInfo& p = context_->plan();
        summary_->setText(
            tr("<b>%1</b> on %2 · %3 recorded steps · workspace %4 · <i>a recorded run without values "
               "(trace level stats or metadata): steps, timings and statistics only</i>")
                .arg(QString::fromStdString(p.op).toHtmlEscaped(), QString::fromStdString(p.product).toHtmlEscaped())
                .arg(p.steps.size())
                .arg(formatBytes(double(p.workspaceBytes))));
        return;
    }
    if (!context_->isPrepared()) {
        if (const auto& err = context_->prepareError()) {
            summary_->setText(
                tr("<span style='color:#b71c1c'><b>%1</b>: %2</span> — see the Call panel.")
                    .arg(err->headline().toHtmlEscaped(),
                         QString::fromStdString(stripMessagePrefix(err->message.toStdString())).toHtmlEscaped()));
            return;
        }
        summary_->setText(context_->op()
                              ? tr("Not prepared. Press Prepare (Ctrl+P) to validate the arguments and build the plan.")
                              : tr("Open a file and click a case, or choose an operator."));
        return;
    }
    const PlanInfo& p = context_->plan();
    const std::size_t n = p.steps.size();
    const std::size_t next = context_->nextStep();
    QString where = context_->atEnd() ? tr("<b>finished</b>")
                    : next < n ? tr("next: <b>step %1 %2</b>").arg(next).arg(QString::fromStdString(p.steps[next].name))
                               : tr("ready");
    summary_->setText(tr("<b>%1</b> on %2%3 · %4 steps · workspace %5 · %6")
                          .arg(QString::fromStdString(p.op), QString::fromStdString(p.product),
                               p.runAs.empty() ? QString() : tr(" · run as %1").arg(QString::fromStdString(p.runAs)))
                          .arg(n)
                          .arg(formatBytes(double(p.workspaceBytes)), where));
}

void StepListPanel::showMenu(const QPoint& pos) {
    const QModelIndex i = steps_->indexAt(pos);
    if (!i.isValid()) return;
    const std::size_t step = static_cast<std::size_t>(i.row());
    QMenu menu(this);
    menu.addAction(tr("Run to here"), this, [this, step] { context_->runTo(step); });
    menu.addAction(tr("Run through this step"), this, [this, step] { context_->runTo(step + 1); });
    menu.addAction(context_->hasBreakpoint(step) ? tr("Remove breakpoint") : tr("Set breakpoint"), this,
                   [this, step] { context_->toggleBreakpoint(step); });
    menu.addAction(tr("Show what it wrote"), this, [this, step] { context_->selectStep(step); });
    menu.exec(steps_->viewport()->mapToGlobal(pos));
}

}  // namespace opscope::gui
