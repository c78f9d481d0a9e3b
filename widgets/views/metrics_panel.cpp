#include "views/metrics_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "models/metrics_table_model.h"
#include "session/debug_context.h"
#include "palette.h"
#include "views/metrics_table_menu.h"
#include "views/panel_setup.h"

namespace opscope::gui {

namespace {
constexpr int kMaxColumnWidth = 260;
}  // namespace

MetricsPanel::MetricsPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    auto* l = panelLayout(this);
    auto* form = new QFormLayout();
    baseline_ = new QComboBox(this);
    baseline_->setToolTip(
        tr("What the outputs are compared with: the golden (the operator's float64 result for the inputs "
           "as run; with \"run as\", for the inputs as stored), or an output source of the case"));
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
    verdict_->setTextFormat(Qt::PlainText);
    l->addWidget(verdict_);
    exportRepro_ = new QPushButton(tr("Export a Reproducer for the Device's Owner…"), this);
    exportRepro_->setObjectName("exportReproButton");
    exportRepro_->setToolTip(
        tr("This call as a standalone aclnn program and its data, to build and run on the NPU "
           "(File › Export Reproducer; docs/REPRO.md)"));
    exportRepro_->hide();
    connect(exportRepro_, &QPushButton::clicked, this, &MetricsPanel::exportReproRequested);
    l->addWidget(exportRepro_);
    table_ = new QTableView(this);
    model_ = new MetricsTableModel(context, this);
    table_->setModel(model_);
    // One column per output, as wide as its numbers and name up to a limit; longer names are
    // elided at the end with the whole text in the tooltip.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setMaximumSectionSize(kMaxColumnWidth);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->horizontalHeader()->setTextElideMode(Qt::ElideRight);
    table_->setTextElideMode(Qt::ElideRight);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->setWordWrap(false);
    addCopyTableMenu(table_, model_);
    l->addWidget(table_, 1);
    standardInfo_ = wrappedLabel(this);
    standardInfo_->setTextFormat(Qt::PlainText);
    standardInfo_->setStyleSheet("color: gray");
    l->addWidget(standardInfo_);

    connect(baseline_, &QComboBox::activated, this, [this] { context_->setBaselineSource(baseline_->currentText()); });
    connect(standard_, &QComboBox::activated, this,
            [this](int i) { context_->setStandard(standard_->itemData(i).toString()); });
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
    if (i >= 0)
        standard_->setCurrentIndex(i);
    else
        standard_->setEditText(spec);
}

QString MetricsPanel::verdictText() const { return verdict_->text(); }
QColor MetricsPanel::verdictBackground() const { return verdictBackground_; }

void MetricsPanel::refreshVerdict() {
    const AnalysisPtr a = context_->analysis();
    const metrics::Standard& s = context_->standard();
    // Plain text: formulas hold '<' and user data may hold anything.
    standardInfo_->setText(s.name.empty() ? QString()
                                          : QStringLiteral("%1: %2\n%3")
                                                .arg(QString::fromStdString(s.title), QString::fromStdString(s.formula),
                                                     QString::fromStdString(s.thresholds)));
    exportRepro_->hide();
    if (!a || a->outputs.empty()) {
        verdict_->setStyleSheet({});
        verdictBackground_ = QColor();
        verdict_->setText(context_->isPrepared() ? (context_->baseline() ? tr("Run to the end (F5) for the verdict")
                                                                         : tr("Computing the golden…"))
                                                 : QString());
        return;
    }
    // The verdict is the evaluation's (ops::overallOf, as the CLI's): never a pass while an
    // output was not judged, and never a pass while a device's output fails (the CLI exits 1).
    const ops::Overall overall = a->overall();
    metrics::Verdict worst = metrics::Verdict::Pass;
    QStringList failing, notJudged;
    for (const ops::Comparison& c : a->comparisons) {
        if (!c.compared) {
            notJudged << QString::fromStdString(c.output);
            continue;
        }
        if (static_cast<int>(c.judgement.verdict) > static_cast<int>(worst)) worst = c.judgement.verdict;
        if (c.judgement.verdict == metrics::Verdict::Fail) failing << QString::fromStdString(c.output);
    }
    const bool deviceFails =
        a->device.kind == ops::DeviceVerdict::Kind::DeviceFails || a->device.kind == ops::DeviceVerdict::Kind::BothFail;
    const bool otherSettings = a->device.kind == ops::DeviceVerdict::Kind::OtherSettings;  // not the device's fault
    exportRepro_->setVisible(a->device.kind == ops::DeviceVerdict::Kind::DeviceFails);
    const metrics::Verdict shown = deviceFails                                           ? metrics::Verdict::Fail
                                   : otherSettings || overall == ops::Overall::NotJudged ? metrics::Verdict::Warning
                                                                                         : worst;
    const QColor bg = gui::verdictBackground(shown), fg = verdictForeground(shown);
    verdictBackground_ = bg;
    verdict_->setStyleSheet(
        QStringLiteral("QLabel { background: %1; color: %2; font-weight: bold; font-size: 14px; border-radius: 4px; }")
            .arg(bg.name(), fg.name()));
    const QString head = overall == ops::Overall::NotJudged ? tr("NOT JUDGED") : gui::verdictText(worst).toUpper();
    QString detail;
    if (!failing.isEmpty()) detail += tr(" — failing: %1").arg(failing.join(", "));
    if (!notJudged.isEmpty()) detail += tr(" — not judged: %1").arg(notJudged.join(", "));
    const QString actual =
        a->comparisons.empty() ? QStringLiteral("opscope") : QString::fromStdString(a->comparisons.front().actual);
    QString text = tr("%1%2 under %3 against %4%5")
                       .arg(deviceFails ? actual + ": " : QString(), head, QString::fromStdString(a->standard),
                            QString::fromStdString(a->baselineName), detail);
    // A failing device leads: it is what the case is about (device fails / both fail / other settings).
    const QString device = QString::fromStdString(a->device.line);
    if (deviceFails || otherSettings)
        text = device.left(1).toUpper() + device.mid(1) + "\n" + text;
    else if (a->device.kind != ops::DeviceVerdict::Kind::NoDevice)
        text += "\n" + device;
    if (!a->storedOutputsNote.empty()) text += "\n" + QString::fromStdString(a->storedOutputsNote);
    verdict_->setText(text);
}

}  // namespace opscope::gui
