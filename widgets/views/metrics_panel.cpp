#include "views/metrics_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include "models/metrics_table_model.h"
#include "session/debug_context.h"
#include "views/palette.h"

namespace opscope::gui {

MetricsPanel::MetricsPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    auto* form = new QFormLayout();
    baseline_ = new QComboBox(this);
    baseline_->setToolTip(tr("What the outputs are compared with: the operator's float64 reference of the inputs as run, "
                             "with \"run as\" the reference of the inputs as stored, or an output source of the case"));
    form->addRow(tr("Compare with"), baseline_);
    standard_ = new QComboBox(this);
    standard_->setEditable(true);
    standard_->setInsertPolicy(QComboBox::NoInsert);
    standard_->addItem(tr("(default for the case)"), QString());
    for (const metrics::Standard& s : metrics::builtinStandards())
        standard_->addItem(QString::fromStdString(s.title) + " [" + QString::fromStdString(s.name) + "]",
                           QString::fromStdString(s.name));
    standard_->addItem(QStringLiteral("rtol=1e-3,atol=1e-5"), QStringLiteral("rtol=1e-3,atol=1e-5"));
    standard_->setToolTip(tr("The standard that judges each step and the outputs; type rtol=..,atol=.. for your own"));
    form->addRow(tr("Standard"), standard_);
    l->addLayout(form);
    verdict_ = new QLabel(this);
    verdict_->setAlignment(Qt::AlignCenter);
    verdict_->setMinimumHeight(28);
    verdict_->setWordWrap(true);
    l->addWidget(verdict_);
    table_ = new QTableView(this);
    model_ = new MetricsTableModel(context, this);
    table_->setModel(model_);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setWordWrap(false);
    l->addWidget(table_, 1);
    standardInfo_ = new QLabel(this);
    standardInfo_->setWordWrap(true);
    standardInfo_->setStyleSheet("color: gray");
    l->addWidget(standardInfo_);

    connect(baseline_, &QComboBox::activated, this, [this] { context_->setBaselineSource(baseline_->currentText()); });
    connect(standard_, &QComboBox::activated, this, [this](int i) { context_->setStandard(standard_->itemData(i).toString()); });
    connect(standard_->lineEdit(), &QLineEdit::returnPressed, this, [this] {
        const QString text = standard_->currentText().trimmed();
        const int i = standard_->findText(text);
        context_->setStandard(i >= 0 ? standard_->itemData(i).toString() : text);
    });
    connect(context_, &DebugContext::caseLoaded, this, &MetricsPanel::refreshChoices);
    connect(context_, &DebugContext::planChanged, this, &MetricsPanel::refreshChoices);
    connect(context_, &DebugContext::argumentsChanged, this, &MetricsPanel::refreshChoices);  // run as
    connect(context_, &DebugContext::analysisChanged, this, &MetricsPanel::refreshVerdict);
    connect(context_, &DebugContext::baselineChanged, this, &MetricsPanel::refreshVerdict);
    refreshChoices();
    refreshVerdict();
}

void MetricsPanel::refreshChoices() {
    baseline_->clear();
    baseline_->addItems(context_->baselineChoices());
    baseline_->setCurrentText(context_->baselineSource());
    const QString spec = context_->standardSpec();
    const int i = standard_->findData(spec);
    if (i >= 0) standard_->setCurrentIndex(i);
    else standard_->setEditText(spec);
}

QString MetricsPanel::verdictText() const { return verdict_->text(); }

void MetricsPanel::refreshVerdict() {
    const AnalysisPtr a = context_->analysis();
    const metrics::Standard& s = context_->standard();
    standardInfo_->setText(s.name.empty() ? QString()
                                          : QStringLiteral("<b>%1</b>: %2<br>%3")
                                                .arg(QString::fromStdString(s.title), QString::fromStdString(s.formula),
                                                     QString::fromStdString(s.thresholds)));
    if (!a || a->outputs.empty()) {
        verdict_->setStyleSheet({});
        verdict_->setText(context_->isPrepared() ? (context_->baseline() ? tr("Run to the end (F5) for the verdict")
                                                                         : tr("Computing the reference…"))
                                                 : QString());
        return;
    }
    metrics::Verdict worst = metrics::Verdict::Pass;
    QStringList failing;
    for (const OutputAnalysis& o : a->outputs) {
        if (o.judgements.empty()) continue;
        const metrics::Verdict v = o.judgements.front().verdict;
        if (static_cast<int>(v) > static_cast<int>(worst)) worst = v;
        if (v == metrics::Verdict::Fail) failing << QString::fromStdString(o.output);
    }
    const QColor bg = verdictBackground(worst), fg = verdictForeground(worst);
    verdict_->setStyleSheet(QStringLiteral("QLabel { background: %1; color: %2; font-weight: bold; font-size: 14px; border-radius: 4px; }")
                                .arg(bg.name(), fg.name()));
    verdict_->setText(tr("%1 under %2 against %3%4")
                          .arg(gui::verdictText(worst).toUpper(), QString::fromStdString(a->standard),
                               QString::fromStdString(a->baselineName),
                               failing.isEmpty() ? QString() : tr(" — failing: %1").arg(failing.join(", "))));
}

}  // namespace opscope::gui
