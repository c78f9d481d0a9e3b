#include "views/tensor_view_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSettings>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "opscope/metrics.h"
#include "session/debug_context.h"
#include "session/gui_invoke.h"
#include "views/display_controls.h"
#include "views/heatmap_widget.h"
#include "palette.h"
#include "views/range_histogram_widget.h"
#include "views/slice_controls.h"
#include "views/panel_setup.h"

namespace opscope::gui {

namespace {

QString indexText(const std::vector<int64_t>& index) { return formatShape(index); }

}  // namespace

TensorViewPanel::TensorViewPanel(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    auto* layout = panelLayout(this);
    layout->setSpacing(4);

    layout->addLayout(buildTopBar());
    slice_ = new SliceControls(this);
    layout->addWidget(slice_);
    controls_ = new DisplayControls(this);
    layout->addWidget(controls_);

    layout->addWidget(buildViewArea(), 1);
    readout_ = new QLabel(this);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readout_->setMinimumHeight(readout_->fontMetrics().height() * 2 + 4);
    readout_->setWordWrap(true);
    layout->addWidget(readout_);
    stats_ = wrappedLabel(this);
    stats_->setTextFormat(Qt::RichText);
    connect(stats_, &QLabel::linkActivated, this, [this](const QString& link) {
        std::vector<int64_t> target = frame_.firstNonFinite;
        if (link == "worst")
            if (const AnalysisPtr a = context_->analysis(); a && entry())
                if (const OutputAnalysis* o = a->find(entry()->output)) target = o->metrics.worstRel.coords;
        if (target.empty()) return;
        showElement(target);
        readout_->setText(tr("Picked: ") + describeElement(target));
    });
    layout->addWidget(scrollingText(stats_, this));

    connectControls();
    connectContext();
    kindSettings_[0] = DisplayControls::defaultsFor(false);
    kindSettings_[1] = DisplayControls::defaultsFor(true);
    controls_->setFrom(kindSettings_[0]);
    rebuildEntries();
}

QHBoxLayout* TensorViewPanel::buildTopBar() {
    auto* top = new QHBoxLayout();
    top->addWidget(new QLabel(tr("Tensor:"), this));
    tensor_ = new QComboBox(this);
    tensor_->setMinimumContentsLength(28);
    tensor_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    tensor_->setToolTip(tr("Any tensor of the plan at the current step, the reference and the error maps"));
    top->addWidget(tensor_, 1);
    ab_ = new QToolButton(this);
    ab_->setText(tr("A/B"));
    ab_->setCheckable(true);
    ab_->setShortcut(QKeySequence(Qt::Key_B));
    ab_->setToolTip(tr("Toggle between the output (A) and its reference (B) with the same range (B)"));
    top->addWidget(ab_);
    sideBySide_ = new QCheckBox(tr("Side by side"), this);
    sideBySide_->setToolTip(tr("Show the reference next to the output, zoomed and panned together"));
    top->addWidget(sideBySide_);
    fit_ = new QToolButton(this);
    fit_->setText(tr("Fit"));
    fit_->setToolTip(tr("Fit the slice to the window (F or double-click)"));
    top->addWidget(fit_);
    info_ = new QLabel(this);
    // Long slice notes are clipped, never widen the window (the full text is the tooltip).
    info_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    info_->setMinimumWidth(info_->fontMetrics().averageCharWidth() * 12);
    top->addWidget(info_, 1);
    return top;
}

QWidget* TensorViewPanel::buildViewArea() {
    viewArea_ = new QWidget(this);
    auto* va = new QVBoxLayout(viewArea_);
    va->setContentsMargins(0, 0, 0, 0);
    va->setSpacing(2);
    auto* maps = new QSplitter(Qt::Horizontal, viewArea_);
    heatmap_ = new HeatmapWidget(maps);
    sideHeatmap_ = new HeatmapWidget(maps);
    sideHeatmap_->hide();
    maps->addWidget(heatmap_);
    maps->addWidget(sideHeatmap_);
    va->addWidget(maps, 1);
    histogram_ = new RangeHistogramWidget(viewArea_);
    va->addWidget(histogram_);
    return viewArea_;
}

void TensorViewPanel::connectControls() {
    connect(tensor_, &QComboBox::activated, this, &TensorViewPanel::onEntryChosen);
    connect(ab_, &QToolButton::toggled, this, [this] { recompute(); });
    connect(sideBySide_, &QCheckBox::toggled, this, [this](bool on) {
        sideHeatmap_->setVisible(on);
        recompute();
    });
    connect(fit_, &QToolButton::clicked, this, [this] {
        heatmap_->fitToWindow();
        sideHeatmap_->fitToWindow();
    });
    connect(slice_, &SliceControls::sliceChanged, this, [this] { recompute(); });
    connect(controls_, &DisplayControls::changed, this, [this] { recompute(); });
    connect(histogram_, &RangeHistogramWidget::rangeEdited, controls_, &DisplayControls::setManualRange);
    connect(heatmap_, &HeatmapWidget::hovered, this, &TensorViewPanel::onHover);
    connect(sideHeatmap_, &HeatmapWidget::hovered, this, &TensorViewPanel::onHover);
    connect(heatmap_, &HeatmapWidget::clicked, this, &TensorViewPanel::onClick);
    connect(sideHeatmap_, &HeatmapWidget::clicked, this, &TensorViewPanel::onClick);
    attachHeatmapMenu(heatmap_, [this] { return heatmapContent(false); });
    attachHeatmapMenu(sideHeatmap_, [this] { return heatmapContent(true); });
    // Side-by-side maps zoom and pan together.
    connect(heatmap_, &HeatmapWidget::viewChanged, sideHeatmap_, &HeatmapWidget::setView);
    connect(sideHeatmap_, &HeatmapWidget::viewChanged, heatmap_, &HeatmapWidget::setView);
}

void TensorViewPanel::connectContext() {
    connect(context_, &DebugContext::planChanged, this, &TensorViewPanel::rebuildEntries);
    connect(context_, &DebugContext::baselineChanged, this, &TensorViewPanel::rebuildEntries);
    connect(context_, &DebugContext::runStopped, this, [this] { refetch(); });
    connect(context_, &DebugContext::analysisChanged, this, [this] { recompute(); });  // the "worst" link
    connect(context_, &DebugContext::tensorSelected, this, [this](const TensorKey& k) { showTensor(k); });
    connect(context_, &DebugContext::stepSelected, this, [this](std::size_t step) {
        const PlanInfo& plan = context_->plan();
        if (step >= plan.steps.size() || plan.steps[step].outputs.empty()) return;
        // Prefer what the step wrote that belongs to an operator output.
        const SlotInfo* pick = plan.slot(plan.steps[step].outputs.front());
        for (int id : plan.steps[step].outputs)
            if (const SlotInfo* s = plan.slot(id); s && !s->output.empty()) {
                pick = s;
                break;
            }
        if (pick) showTensor({TensorKey::Source::Slot, pick->name});
    });
}

const TensorViewPanel::Entry* TensorViewPanel::entry() const {
    return current_ >= 0 && current_ < static_cast<int>(entries_.size()) ? &entries_[static_cast<std::size_t>(current_)]
                                                                         : nullptr;
}

TensorKey TensorViewPanel::currentKey() const { return entry() ? entry()->key : TensorKey{}; }

QStringList TensorViewPanel::tensorLabels() const {
    QStringList out;
    for (const Entry& e : entries_) out << e.label;
    return out;
}

void TensorViewPanel::rebuildEntries() {
    const TensorKey previous = currentKey();
    const bool hadEntry = entry() != nullptr;
    entries_.clear();
    const PlanInfo& plan = context_->plan();
    const TensorMapPtr baseline = context_->baseline();
    auto add = [&](TensorKey key, std::string output, bool errors, QString label) {
        entries_.push_back({std::move(key), std::move(output), errors, std::move(label)});
    };
    // Outputs first (what a user looks at), then their reference and errors, inputs, scratch.
    for (SlotKind kind : {SlotKind::Output, SlotKind::Input, SlotKind::Scratch}) {
        for (const SlotInfo& s : plan.slots) {
            if (s.kind != kind) continue;
            const QString desc = QString::fromUtf8(dtypeName(s.dtype)) + formatShape(s.shape);
            add({TensorKey::Source::Slot, s.name}, s.output, false,
                QStringLiteral("%1 — %2 %3")
                    .arg(QString::fromStdString(s.name), QString::fromUtf8(slotKindName(kind)), desc));
            if (kind == SlotKind::Output && baseline && baseline->count(s.name)) {
                const QString n = QString::fromStdString(s.name);
                add({TensorKey::Source::Baseline, s.name}, s.name, false, tr("%1 — reference").arg(n));
                add({TensorKey::Source::AbsError, s.name}, s.name, true, tr("%1 — absolute error").arg(n));
                add({TensorKey::Source::RelError, s.name}, s.name, true, tr("%1 — relative error").arg(n));
            }
        }
    }
    tensor_->clear();
    for (const Entry& e : entries_) tensor_->addItem(e.label);
    current_ = -1;
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (hadEntry && entries_[i].key == previous) current_ = static_cast<int>(i);
    if (current_ < 0 && !entries_.empty()) current_ = 0;
    tensor_->setCurrentIndex(current_);
    if (entries_.empty()) {
        fetched_.clear();
        frame_ = DisplayFrame{};
        heatmap_->clear(context_->isPrepared() ? tr("The plan has no tensors")
                                               : tr("Prepare an operator call to see its tensors"));
        sideHeatmap_->clear();
        histogram_->clear();
        readout_->clear();
        stats_->clear();
        info_->clear();
        return;
    }
    onEntryChosen(current_);
}

bool TensorViewPanel::showTensor(const TensorKey& key) {
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i].key == key) {
            tensor_->setCurrentIndex(static_cast<int>(i));
            onEntryChosen(static_cast<int>(i));
            return true;
        }
    return false;
}

void TensorViewPanel::onEntryChosen(int index) {
    if (index < 0 || index >= static_cast<int>(entries_.size())) return;
    // Values and error maps each keep their own colours, scale and range mode.
    const int before = shownKind_;
    current_ = index;
    shownKind_ = entry()->errors ? 1 : 0;
    if (shownKind_ != before) {
        controls_->apply(&kindSettings_[before]);
        controls_->setFrom(kindSettings_[shownKind_]);
    }
    const bool comparable = partnerKey().has_value();
    ab_->setEnabled(comparable);
    sideBySide_->setEnabled(comparable);
    if (!comparable) {
        ab_->setChecked(false);
        sideBySide_->setChecked(false);
    }
    refetch();
}

std::optional<TensorKey> TensorViewPanel::partnerKey() const {
    const Entry* e = entry();
    if (!e || e->output.empty() || !context_->baseline() || !context_->baseline()->count(e->output))
        return std::nullopt;
    if (e->key.source == TensorKey::Source::Slot) return TensorKey{TensorKey::Source::Baseline, e->output};
    if (e->key.source == TensorKey::Source::Baseline) return TensorKey{TensorKey::Source::Slot, e->output};
    return std::nullopt;
}

TensorKey TensorViewPanel::dataKey() const {
    const Entry* e = entry();
    if (!e) return {};
    // An error map is drawn from the output and its reference.
    return e->errors ? TensorKey{TensorKey::Source::Slot, e->output} : e->key;
}

DisplayRequest TensorViewPanel::displayRequest(const TensorPtr& primary, const DisplaySettings& s,
                                               bool unwritten) const {
    const Entry* e = entry();
    DisplayRequest r;
    r.tensor = primary;
    r.settings = s;
    if (e->output.empty() || e->key.source == TensorKey::Source::Baseline || unwritten) return r;
    r.reference = fetched(TensorKey{TensorKey::Source::Baseline, e->output});
    if (const SlotInfo* out = context_->plan().findSlot(e->output))
        r.outputDtype = isFloatingType(out->dtype) ? out->dtype : DType::Float32;
    if (e->key.source == TensorKey::Source::AbsError) r.content = view::SliceContent::AbsError;
    if (e->key.source == TensorKey::Source::RelError) r.content = view::SliceContent::RelError;
    return r;
}

TensorPtr TensorViewPanel::fetched(const std::optional<TensorKey>& key) const {
    if (!key) return nullptr;
    auto it = fetched_.find(*key);
    return it == fetched_.end() ? nullptr : it->second;
}

void TensorViewPanel::refetch() {
    const Entry* e = entry();
    if (!e) return;
    const uint64_t gen = ++fetchGeneration_;
    // A frame of the entry left behind stops now: its pass holds the parallel pool, which the
    // fetch below may need on the execution thread (a snapshot's copy).
    latestCompute_->store(++computeGeneration_);
    fetched_.clear();
    pending_.clear();
    std::set<TensorKey> keys{dataKey()};
    const bool hasBaseline = !e->output.empty() && context_->baseline() && context_->baseline()->count(e->output);
    if (hasBaseline) {
        // The readout shows value, reference and errors of the element; error maps and the
        // overlay are computed from the pair, slice by slice, never fetched whole.
        keys.insert({TensorKey::Source::Slot, e->output});
        keys.insert({TensorKey::Source::Baseline, e->output});
    }
    pending_ = keys;
    info_->setText(tr("loading…"));
    for (const TensorKey& k : keys) {
        context_->fetchTensor(k, this, [this, gen, k](TensorPtr t, QString error) {
            if (gen != fetchGeneration_) return;
            pending_.erase(k);
            if (t)
                fetched_[k] = t;
            else if (k == currentKey())
                info_->setText(error);
            if (pending_.empty()) recompute();
        });
    }
}

DisplaySettings TensorViewPanel::settings() const {
    DisplaySettings s;
    controls_->apply(&s);
    s.slice = slice_->slice();
    return s;
}

void TensorViewPanel::setSettings(const DisplaySettings& s) {
    controls_->setFrom(s);
    slice_->setSlice(s.slice);
    recompute();
}

void TensorViewPanel::savePreferences(QSettings& s) const {
    DisplaySettings kinds[2] = {kindSettings_[0], kindSettings_[1]};
    controls_->apply(&kinds[shownKind_]);  // the shown kind's settings live in the controls
    for (int k = 0; k < 2; ++k) {
        const DisplaySettings& d = kinds[k];
        const QString p = k ? QStringLiteral("tensorView/errors/") : QStringLiteral("tensorView/values/");
        s.setValue(p + "colormap", view::colormapName(d.colormap));
        s.setValue(p + "scale", view::scaleName(d.scale));
        s.setValue(p + "range", view::rangeModeName(d.range.mode));
        s.setValue(p + "percentile", d.range.percentile);
        s.setValue(p + "nonFinite", d.showNonFinite);
        s.setValue(p + "beyond", d.showBeyond);
        s.setValue(p + "relTolerance", d.relTolerance);
        s.setValue(p + "absTolerance", d.absTolerance);
    }
}

void TensorViewPanel::loadPreferences(const QSettings& s) {
    for (int k = 0; k < 2; ++k) {
        DisplaySettings& d = kindSettings_[k];
        const QString p = k ? QStringLiteral("tensorView/errors/") : QStringLiteral("tensorView/values/");
        view::parseColormap(s.value(p + "colormap").toString().toStdString(), &d.colormap);
        view::parseScale(s.value(p + "scale").toString().toStdString(), &d.scale);
        view::parseRangeMode(s.value(p + "range").toString().toStdString(), &d.range.mode);
        d.range.percentile = s.value(p + "percentile", d.range.percentile).toDouble();
        d.showNonFinite = s.value(p + "nonFinite", d.showNonFinite).toBool();
        d.showBeyond = s.value(p + "beyond", d.showBeyond).toBool();
        d.relTolerance = s.value(p + "relTolerance", d.relTolerance).toDouble();
        d.absTolerance = s.value(p + "absTolerance", d.absTolerance).toDouble();
    }
    controls_->setFrom(kindSettings_[shownKind_]);
    recompute();
}

void TensorViewPanel::setAbMode(bool showReference) { ab_->setChecked(showReference); }

void TensorViewPanel::showElement(const std::vector<int64_t>& index) {
    marked_ = index;
    const view::SliceSpec before = slice_->slice();
    slice_->showElement(index);  // emits sliceChanged (and recomputes) when the slice moves
    if (slice_->slice() == before) recompute();
}

void TensorViewPanel::setSideBySide(bool on) { sideBySide_->setChecked(on); }

void TensorViewPanel::recompute() {
    const Entry* e = entry();
    if (!e || !pending_.empty()) return;
    const TensorPtr primary = fetched(dataKey());
    if (!primary || (e->errors && !fetched(TensorKey{TensorKey::Source::Baseline, e->output}))) {
        shownGeneration_ = computeGeneration_;
        heatmap_->clear(info_->text());
        return;
    }
    slice_->setShape(primary->shape());
    DisplaySettings s = settings();
    if (e->errors) s.showBeyond = false;  // an error map shows the errors themselves
    // An output slot before the step that writes it holds no result: nothing to judge there
    // (no overlay and no "beyond tolerance" count).
    const bool unwritten = shownSlotUnwritten();
    if (unwritten) s.showBeyond = false;
    const std::optional<TensorKey> partner = partnerKey();
    const TensorPtr other = fetched(partner);
    const bool ab = ab_->isChecked() && other;
    const bool side = sideBySide_->isChecked() && other;
    DisplayRequest main = displayRequest(primary, s, unwritten);
    DisplayRequest second = main;
    second.tensor = other;
    second.reference = nullptr;  // the reference beside the output: its values, no overlay
    const uint64_t gen = ++computeGeneration_;
    latestCompute_->store(gen);
    // A frame the user has moved on from stops between rows instead of holding the pool.
    main.cancelled = second.cancelled = [latest = latestCompute_, gen] { return latest->load() != gen; };
    info_->setText(tr("rendering…"));
    runInBackground<std::pair<DisplayFrame, DisplayFrame>>(
        this,
        [main, second, ab, side]() mutable {
            DisplayFrame a = computeDisplay(main);
            DisplayFrame b;
            if (ab || side) {
                second.fixedRange = a.scale.range();  // the same colours mean the same values
                b = computeDisplay(second);
            }
            return ab ? std::make_pair(b, side ? a : DisplayFrame{}) : std::make_pair(a, b);
        },
        [this, gen](std::pair<DisplayFrame, DisplayFrame> frames, QString error) {
            if (gen != computeGeneration_) return;
            shownGeneration_ = gen;
            if (!error.isEmpty()) {
                heatmap_->clear(error);
                info_->setText(error);
                return;
            }
            showFrames(frames.first, frames.second);
        });
}

void TensorViewPanel::showFrames(const DisplayFrame& main, const DisplayFrame& side) {
    frame_ = main;
    const Entry* e = entry();
    const bool ab = ab_->isChecked() && ab_->isEnabled();
    if (!main.valid()) {
        heatmap_->clear(main.tensorStats.count == 0 ? tr("Empty tensor") : tr("Nothing to show"));
        histogram_->clear();
    } else {
        heatmap_->setImage(main.image, main.planeRows, main.planeCols, main.flaggedCells);
        const QString a = e ? e->label.section(QStringLiteral(" — "), 0, 0) : QString();
        heatmap_->setCaption(sideBySide_->isChecked() || ab ? (ab ? tr("B: reference") : tr("A: %1").arg(a))
                                                            : QString());
        histogram_->setHistogram(main.histogram, main.histogramScale, main.scale, settings().colormap);
        controls_->showRange(main.scale.range().lo, main.scale.range().hi);
    }
    if (side.valid()) {
        sideHeatmap_->setImage(side.image, side.planeRows, side.planeCols, side.flaggedCells);
        sideHeatmap_->setCaption(ab ? tr("A: output") : tr("B: reference"));
        sideHeatmap_->setView(heatmap_->view());
    }
    // Marker of the picked element, when it lies in this slice.
    int64_t mr = -1, mc = -1;
    const view::SliceSpec sl = slice_->slice();
    if (!marked_.empty() && marked_.size() == sl.index.size()) {
        bool inPlane = true;
        for (std::size_t a = 0; a < marked_.size(); ++a)
            if (static_cast<int>(a) != sl.rowAxis && static_cast<int>(a) != sl.colAxis && marked_[a] != sl.index[a])
                inPlane = false;
        if (inPlane) {
            mr = sl.rowAxis >= 0 ? marked_[static_cast<std::size_t>(sl.rowAxis)] : 0;
            mc = sl.colAxis >= 0 ? marked_[static_cast<std::size_t>(sl.colAxis)] : 0;
        }
    }
    heatmap_->setMarker(mr, mc);
    sideHeatmap_->setMarker(mr, mc);

    // An error map has no whole-tensor pass (it is computed per slice): its slice's statistics.
    const bool whole = main.tensorStats.count > 0;
    const TensorStats& ts = whole ? main.tensorStats : main.sliceStats;
    QString info;
    if (main.valid()) {
        info = tr("slice %1 × %2").arg(main.planeRows).arg(main.planeCols);
        if (main.blockRows > 1 || main.blockCols > 1)
            info += tr(" · downsampled %1×%2 (extremes kept)").arg(main.blockRows).arg(main.blockCols);
        if (main.sampled) info += tr(" · histogram of an even sample");
    }
    if (shownSlotUnwritten()) info += tr(" · <b style='color:#b25e00'>not written yet at this step</b>");
    info_->setText(info);
    info_->setToolTip(info);
    QString stats =
        (whole ? tr("Tensor: ") : tr("Slice: ")) + tr("min %1 · max %2 · mean %3 · mean|x| %4")
                                                       .arg(formatNumber(ts.min, 5), formatNumber(ts.max, 5),
                                                            formatNumber(ts.mean, 5), formatNumber(ts.meanAbs, 5));
    if (ts.nanCount || ts.infCount)
        stats += QStringLiteral(" · <b style='color:#b71c1c'>%1 NaN, %2 Inf</b>").arg(ts.nanCount).arg(ts.infCount);
    if (!main.firstNonFinite.empty())
        stats += QStringLiteral(" <a href='nonfinite'>go to the first %1</a>").arg(formatShape(main.firstNonFinite));
    if (const AnalysisPtr a = context_->analysis(); a && e && !e->output.empty())
        if (const OutputAnalysis* o = a->find(e->output); o && o->metrics.worstRel.index >= 0)
            stats +=
                tr(" · <a href='worst'>go to the worst rel. error %1</a>").arg(formatShape(o->metrics.worstRel.coords));
    if (main.beyondCount > 0) {
        const view::Rgb c = view::beyondToleranceColor(settings().colormap);
        stats += tr(" · <b><span style='color:%2'>■</span> %1 beyond tolerance in this slice</b>")
                     .arg(main.beyondCount)
                     .arg(QColor(c.r, c.g, c.b).name());
    } else if (main.beyondCount == 0)
        stats += tr(" · none beyond tolerance in this slice");
    stats_->setText(stats);
    // The tensors may have changed under the pointer or the pick (a step ran, the output was
    // written): the readout says what they hold now, never what they held at the last hover.
    refreshReadout();
    Q_EMIT frameShown();
}

bool TensorViewPanel::shownSlotUnwritten() const {
    const Entry* e = entry();
    if (!e || e->key.source != TensorKey::Source::Slot) return false;
    const SlotInfo* slot = context_->plan().findSlot(e->key.name);
    return slot && !slotWritten(context_->plan(), context_->stepStates(), slot->id);
}

void TensorViewPanel::refreshReadout() {
    QString text;
    if (const TensorPtr primary = fetched(dataKey()); hoverActive_ && primary)
        text = describeElement(
            view::elementIndex(view::normalizeSlice(primary->shape(), slice_->slice()), hoverRow_, hoverCol_));
    else if (!marked_.empty() && !describeElement(marked_).isEmpty())
        text = tr("Picked: ") + describeElement(marked_);
    readout_->setText(text.isEmpty() ? tr("Hover over the map for values; click to pick an element (history).") : text);
}

QString TensorViewPanel::describeElement(const std::vector<int64_t>& index) const {
    const Entry* e = entry();
    const TensorPtr primary = fetched(e ? std::optional<TensorKey>(dataKey()) : std::nullopt);
    if (!primary || index.size() != primary->shape().size()) return {};
    for (std::size_t a = 0; a < index.size(); ++a)
        if (index[a] < 0 || index[a] >= primary->shape()[a]) return {};
    const TensorPtr actual = fetched(TensorKey{TensorKey::Source::Slot, e->output});
    const TensorPtr ref = fetched(TensorKey{TensorKey::Source::Baseline, e->output});
    // An output before the step that writes it holds no result: its reference alone, no error.
    const bool unwritten = shownSlotUnwritten();
    const bool paired = !unwritten && !e->output.empty() && actual && ref && actual->shape() == primary->shape() &&
                        ref->numel() == primary->numel();
    std::optional<metrics::ElementErrors> errors;
    double a = 0, r = 0;
    if (paired) {
        const int64_t flat = view::flatIndex(primary->shape(), index);
        const DType dt = isFloatingType(actual->dtype()) ? actual->dtype() : DType::Float32;
        a = actual->getAsDouble(flat);
        r = metrics::roundToDtype(ref->getAsDouble(flat), dt);
        errors = metrics::elementErrors(a, r, dt, {});
    }
    double shown = view::elementValue(primary->view(), index);
    if (e->errors && errors) shown = e->key.source == TensorKey::Source::AbsError ? errors->abs : errors->rel;
    QString text = QStringLiteral("<b>%1</b> %2 = <b>%3</b>")
                       .arg(e->label.section(QStringLiteral(" — "), 0, 0), indexText(index), formatNumber(shown, 9));
    if (unwritten && ref && ref->numel() == primary->numel())
        return text + tr("<br>not written yet at this step · reference %1")
                          .arg(formatNumber(ref->getAsDouble(view::flatIndex(primary->shape(), index)), 9));
    if (!errors) return text;
    text +=
        tr("<br>output %1 · reference %2 · |error| %3 · rel. error %4")
            .arg(formatNumber(a, 9), formatNumber(r, 9), formatNumber(errors->abs, 4), formatNumber(errors->rel, 4));
    return text;
}

void TensorViewPanel::onHover(qint64 row, qint64 col) {
    hoverActive_ = row >= 0;
    hoverRow_ = row;
    hoverCol_ = col;
    refreshReadout();
}

void TensorViewPanel::onClick(qint64 row, qint64 col) {
    const Entry* e = entry();
    const TensorPtr primary = fetched(dataKey());
    if (!e || !primary) return;
    const view::SliceSpec sl = view::normalizeSlice(primary->shape(), slice_->slice());
    marked_ = view::elementIndex(sl, row, col);
    heatmap_->setMarker(row, col);
    sideHeatmap_->setMarker(row, col);
    readout_->setText(tr("Picked: ") + describeElement(marked_));
    // The history follows the executor's tensor this element belongs to.
    ElementPick pick;
    pick.slot = e->key.source == TensorKey::Source::Slot ? e->key.name : e->output;
    pick.output = e->output;
    pick.shape = primary->shape();
    pick.index = marked_;
    context_->pickElement(pick);
}

QString TensorViewPanel::readout() const { return readout_->text(); }

HeatmapContent TensorViewPanel::heatmapContent(bool side) const {
    HeatmapContent c;
    const Entry* e = entry();
    if (!e) return c;
    const std::optional<TensorKey> partner = partnerKey();
    // Under A/B the main map shows the partner; the side map shows the other one.
    const bool showsPartner = side != (ab_->isChecked() && fetched(partner));
    c.tensor = fetched(showsPartner ? partner : std::optional<TensorKey>(e->key));
    c.slice = slice_->slice();
    c.tensorName = e->label.section(QStringLiteral(" — "), 0, 0);
    if (showsPartner && partner)
        c.tensorName = partner->source == TensorKey::Source::Baseline ? tr("%1 reference").arg(c.tensorName)
                                                                      : QString::fromStdString(partner->name);
    const cases::Case* current = context_->currentCase();
    c.caseName = current ? QString::fromStdString(current->path) : QFileInfo(context_->filePath()).fileName();
    c.sourceFile = context_->filePath();
    return c;
}

bool TensorViewPanel::exportPng(const QString& path) {
    if (!frame_.valid()) return false;
    return viewArea_->grab().save(path, "PNG");
}

}  // namespace opscope::gui
