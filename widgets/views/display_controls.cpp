#include "views/display_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QLabel>
#include <QLineEdit>

#include "palette.h"

namespace opscope::gui {

namespace {

QLineEdit* numberEdit(QWidget* parent, const QString& tip) {
    auto* e = new QLineEdit(parent);
    auto* v = new QDoubleValidator(e);
    v->setNotation(QDoubleValidator::ScientificNotation);
    e->setValidator(v);
    e->setMinimumWidth(e->fontMetrics().horizontalAdvance(QStringLiteral("-0.000000e-00")));
    e->setMaximumWidth(e->minimumWidth() * 3 / 2);
    e->setToolTip(tip);
    return e;
}

}  // namespace

DisplayControls::DisplayControls(QWidget* parent) : QWidget(parent) {
    auto* rows = new QVBoxLayout(this);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(2);
    auto* l = new QHBoxLayout();
    auto* l2 = new QHBoxLayout();
    rows->addLayout(l);
    rows->addLayout(l2);
    colormap_ = new QComboBox(this);
    for (view::Colormap c : view::allColormaps())
        colormap_->addItem(
            QString::fromUtf8(view::colormapName(c)) + (view::isDiverging(c) ? tr(" (diverging)") : QString()),
            static_cast<int>(c));
    colormap_->setToolTip(tr("Diverging maps centre white on zero (gradients); sequential maps show magnitudes"));
    scale_ = new QComboBox(this);
    for (view::ScaleKind s : {view::ScaleKind::Linear, view::ScaleKind::Log, view::ScaleKind::SymLog})
        scale_->addItem(QString::fromUtf8(view::scaleName(s)), static_cast<int>(s));
    scale_->setToolTip(tr("symlog is linear near zero and logarithmic beyond: signed values over many decades"));
    range_ = new QComboBox(this);
    for (view::RangeMode m :
         {view::RangeMode::Autofit, view::RangeMode::Symmetric, view::RangeMode::Percentile, view::RangeMode::Manual})
        range_->addItem(QString::fromUtf8(view::rangeModeName(m)), static_cast<int>(m));
    range_->setToolTip(tr("Autofit: min..max · symmetric: ±max|x| · percentile: clip outliers · manual: type or drag"));
    percentile_ = new QDoubleSpinBox(this);
    percentile_->setRange(50, 100);
    percentile_->setDecimals(2);
    percentile_->setValue(99);
    percentile_->setSuffix(QStringLiteral(" %"));
    percentile_->setToolTip(tr("Keep the values between the (100-p)th and the p-th percentile"));
    lo_ = numberEdit(this, tr("Low end of the display range"));
    hi_ = numberEdit(this, tr("High end of the display range"));
    nonFinite_ = new QCheckBox(tr("NaN/Inf"), this);
    nonFinite_->setChecked(true);
    nonFinite_->setToolTip(tr("Paint NaN magenta, +Inf yellow, -Inf cyan"));
    beyond_ = new QCheckBox(tr("Beyond tolerance"), this);
    beyond_->setChecked(true);
    beyond_->setToolTip(
        tr("Paint green (orange on viridis) the elements whose relative AND absolute errors exceed the tolerances"));
    relTol_ = numberEdit(this, tr("Relative tolerance of the overlay"));
    absTol_ = numberEdit(this, tr("Absolute tolerance of the overlay"));
    relTol_->setText("0.001");
    absTol_->setText("1e-06");

    l->addWidget(colormap_);
    l->addWidget(scale_);
    l->addWidget(new QLabel(tr("Range:"), this));
    l->addWidget(range_);
    l->addWidget(percentile_);
    l->addWidget(lo_);
    l->addWidget(new QLabel(QStringLiteral("…"), this));
    l->addWidget(hi_);
    l->addStretch(1);
    l2->addWidget(new QLabel(tr("Overlays:"), this));
    l2->addWidget(nonFinite_);
    l2->addWidget(beyond_);
    l2->addWidget(new QLabel(tr("rel >"), this));
    l2->addWidget(relTol_);
    l2->addWidget(new QLabel(tr("and abs >"), this));
    l2->addWidget(absTol_);
    l2->addStretch(1);

    auto emitChanged = [this] {
        if (updating_) return;
        updateEnabled();
        Q_EMIT changed();
    };
    connect(colormap_, &QComboBox::activated, this, emitChanged);
    connect(scale_, &QComboBox::activated, this, emitChanged);
    connect(range_, &QComboBox::activated, this, emitChanged);
    connect(percentile_, &QDoubleSpinBox::valueChanged, this, emitChanged);
    connect(nonFinite_, &QCheckBox::toggled, this, emitChanged);
    connect(beyond_, &QCheckBox::toggled, this, emitChanged);
    for (QLineEdit* e : {relTol_, absTol_}) connect(e, &QLineEdit::editingFinished, this, emitChanged);
    for (QLineEdit* e : {lo_, hi_})
        connect(e, &QLineEdit::editingFinished, this, [this, emitChanged] {
            range_->setCurrentIndex(range_->findData(static_cast<int>(view::RangeMode::Manual)));
            emitChanged();
        });
    updateEnabled();
}

void DisplayControls::updateEnabled() {
    percentile_->setVisible(range_->currentData().toInt() == static_cast<int>(view::RangeMode::Percentile));
}

void DisplayControls::apply(DisplaySettings* s) const {
    s->colormap = static_cast<view::Colormap>(colormap_->currentData().toInt());
    s->scale = static_cast<view::ScaleKind>(scale_->currentData().toInt());
    s->range.mode = static_cast<view::RangeMode>(range_->currentData().toInt());
    s->range.percentile = percentile_->value();
    s->range.manualLo = lo_->text().toDouble();
    s->range.manualHi = hi_->text().toDouble();
    s->showNonFinite = nonFinite_->isChecked();
    s->showBeyond = beyond_->isChecked();
    bool ok = false;
    const double rel = relTol_->text().toDouble(&ok);
    if (ok) s->relTolerance = rel;
    const double abs = absTol_->text().toDouble(&ok);
    if (ok) s->absTolerance = abs;
}

void DisplayControls::setFrom(const DisplaySettings& s) {
    updating_ = true;
    colormap_->setCurrentIndex(colormap_->findData(static_cast<int>(s.colormap)));
    scale_->setCurrentIndex(scale_->findData(static_cast<int>(s.scale)));
    range_->setCurrentIndex(range_->findData(static_cast<int>(s.range.mode)));
    percentile_->setValue(s.range.percentile);
    nonFinite_->setChecked(s.showNonFinite);
    beyond_->setChecked(s.showBeyond);
    relTol_->setText(formatNumber(s.relTolerance));
    absTol_->setText(formatNumber(s.absTolerance));
    updating_ = false;
    updateEnabled();
}

void DisplayControls::showRange(double lo, double hi) {
    if (lo_->hasFocus() || hi_->hasFocus()) return;
    lo_->setText(formatNumber(lo));
    hi_->setText(formatNumber(hi));
}

void DisplayControls::setManualRange(double lo, double hi) {
    updating_ = true;
    range_->setCurrentIndex(range_->findData(static_cast<int>(view::RangeMode::Manual)));
    lo_->setText(formatNumber(lo, 8));
    hi_->setText(formatNumber(hi, 8));
    updating_ = false;
    updateEnabled();
    Q_EMIT changed();
}

DisplaySettings DisplayControls::defaultsFor(bool errors) {
    DisplaySettings s;
    s.colormap = errors ? view::Colormap::Magma : view::Colormap::CoolWarm;
    s.scale = errors ? view::ScaleKind::Log : view::ScaleKind::Linear;
    s.range.mode = errors ? view::RangeMode::Autofit : view::RangeMode::Symmetric;
    return s;
}

}  // namespace opscope::gui
