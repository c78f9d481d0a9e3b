#include "screenshot.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QPixmap>
#include <QMap>
#include <QTabWidget>

#include "opscope/view/colormap.h"
#include "opscope/view/scale.h"
#include <cstdio>

#include "main_window.h"
#include "session/debug_context.h"
#include "opscope/h5/h5_file.h"
#include "views/charts_panel.h"
#include "views/dataset_view_panel.h"
#include "views/group_compare_panel.h"
#include "views/element_history_panel.h"
#include "views/file_browser_panel.h"
#include "views/log_panel.h"
#include "views/step_list_panel.h"
#include "views/argument_form.h"
#include "views/tensor_view_panel.h"
#include "views/timeline_panel.h"

namespace opscope::gui {

namespace {

// "3" -> int, "true" -> bool, "1,2" -> int[], "true,false" -> bool[].
ParamValue parseValue(const QString& text) {
    const QStringList parts = text.split(',', Qt::SkipEmptyParts);
    auto isBool = [](const QString& p) { return p.trimmed() == "true" || p.trimmed() == "false"; };
    if (parts.size() == 1 && !text.contains(',')) {
        if (isBool(parts[0])) return parts[0].trimmed() == "true";
        return static_cast<int64_t>(parts[0].trimmed().toLongLong());
    }
    if (!parts.isEmpty() && isBool(parts[0])) {
        std::vector<bool> v;
        for (const QString& p : parts) v.push_back(p.trimmed() == "true");
        return v;
    }
    std::vector<int64_t> v;
    for (const QString& p : parts) v.push_back(p.trimmed().toLongLong());
    return v;
}

}  // namespace

ScreenshotDriver::ScreenshotDriver(MainWindow* window, ScreenshotOptions options)
    : QObject(window), window_(window), options_(std::move(options)) {
    timer_.setInterval(100);
    connect(&timer_, &QTimer::timeout, this, &ScreenshotDriver::poll);
}

void ScreenshotDriver::start() {
    started_ = QDateTime::currentMSecsSinceEpoch();
    DebugContext* c = window_->context();
    QString path = options_.casePath;
    if (path.isEmpty() && !c->cases().empty()) path = QString::fromStdString(c->cases().front().path);
    // A case that cannot be loaded is still worth a picture: the error is on screen.
    connect(c, &DebugContext::caseLoadFailed, this, [this](const QString&, const QString& error) {
        failure_ = error;
        state_ = State::Settling;
    });
    if (startDataset(path) || startGroupCompare(path)) return;
    if (!options_.runAs.isEmpty() || !options_.set.isEmpty()) {
        // Applied once the case has filled the form; the new prepare supersedes the case's.
        connect(c, &DebugContext::caseLoaded, this, [this, c] {
            if (!options_.runAs.isEmpty()) c->setRunAs(dtypeFromName(options_.runAs.toStdString()));
            for (const QString& kv : options_.set)
                c->setAttribute(kv.section('=', 0, 0).toStdString(), parseValue(kv.section('=', 1)));
            c->prepare();
        });
    }
    if (!path.isEmpty()) c->loadCase(path);
    state_ = path.isEmpty() ? State::Settling : State::Preparing;
    timer_.start();
}

bool ScreenshotDriver::idle() const {
    return window_->context()->isIdle() && !window_->datasetView()->isLoading() &&
           !window_->groupCompare()->isRunning();
}

bool ScreenshotDriver::startDataset(const QString& path) {
    const h5::File* f = window_->context()->file();
    const bool dataset = window_->context()->isTensorFile() ||  // a key; a wrong one is the view's sentence
                         (f && f->info(path.toStdString()).kind == h5::ObjectKind::Dataset);
    if (path.isEmpty() || !dataset) return false;
    window_->viewDataset(path);
    state_ = State::Dataset;
    timer_.start();
    return true;
}

// --case GROUP --compare FILE.h5[:/GROUP]: every dataset below the group against the other file's
// (the same group unless one is named); the picture once the compare has ended.
bool ScreenshotDriver::startGroupCompare(const QString& path) {
    const h5::File* f = window_->context()->file();
    if (path.isEmpty() || options_.compare.isEmpty() || !f || f->info(path.toStdString()).kind != h5::ObjectKind::Group)
        return false;
    window_->showPathComparedWith(path, options_.compare);
    connect(window_->groupCompare(), &GroupComparePanel::finished, this, [this] {
        if (!window_->groupCompare()->error().isEmpty()) failure_ = window_->groupCompare()->error();
    });
    state_ = State::Settling;
    timer_.start();
    return true;
}

// Once A is on screen: the comparison, if asked for ("PATH" in this file, "FILE.h5:PATH", or a
// tensor file's "FILE.pt:KEY").
void ScreenshotDriver::pollDataset() {
    DatasetViewPanel* v = window_->datasetView();
    if (!idle()) return;
    if (!v->message().isEmpty()) failure_ = v->message();
    if (options_.compare.isEmpty() || compared_ || !failure_.isEmpty()) {
        v->setSideBySide(options_.sideBySide || !options_.compare.isEmpty());
        state_ = State::Settling;
        return;
    }
    compared_ = true;
    window_->compareDataset(window_->referenceFor(options_.compare));
}

void ScreenshotDriver::poll() {
    if (QDateTime::currentMSecsSinceEpoch() - started_ > options_.timeoutMs) {
        window_->grab().save(options_.output, "PNG");
        return finish(2, QStringLiteral("timed out; saved what was on screen"));
    }
    switch (state_) {
        case State::Preparing: return pollPreparing();
        case State::Running: return pollRunning();
        case State::Picking: return pollPicking();
        case State::Settling: return pollSettling();
        case State::Dataset: return pollDataset();
    }
}

void ScreenshotDriver::pollPreparing() {
    DebugContext* c = window_->context();
    if (!idle()) return;
    if (!c->isPrepared()) {
        if (c->prepareError()) state_ = State::Settling;  // show the error beside its argument
        return;
    }
    if (options_.run) c->continueRun();
    state_ = State::Running;
}

void ScreenshotDriver::pollRunning() {
    DebugContext* c = window_->context();
    if (!idle()) return;
    if (options_.run && !c->atEnd() && !c->isBusy()) {
        c->continueRun();  // stopped at a breakpoint or NaN: keep going
        return;
    }
    applyViewOptions();
    state_ = options_.pick.isEmpty() ? State::Settling : State::Picking;
}

void ScreenshotDriver::applyViewOptions() {
    optionsApplied_ = true;
    DebugContext* c = window_->context();
    if (!options_.tensor.isEmpty()) {
        const QString t = options_.tensor;
        const std::string name = t.section(':', 0, 0).toStdString();
        TensorKey key{TensorKey::Source::Slot, t.toStdString()};
        if (t.endsWith(":golden") || t.endsWith(":reference"))
            key = {TensorKey::Source::Baseline, name};
        else if (t.endsWith(":abs"))
            key = {TensorKey::Source::AbsError, name};
        else if (t.endsWith(":rel"))
            key = {TensorKey::Source::RelError, name};
        c->selectTensor(key);
    }
    if (options_.sideBySide) window_->tensorView()->setSideBySide(true);
    if (!options_.colormap.isEmpty() || !options_.scale.isEmpty() || !options_.range.isEmpty()) {
        DisplaySettings s = window_->tensorView()->settings();
        view::parseColormap(options_.colormap.toStdString(), &s.colormap);
        view::parseScale(options_.scale.toStdString(), &s.scale);
        view::parseRangeMode(options_.range.toStdString(), &s.range.mode);
        window_->tensorView()->setSettings(s);
    }
    if (!options_.raise.isEmpty()) {
        auto w = [](QWidget* panel) { return panel; };
        const QMap<QString, QWidget*> panels{
            {"history", w(window_->historyPanel())}, {"log", w(window_->logPanel())},
            {"steps", w(window_->stepList())},       {"call", w(window_->argumentForm())},
            {"file", w(window_->fileBrowser())},     {"timeline", w(window_->timeline())}};
        if (QWidget* panel = panels.value(options_.raise)) window_->raisePanel(panel);
    }
    if (!options_.tab.isEmpty()) {
        static const QStringList tabs{"histogram", "axis", "scatter", "tolerance"};
        const int i = tabs.indexOf(options_.tab);
        if (i >= 0) window_->chartsPanel()->tabs()->setCurrentIndex(i);
    }
}

void ScreenshotDriver::pollPicking() {
    DebugContext* c = window_->context();
    if (!idle() || window_->tensorView()->isLoading()) return;
    const TensorKey key = window_->tensorView()->currentKey();
    const PlanInfo& plan = c->plan();
    ElementPick pick;
    pick.slot = key.name;
    if (const SlotInfo* s = plan.findSlot(key.name)) {
        pick.output = s->output;
        pick.shape = s->shape;
    }
    if (options_.pick == "worst") {
        // The element with the largest relative error of the shown output.
        const AnalysisPtr a = c->analysis();
        const OutputAnalysis* o = a ? a->find(pick.output) : nullptr;
        if (!o) {
            if (QDateTime::currentMSecsSinceEpoch() - started_ < options_.timeoutMs / 2) return;  // not yet
            return finish(1, QStringLiteral("--pick worst needs an output with a golden"));
        }
        pick.index = o->metrics.worstRel.coords;
    } else {
        for (const QString& part : options_.pick.split(',')) pick.index.push_back(part.trimmed().toLongLong());
    }
    if (pick.index.size() != pick.shape.size()) return finish(1, QStringLiteral("--pick needs one index per axis"));
    window_->tensorView()->showElement(pick.index);
    c->pickElement(pick);
    state_ = State::Settling;
}

void ScreenshotDriver::pollSettling() {
    DebugContext* c = window_->context();
    // The tensor view settles too: a big slice's frame takes a moment after the run is idle.
    stableTicks_ = idle() && !window_->tensorView()->isLoading() ? stableTicks_ + 1 : 0;
    // A case that failed to load (a trace without values) or a dataset: the options apply now.
    if (stableTicks_ == 1 && !optionsApplied_) applyViewOptions();
    if (stableTicks_ < 8) return;
    if (!window_->grab().save(options_.output, "PNG"))
        return finish(1, QStringLiteral("cannot write ") + options_.output);
    if (!failure_.isEmpty()) return finish(1, failure_ + QStringLiteral("; wrote ") + options_.output);
    if (const auto& err = c->prepareError())
        std::fprintf(stderr, "opscope: %s: %s\n", qPrintable(err->headline().toLower()), qPrintable(err->message));
    finish(0, QStringLiteral("wrote ") + options_.output);
}

void ScreenshotDriver::finish(int code, const QString& message) {
    timer_.stop();
    std::fprintf(code ? stderr : stdout, "opscope: %s\n", qPrintable(message));
    QCoreApplication::exit(code);
}

}  // namespace opscope::gui
