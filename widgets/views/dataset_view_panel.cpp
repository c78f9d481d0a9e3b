#include "views/dataset_view_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <array>
#include <cmath>

#include "models/metrics_table_model.h"
#include "palette.h"
#include "session/analysis.h"
#include "session/dataset_read.h"
#include "session/gui_invoke.h"
#include "views/charts_panel.h"
#include "views/display_controls.h"
#include "views/heatmap_widget.h"
#include "views/metrics_table_menu.h"
#include "views/range_histogram_widget.h"
#include "views/slice_controls.h"
#include "views/panel_setup.h"
#include "views/standard_picker.h"

namespace opscope::gui {

QString DatasetRef::label() const {
    return path.isEmpty() ? QFileInfo(file).fileName() : QFileInfo(file).fileName() + QLatin1Char(':') + path;
}

DatasetViewPanel::DatasetViewPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = panelLayout(this);
    layout->setSpacing(4);
    buildTop(layout);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(buildMaps());
    split->addWidget(buildComparison());
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    comparison_->hide();
    for (HeatmapWidget* m : maps_) m->clear(tr("Double-click a dataset in the file tree (or Enter) to look at it"));
}

DatasetViewPanel::~DatasetViewPanel() {
    latestRead_->store(0);  // a stream stops at its next band
    if (analysisCancelled_) analysisCancelled_->store(true);
}

void DatasetViewPanel::buildTop(QVBoxLayout* layout) {
    title_ = new QLabel(this);
    title_->setTextFormat(Qt::PlainText);
    title_->setWordWrap(true);
    title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long path never widens the window
    layout->addWidget(title_);
    auto* top = new QHBoxLayout();
    ab_ = new QToolButton(this);
    ab_->setText(tr("A/B"));
    ab_->setCheckable(true);
    ab_->setToolTip(tr("Show A or the reference B in the main map, with the same colours"));
    top->addWidget(ab_);
    sideBySide_ = new QCheckBox(tr("Side by side"), this);
    sideBySide_->setToolTip(tr("A | B | relative error, zoomed and panned together"));
    sideBySide_->setChecked(true);
    top->addWidget(sideBySide_);
    top->addWidget(new QLabel(tr("Standard:"), this));
    standard_ = newStandardPicker(this, tr("The standard of the comparison (opscope-cli compare --standard)"));
    top->addWidget(standard_);
    top->addStretch(1);
    layout->addLayout(top);
    slice_ = new SliceControls(this);
    layout->addWidget(slice_);
    controls_ = new DisplayControls(this);
    controls_->setFrom(DisplayControls::defaultsFor(false));
    layout->addWidget(controls_);
    connect(ab_, &QToolButton::toggled, this, [this] { recompute(); });
    connect(sideBySide_, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(standard_, &QComboBox::activated, this, [this] { analyze(); });
    connect(slice_, &SliceControls::sliceChanged, this, [this] { recompute(); });
    connect(controls_, &DisplayControls::changed, this, [this] { recompute(); });
}

QWidget* DatasetViewPanel::buildMaps() {
    auto* area = new QWidget(this);
    auto* va = new QVBoxLayout(area);
    va->setContentsMargins(0, 0, 0, 0);
    auto* row = new QSplitter(Qt::Horizontal, area);
    for (Map m : {MapA, MapB, MapError}) {
        maps_[m] = new HeatmapWidget(row);
        row->addWidget(maps_[m]);
        connect(maps_[m], &HeatmapWidget::hovered, this, &DatasetViewPanel::onHover);
        attachHeatmapMenu(maps_[m], [this, m] { return content(m); });
    }
    // The three maps zoom and pan together.
    for (HeatmapWidget* from : maps_)
        for (HeatmapWidget* to : maps_)
            if (from != to) connect(from, &HeatmapWidget::viewChanged, to, &HeatmapWidget::setView);
    va->addWidget(row, 1);
    histogram_ = new RangeHistogramWidget(area);
    va->addWidget(histogram_);
    connect(histogram_, &RangeHistogramWidget::rangeEdited, controls_, &DisplayControls::setManualRange);
    stats_ = wrappedLabel(area);
    stats_->setTextFormat(Qt::RichText);
    stats_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    connect(stats_, &QLabel::linkActivated, this, [this](const QString&) {
        const std::vector<int64_t>& at = frames_[MapA].firstNonFinite;
        if (!at.empty()) slice_->showElement(at);
    });
    va->addWidget(scrollingText(stats_, area));
    readout_ = new QLabel(area);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    va->addWidget(readout_);
    return area;
}

QWidget* DatasetViewPanel::buildComparison() {
    comparison_ = new QWidget(this);
    auto* l = new QVBoxLayout(comparison_);
    l->setContentsMargins(0, 0, 0, 0);
    verdict_ = new QLabel(comparison_);
    verdict_->setTextFormat(Qt::PlainText);
    verdict_->setAlignment(Qt::AlignCenter);
    verdict_->setWordWrap(true);
    cancelCompare_ = new QToolButton(comparison_);
    cancelCompare_->setObjectName("cancelCompare");
    cancelCompare_->setText(tr("Cancel"));
    cancelCompare_->hide();
    connect(cancelCompare_, &QToolButton::clicked, this, [this] {
        const bool judged = analysis_ != nullptr;  // only the charts' pass was running: the verdict stays
        cancelAnalysis();
        if (judged)
            charts_->setPendingMessage(tr("No error charts: cancelled (choose a standard to compare again)"));
        else
            verdict_->setText(tr("NOT JUDGED: the comparison was cancelled (choose a standard to compare again)"));
        Q_EMIT shown();
    });
    auto* verdictRow = new QHBoxLayout();
    verdictRow->addWidget(verdict_, 1);
    verdictRow->addWidget(cancelCompare_);
    l->addLayout(verdictRow);
    auto* tabs = new QTabWidget(comparison_);
    table_ = new QTableView(tabs);
    metrics_ = new MetricsTableModel(nullptr, this);
    table_->setModel(metrics_);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setWordWrap(false);
    addCopyTableMenu(table_, metrics_);
    charts_ = new ChartsPanel(nullptr, tabs);
    tabs->addTab(table_, tr("Metrics"));
    tabs->addTab(charts_, tr("Charts"));
    l->addWidget(tabs, 1);
    return comparison_;
}

void DatasetViewPanel::view(const DatasetRef& ref) {
    pendingReference_.reset();
    read(ref);
}

void DatasetViewPanel::viewAndCompare(const DatasetRef& a, const DatasetRef& b) {
    view(a);
    pendingReference_ = b;  // read once A is shown; dropped if the user views something else first
}

void DatasetViewPanel::compareWith(const DatasetRef& ref) {
    if (!hasTensor()) return fail(tr("View a dataset first (double-click it in the file tree), then compare it"));
    readPair(ref, false);
}

void DatasetViewPanel::fill(Operand& o, DatasetForView d) {
    const bool read = d.tensor.data() != nullptr || d.tensor.numel() == 0;  // a default HostTensor: none read
    o.shape = std::move(d.shape);
    o.blockStart = std::move(d.block.start);
    o.dtype = d.dtype;
    o.streamed = std::move(d.streamed);
    o.streamedSlice = d.streamedSlice;
    o.bands = d.bands;
    o.tensor = nullptr;
    if (!o.streamed && read) {
        o.tensor = std::make_shared<const HostTensor>(std::move(d.tensor));
        o.dtype = o.tensor->dtype();
    }
}

DatasetViewPanel::Operand DatasetViewPanel::operandOf(const DatasetRef& ref, DatasetForView d) {
    Operand o;
    o.label = ref.label();
    o.file = ref.file;
    o.ref = ref;
    fill(o, std::move(d));
    return o;
}

// The tensor itself when the view holds all of it (in its own shape), else its file and key.
ViewOperand DatasetViewPanel::sideOf(const Operand& o) {
    ViewOperand side;
    if (o.ref) {
        side.file = o.ref->file.toStdString();
        side.path = o.ref->path.toStdString();
    }
    if (o.tensor && o.blockStart.empty() && (!o.ref || o.tensor->shape() == o.shape)) side.held = o.tensor;
    side.summary = o.streamed;
    side.summarySlice = o.streamedSlice;
    return side;
}

void DatasetViewPanel::showReadProgress(uint64_t generation, const QString& label, double share) {
    if (generation == readGeneration_) title_->setText(tr("Reading %1… %2 %").arg(label).arg(qRound(share * 100)));
}

uint64_t DatasetViewPanel::startRead(const QString& label) {
    const uint64_t gen = ++readGeneration_;
    latestRead_->store(gen);
    ++pendingReads_;
    message_.clear();
    title_->setText(tr("Reading %1…").arg(label));
    return gen;
}

// A streamed read stops between bands once the user moved on, and tells how far it is.
StreamControl DatasetViewPanel::streamControl(uint64_t gen, const QString& label) {
    StreamControl control;
    control.bandBytes = bandBytes_;
    control.cancelled = [gen, latest = latestRead_] { return latest->load() != gen; };
    control.progress = [self = QPointer<DatasetViewPanel>(this), gen, label](double share) {
        guiInvoke(QCoreApplication::instance(), [self, gen, label, share] {
            if (self) self->showReadProgress(gen, label, share);
        });
    };
    return control;
}

void DatasetViewPanel::read(const DatasetRef& ref) {
    const uint64_t gen = startRead(ref.label());
    const std::string file = ref.file.toStdString(), path = ref.path.toStdString();
    const uint64_t limit = sliceOnlyAbove_;
    const view::SliceSpec slice = slice_->slice();
    const StreamControl control = streamControl(gen, ref.label());
    runInBackground<DatasetForView>(
        this,
        [file, path, limit, slice, control, gen, latest = latestRead_] {
            if (latest->load() != gen) return DatasetForView{};  // dropped on arrival anyway
            return readDatasetForView(file, path, slice, limit, control);
        },
        [this, gen, ref](DatasetForView d, QString error) {
            --pendingReads_;
            if (gen != readGeneration_) return;
            std::optional<DatasetRef> next;
            next.swap(pendingReference_);
            if (!error.isEmpty()) return fail(tr("Cannot read %1: %2").arg(ref.label(), error));
            setOperand(operandOf(ref, std::move(d)));
            if (next) readPair(*next, false);
        });
}

void DatasetViewPanel::readPair(const DatasetRef& bRef, bool keepAnalysis) {
    const uint64_t gen = startRead(bRef.label());
    const ViewOperand a = sideOf(a_);
    ViewOperand b;
    b.file = bRef.file.toStdString();
    b.path = bRef.path.toStdString();
    const DType dtype = ops::judgedDtype(a_.dtype);
    const uint64_t limit = sliceOnlyAbove_;
    const view::SliceSpec slice = slice_->slice();
    const StreamControl control = streamControl(gen, bRef.label());
    runInBackground<PairForView>(
        this,
        [a, b, dtype, slice, limit, control, gen, latest = latestRead_] {
            if (latest->load() != gen) return PairForView{};
            return readPairForView(a, b, dtype, slice, limit, control);
        },
        [this, gen, bRef, keepAnalysis](PairForView pair, QString error) {
            --pendingReads_;
            if (gen != readGeneration_) return;
            if (!error.isEmpty()) return fail(tr("Cannot read %1: %2").arg(bRef.label(), error));
            showPair(bRef, std::move(pair), keepAnalysis);
        });
}

void DatasetViewPanel::showPair(const DatasetRef& bRef, PairForView pair, bool keepAnalysis) {
    fill(a_, std::move(pair.a));
    b_ = operandOf(bRef, std::move(pair.b));
    e_ = {};
    e_.label = tr("relative error");
    fill(e_, std::move(pair.error));
    bNote_ = QString::fromStdString(pair.bNote);
    comparison_->setVisible(true);
    title_->setText(title());
    title_->setToolTip(title());
    if (!keepAnalysis) analyze();
    recompute();
}

void DatasetViewPanel::showTensor(const QString& label, TensorPtr tensor, const QString& sourceFile) {
    latestRead_->store(++readGeneration_);  // a read still in flight no longer applies
    message_.clear();
    const std::vector<int64_t> shape = tensor ? tensor->shape() : std::vector<int64_t>{};
    const DType dtype = tensor ? tensor->dtype() : DType::Undefined;
    Operand o;
    o.label = label;
    o.tensor = std::move(tensor);
    o.file = sourceFile;
    o.shape = shape;
    o.dtype = dtype;
    setOperand(std::move(o));
}

void DatasetViewPanel::setOperand(Operand operand) {
    a_ = std::move(operand);
    b_ = {};
    e_ = {};
    bNote_.clear();
    cancelAnalysis();
    analysis_.reset();
    metrics_->setAnalysis(nullptr);
    charts_->setAnalysis(nullptr);
    comparison_->setVisible(false);
    title_->setText(title());
    title_->setToolTip(title());
    recompute();
}

void DatasetViewPanel::cancelAnalysis() {
    ++analysisGeneration_;
    analyzing_ = summarizing_ = false;
    cancelCompare_->hide();
    if (analysisCancelled_) analysisCancelled_->store(true);
    analysisCancelled_.reset();
}

QString DatasetViewPanel::title() const {
    if (!hasTensor()) return {};
    const auto desc = [](const Operand& o) {
        return QStringLiteral("%1  %2%3").arg(o.label, QString::fromUtf8(dtypeName(o.dtype)), formatShape(o.shape));
    };
    return isComparing() ? tr("A: %1   vs   B (reference): %2").arg(desc(a_), desc(b_)) : desc(a_);
}

void DatasetViewPanel::setStandard(const QString& spec) {
    selectStandard(standard_, spec);
    analyze();
}

void DatasetViewPanel::setSideBySide(bool on) { sideBySide_->setChecked(on); }
void DatasetViewPanel::setShowReference(bool on) { ab_->setChecked(on); }

bool DatasetViewPanel::isLoading() const {
    return pendingReads_ > 0 || analyzing_ || summarizing_ || shownGeneration_ != computeGeneration_;
}

QString DatasetViewPanel::message() const { return message_; }
QString DatasetViewPanel::verdictLine() const { return verdict_->text(); }

void DatasetViewPanel::fail(const QString& message) {
    message_ = message;
    title_->setText(message);
    Q_EMIT shown();
}

// The evaluation of `opscope-cli compare A B` (named after A, B the reference, judged in A's
// dtype) under the chosen standard first and every other for comparison, in one pass over every
// element of both, a band of each at a time when they are big (analyzePair), with its progress
// and a Cancel in place of the verdict. The charts' pass (summarize) follows the verdict.
void DatasetViewPanel::analyze() {
    if (!isComparing()) return;
    metrics::Standard standard;
    try {
        standard = metrics::parseStandard(standard_->currentData().toString().toStdString());
    } catch (const std::exception& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    cancelAnalysis();
    const uint64_t gen = analysisGeneration_;
    analyzing_ = true;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    analysisCancelled_ = cancelled;
    analysis_.reset();
    metrics_->setAnalysis(nullptr);
    charts_->setAnalysis(nullptr);
    const QString comparing =
        tr("Comparing %1 with %2 under %3…").arg(a_.label, b_.label, QString::fromStdString(standard.name));
    verdict_->setStyleSheet({});  // no colour of an earlier verdict while this one is made
    verdict_->setText(comparing);
    cancelCompare_->setToolTip(tr("Stop comparing: no verdict is shown"));
    cancelCompare_->show();
    const ViewOperand a = sideOf(a_), b = sideOf(b_);
    const std::string name = a_.ref ? a_.ref->path.toStdString() : a_.label.toStdString();
    const std::string actual = a_.label.toStdString(), reference = b_.label.toStdString();
    const PassControl control = passControl(gen, cancelled, [this, comparing](int percent) {
        verdict_->setText(QStringLiteral("%1 %2 %").arg(comparing).arg(percent));
    });
    runInBackground<AnalysisPtr>(
        this,
        [a, b, name, actual, reference, standard, control, cancelled]() -> AnalysisPtr {
            std::optional<PairAnalysis> p = analyzePair(name, actual, openForCompare(a), reference, openForCompare(b),
                                                        standardsToShow(standard), control);
            if (!p) return nullptr;  // cancelled
            auto report = std::make_shared<AnalysisReport>();
            report->baselineName = reference;
            report->standard = standard.name;
            report->comparisons.push_back(std::move(p->comparison));
            report->outputs.push_back(std::move(p->analysis));
            return report;
        },
        [this, gen, a, b, cancelled](AnalysisPtr report, QString error) {
            if (gen != analysisGeneration_) return;
            analyzing_ = false;
            if (!error.isEmpty()) {
                cancelCompare_->hide();
                verdict_->setText(tr("NOT JUDGED: %1").arg(error));
                return fail(error);
            }
            analysis_ = report;
            metrics_->setAnalysis(analysis_);
            charts_->setAnalysis(analysis_);
            showVerdict();
            if (report && report->outputs.front().compared)
                summarize(gen, a, b, cancelled);
            else
                cancelCompare_->hide();
            Q_EMIT shown();
        });
}

// A pass's band size, stop flag and progress, shown by `show` (percent) while `gen` is current.
PassControl DatasetViewPanel::passControl(uint64_t gen, const std::shared_ptr<std::atomic<bool>>& cancelled,
                                          std::function<void(int)> show) {
    PassControl control;
    control.bandBytes = compareBandBytes_;
    control.cancelled = cancelled.get();  // the work holds `cancelled`
    control.progress = [self = QPointer<DatasetViewPanel>(this), gen, show = std::move(show)](double share) {
        guiInvoke(QCoreApplication::instance(), [self, gen, show, share] {
            if (self && gen == self->analysisGeneration_) show(qRound(share * 100));
        });
    };
    return control;
}

// The charts' data of the pair just judged (summarizePair), in a pass of its own after the
// verdict: the charts say how far it is, and Cancel stops it without touching the verdict.
void DatasetViewPanel::summarize(uint64_t gen, const ViewOperand& a, const ViewOperand& b,
                                 const std::shared_ptr<std::atomic<bool>>& cancelled) {
    summarizing_ = true;
    cancelCompare_->setToolTip(tr("Stop making the error charts: the verdict stays"));
    const QString making = tr("Summarizing the errors for the charts…");
    charts_->setPendingMessage(making);
    const PassControl control = passControl(gen, cancelled, [this, making](int percent) {
        charts_->setPendingMessage(QStringLiteral("%1 %2 %").arg(making).arg(percent));
    });
    runInBackground<std::optional<metrics::ErrorSummary>>(
        this, [a, b, control, cancelled] { return summarizePair(openForCompare(a), openForCompare(b), 4000, control); },
        [this, gen](std::optional<metrics::ErrorSummary> summary, QString error) {
            if (gen != analysisGeneration_ || !analysis_) return;
            summarizing_ = false;
            cancelCompare_->hide();
            if (!error.isEmpty()) {
                charts_->setPendingMessage(tr("No error charts: %1").arg(error));
            } else if (summary) {
                auto report = std::make_shared<AnalysisReport>(*analysis_);  // small: no element-sized data
                attachSummary(report->outputs.front(), std::move(*summary));
                analysis_ = report;
                charts_->setAnalysis(analysis_);
            }
            Q_EMIT shown();
        });
}

void DatasetViewPanel::showVerdict() {
    if (!analysis_ || analysis_->comparisons.empty()) return verdict_->clear();
    const ops::Comparison& c = analysis_->comparisons.front();
    const metrics::Verdict v = c.compared ? c.judgement.verdict : metrics::Verdict::Warning;
    verdict_->setStyleSheet(QStringLiteral("QLabel { background: %1; color: %2; font-weight: bold; padding: 3px; }")
                                .arg(verdictBackground(v).name(), verdictForeground(v).name()));
    verdict_->setText(c.compared ? tr("%1 under %2: %3")
                                       .arg(verdictText(v).toUpper(), QString::fromStdString(c.judgement.standard),
                                            QString::fromStdString(c.judgement.reason))
                                 : tr("NOT JUDGED: %1").arg(QString::fromStdString(c.note)));
}

const DatasetViewPanel::Operand* DatasetViewPanel::mapOperand(Map map) const {
    const auto shown = [](const Operand& o) { return o.tensor != nullptr || o.streamed != nullptr; };
    switch (map) {
        case MapA: return ab_->isChecked() && shown(b_) ? &b_ : &a_;
        case MapB: return shown(b_) ? &b_ : nullptr;
        case MapError: return shown(e_) ? &e_ : nullptr;
    }
    return nullptr;
}

// A held as one slice's block and the user moved to another slice: read that one first.
bool DatasetViewPanel::needsSliceRead() const {
    if (isStreamed() && a_.ref) {  // another slice block, or the displayed axes changed
        const view::SliceSpec now = view::normalizeSlice(a_.shape, slice_->slice()), was = a_.streamedSlice;
        return now.rowAxis != was.rowAxis || now.colAxis != was.colAxis ||
               !(sliceBlock(a_.shape, now) == sliceBlock(a_.shape, was));
    }
    if (!holdsSliceOnly() || !a_.ref) return false;
    const SliceBlock shown = sliceBlock(a_.shape, slice_->slice());
    return shown.start != a_.blockStart || shown.count != a_.tensor->shape();
}

void DatasetViewPanel::recompute() {
    if (!hasTensor()) return;
    slice_->setShape(a_.shape);
    if (needsSliceRead()) return isComparing() ? readPair(*b_.ref, true) : read(*a_.ref);
    DisplaySettings values;
    controls_->apply(&values);
    values.slice = slice_->slice();
    values.showBeyond = false;
    DisplaySettings errors = DisplayControls::defaultsFor(true);
    errors.slice = values.slice;
    errors.showBeyond = false;
    const bool side = sideBySide_->isChecked();
    std::array<DisplayRequest, 3> req;
    // A streamed map is drawn from its summary (the same pass, new colours): nothing is re-read.
    std::array<std::shared_ptr<const view::SliceSummary>, 3> summary;
    for (Map m : {MapA, MapB, MapError}) {
        const Operand* o = m == MapA || side ? mapOperand(m) : nullptr;
        req[m].tensor = o ? o->tensor : nullptr;
        summary[m] = o ? o->streamed : nullptr;
        req[m].settings = m == MapError ? errors : values;
    }
    const std::vector<int64_t> shape = a_.shape;
    const uint64_t gen = ++computeGeneration_;
    runInBackground<std::array<DisplayFrame, 3>>(
        this,
        [req, summary, shape]() mutable {
            const auto frame = [&](Map m) {
                return summary[m] ? displayFromSummary(*summary[m], shape, req[m]) : computeDisplay(req[m]);
            };
            std::array<DisplayFrame, 3> f;
            f[MapA] = frame(MapA);
            if (f[MapA].valid() && (req[MapB].tensor || summary[MapB]))
                req[MapB].fixedRange = f[MapA].scale.range();  // the same colours mean the same values
            f[MapB] = frame(MapB);
            f[MapError] = frame(MapError);
            return f;
        },
        [this, gen](std::array<DisplayFrame, 3> frames, QString error) {
            if (gen != computeGeneration_) return;
            shownGeneration_ = gen;
            if (!error.isEmpty()) return fail(error);
            showFrames(std::move(frames));
        });
}

void DatasetViewPanel::showFrames(std::array<DisplayFrame, 3> frames) {
    frames_ = std::move(frames);
    std::vector<int64_t>& first = frames_[MapA].firstNonFinite;  // in the block: move it into the dataset
    for (std::size_t i = 0; i < first.size() && i < a_.blockStart.size(); ++i) first[i] += a_.blockStart[i];
    const bool side = sideBySide_->isChecked();
    const QString captions[3] = {ab_->isChecked() && isComparing() ? tr("B: reference") : tr("A"), tr("B: reference"),
                                 tr("relative error")};
    for (Map m : {MapA, MapB, MapError}) {
        const DisplayFrame& f = frames_[m];
        maps_[m]->setVisible(m == MapA || (side && mapOperand(m)));
        if (f.valid())
            maps_[m]->setImage(f.image, f.planeRows, f.planeCols, f.flaggedCells);
        else
            maps_[m]->clear(f.tensorStats.count == 0 ? tr("Empty tensor") : QString());
        maps_[m]->setCaption(isComparing() ? captions[m] : QString());
    }
    const DisplayFrame& main = frames_[MapA];
    if (main.valid()) {
        DisplaySettings shown;
        controls_->apply(&shown);
        histogram_->setHistogram(main.histogram, main.histogramScale, main.scale, shown.colormap);
    } else
        histogram_->clear();
    if (main.valid()) controls_->showRange(main.scale.range().lo, main.scale.range().hi);
    showStats();
    Q_EMIT shown();
}

namespace {

QString statsLine(const QString& name, const TensorStats& s, const std::vector<int64_t>& firstNonFinite) {
    QString t = QObject::tr("<b>%1</b>: min %2 · max %3 · mean %4 · std %5 · %6 elements, %7 zero")
                    .arg(name.toHtmlEscaped(), formatNumber(s.min, 7), formatNumber(s.max, 7), formatNumber(s.mean, 7),
                         formatNumber(s.stddev, 7))
                    .arg(s.count)
                    .arg(s.zeroCount);
    if (s.nanCount || s.infCount)
        t += QObject::tr(" · <b style='color:#b71c1c'>%1 NaN, %2 Inf</b>, the first at <a href='nonfinite'>%3</a>")
                 .arg(s.nanCount)
                 .arg(s.infCount)
                 .arg(formatShape(firstNonFinite));
    else
        t += QObject::tr(" · no NaN or Inf");
    return t;
}

}  // namespace

void DatasetViewPanel::showStats() {
    QStringList lines;
    const DisplayFrame& a = frames_[MapA];
    const bool aShowsB = ab_->isChecked() && isComparing();
    lines << statsLine(aShowsB ? tr("B") : tr("A"), a.tensorStats, a.firstNonFinite);
    if (frames_[MapB].tensorStats.count > 0)
        lines << statsLine(tr("B"), frames_[MapB].tensorStats, frames_[MapB].firstNonFinite);
    if (a.valid() && (a.blockRows > 1 || a.blockCols > 1))
        lines << tr("slice %1 × %2, downsampled %3×%4 (extremes kept)")
                     .arg(a.planeRows)
                     .arg(a.planeCols)
                     .arg(a.blockRows)
                     .arg(a.blockCols);
    if (holdsSliceOnly())
        lines << tr("only slice %1 of %2 was read (the dataset is %3; above %4 one slice at a time): "
                    "statistics and NaN/Inf counts are the slice's")
                     .arg(sliceText(a_.shape, slice_->slice()), formatShape(a_.shape),
                          formatBytes(double(shapeNumel(a_.shape)) * double(dtypeSize(a_.dtype))),
                          formatBytes(double(sliceOnlyAbove_)));
    if (isStreamed())
        lines << tr("streamed: the slice %1 of %2 (%3) was read in %4 bands of at most %5 into one pass "
                    "(statistics, histogram and NaN/Inf are the slice's); its values are not held, so "
                    "the readout shows a cell's min and max")
                     .arg(sliceText(a_.shape, a_.streamedSlice), formatShape(a_.shape),
                          formatBytes(double(shapeNumel(a_.shape)) * double(dtypeSize(a_.dtype))))
                     .arg(a_.bands)
                     .arg(formatBytes(double(bandBytes_)));
    if (isComparing() && b_.streamed)
        lines << tr("B and the relative error: the same slice of each, streamed in step with A's bands");
    if (!bNote_.isEmpty()) lines << bNote_.toHtmlEscaped();
    stats_->setText(lines.join(QStringLiteral("<br>")));
}

QString DatasetViewPanel::statsText() const { return stats_->text(); }

// The cell under the mouse of a streamed slice: its element range and its min and max.
QString DatasetViewPanel::streamedReadout(qint64 row, qint64 col) const {
    const view::Downsampled& cells = a_.streamed->cells;
    const int64_t r = std::min<int64_t>(row / cells.blockRows, cells.rows - 1),
                  c = std::min<int64_t>(col / cells.blockCols, cells.cols - 1);
    const view::Cell& cell = cells.at(r, c);
    QString flags;
    if (cell.flags & view::kCellNaN) flags += tr(" · NaN");
    if (cell.flags & view::kCellPosInf) flags += tr(" · +Inf");
    if (cell.flags & view::kCellNegInf) flags += tr(" · -Inf");
    const QString range = cell.flags & view::kCellEmpty
                              ? tr("no finite value")
                              : tr("min %1 · max %2").arg(formatNumber(cell.min, 7), formatNumber(cell.max, 7));
    const view::SliceSpec s = view::normalizeSlice(a_.shape, slice_->slice());
    return tr("%1  A: cell of %2×%3 elements, %4%5")
        .arg(formatShape(view::elementIndex(s, row, col)))
        .arg(cells.blockRows)
        .arg(cells.blockCols)
        .arg(range, flags);
}

void DatasetViewPanel::onHover(qint64 row, qint64 col) {
    if (row < 0 || !hasTensor()) return readout_->clear();
    if (isStreamed()) return readout_->setText(streamedReadout(row, col));
    const view::SliceSpec s = view::normalizeSlice(a_.shape, slice_->slice());
    const std::vector<int64_t> index = view::elementIndex(s, row, col);
    QString text = tr("%1  A = %2").arg(formatShape(index), fullPrecisionValue(content(MapA), row, col));
    if (b_.tensor && b_.tensor->shape() == a_.tensor->shape())
        text += tr("  ·  B = %1").arg(fullPrecisionValue(content(MapB), row, col));
    if (e_.tensor && e_.tensor->shape() == a_.tensor->shape()) {  // held as A is: whole, or the same block
        const view::SliceSpec held = view::normalizeSlice(e_.tensor->shape(), slice_->slice());
        text += tr("  ·  rel. error %1")
                    .arg(formatNumber(view::elementValue(e_.tensor->view(), view::elementIndex(held, row, col)), 4));
    }
    readout_->setText(text);
}

HeatmapContent DatasetViewPanel::content(Map map) const {
    HeatmapContent c;
    const Operand* shown = mapOperand(map);
    c.tensor = shown ? shown->tensor : nullptr;
    c.slice = slice_->slice();
    const Operand& o = map == MapError || !shown ? a_ : *shown;
    c.tensorName = map == MapError ? tr("relative error of %1").arg(a_.label) : o.label;
    c.caseName = map == MapError ? tr("against %1").arg(b_.label) : QFileInfo(o.file).fileName();
    c.sourceFile = o.file;
    if (shown && !shown->blockStart.empty()) c.datasetShape = shown->shape;
    return c;
}

}  // namespace opscope::gui
