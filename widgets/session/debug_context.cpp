#include "session/debug_context.h"

#include <QEventLoop>
#include <QFileInfo>
#include <exception>
#include <functional>
#include <thread>
#include <filesystem>

#include "opscope/h5/atomic_write.h"

#include "opscope/h5/file_safety.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/import/tensor_file.h"
#include "opscope/ops/attribute_defaults.h"
#include "opscope/trace.h"
#include "session/analysis.h"
#include "session/dataset_read.h"
#include "session/gui_invoke.h"

namespace opscope::gui {

DebugContext::DebugContext(QObject* parent)
    : QObject(parent),
      worker_(std::make_unique<ExecutionWorker>(static_cast<WorkerSink*>(this), this)),
      product_(currentProduct()),  // OPSCOPE_PRODUCT, else Atlas A2
      chosenProduct_(product_) {}

DebugContext::~DebugContext() {
    worker_->shutdown();  // joins the thread while this object is still whole
}

// ---- file ------------------------------------------------------------------------------

namespace {

// Runs `work` on its own thread while a local event loop keeps the window painting: a file
// that hangs libhdf5 takes the vetting time limit, a large .npz is inflated to list it, and
// the debugger must not freeze meanwhile. Rethrows what `work` threw.
void runKeepingTheGuiAlive(const std::function<void()>& work) {
    std::exception_ptr failure;
    QEventLoop loop;
    std::thread worker([&] {
        try {
            work();
        } catch (...) {
            failure = std::current_exception();
        }
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    worker.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace

bool DebugContext::openFile(const QString& path, QString* error) {
    if (import::isTensorFileSpec(path.toStdString())) return openTensorFile(path, error);
    std::unique_ptr<h5::File> f;
    try {
        // A damaged file crashes or hangs libhdf5 in a throwaway process, not in the debugger.
        beginBusy(QString("Checking %1").arg(QFileInfo(path).fileName()));
        try {
            runKeepingTheGuiAlive([p = path.toStdString()] { h5::vetFile(p); });
        } catch (...) {
            endBusy();
            throw;
        }
        endBusy();
        f = std::make_unique<h5::File>(h5::File::openReadOnly(path.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        Q_EMIT statusMessage(QString::fromUtf8(e.what()), true);
        return false;
    }
    file_ = std::move(f);
    tensors_.clear();
    filePath_ = QFileInfo(path).absoluteFilePath();
    outside_.clear();
    try {
        for (const h5::NodeInfo& n : h5::listOutside(*file_))
            outside_ << QString::fromStdString(n.path + ": " + n.outside());
    } catch (const std::exception&) {
        // Listing cases reports what is wrong with the tree.
    }
    forgetCall();  // nothing of the previous file's call stays on screen
    listCases();
    watchOpenFile();
    Q_EMIT fileChanged();
    Q_EMIT statusMessage(QString("Opened %1: %2 case(s)").arg(filePath_).arg(cases_.size()), false);
    return true;
}

bool DebugContext::openTensorFile(const QString& path, QString* error) {
    const std::string file = import::tensorFilePath(path.toStdString());
    std::vector<import::TensorEntry> entries;
    try {
        beginBusy(QString("Listing %1").arg(QFileInfo(path).fileName()));
        try {
            runKeepingTheGuiAlive([&] { entries = import::describeTensorFile(file); });
        } catch (...) {
            endBusy();
            throw;
        }
        endBusy();
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        Q_EMIT statusMessage(QString::fromUtf8(e.what()), true);
        return false;
    }
    file_.reset();
    tensors_ = std::move(entries);
    filePath_ = QFileInfo(QString::fromStdString(file)).absoluteFilePath();
    outside_.clear();
    cases_.clear();
    isTrace_ = false;
    forgetCall();
    watchOpenFile();
    Q_EMIT fileChanged();
    Q_EMIT statusMessage(QString("Opened %1: %2 tensor(s)").arg(filePath_).arg(tensors_.size()), false);
    return true;
}

QString DebugContext::tensorKey(const QString& treePath) const {
    const bool unnamed = tensors_.size() == 1 && tensors_.front().key.empty();
    return unnamed && treePath == QFileInfo(filePath_).fileName() ? QString() : treePath;
}

QString DebugContext::tensorSpec(const QString& treePath) const {
    const QString key = tensorKey(treePath);
    return key.isEmpty() ? filePath_ : filePath_ + ":" + key;
}

void DebugContext::allowExternalData() {
    if (!file_) return;
    h5::allowExternalDataIn(filePath_.toStdString());
    // The open handle decided its policy when it was opened: open the file again.
    file_ = std::make_unique<h5::File>(h5::File::openReadOnly(filePath_.toStdString()));
    listCases();
    watchOpenFile();
    Q_EMIT fileChanged();
}

void DebugContext::closeFile() {
    file_.reset();
    tensors_.clear();
    filePath_.clear();
    watchOpenFile();  // nothing to watch
    outside_.clear();
    cases_.clear();
    isTrace_ = false;
    forgetCall();
    Q_EMIT fileChanged();
}

void DebugContext::forgetCall() {
    if (isBusy()) cancel();
    case_.reset();
    if (op_) args_ = defaultArguments(op_->schema());  // the operator stays chosen; nothing is bound
    editedAttributes_.clear();
    runAs_ = DType::Undefined;
    standardSpec_.clear();
    baselineSource_ = kComputedBaseline;
    clearPlan();
    ++generation_;  // results of work still in flight for the old call are dropped
    Q_EMIT operatorChanged();
    Q_EMIT argumentsChanged();
}

void DebugContext::listCases() {
    cases_.clear();
    isTrace_ = false;
    try {
        isTrace_ = cases::isTraceFile(*file_);
        if (isTrace_) {
            std::string tornTail;
            const std::vector<ExecutorTrace> executors = readTrace(*file_, TraceValues::Skip, &tornTail);
            if (!tornTail.empty()) Q_EMIT statusMessage(QString::fromStdString(tornTail), true);
            for (std::size_t i = 0; i < executors.size(); ++i) {
                CaseEntry e;
                e.path = traceExecutorPath(i);
                e.fromTrace = true;
                e.op = executors[i].op;
                e.description = "recorded run, " + std::to_string(executors[i].steps.size()) + " steps";
                cases_.push_back(std::move(e));
            }
        } else {
            for (const std::string& p : cases::findCases(*file_)) {
                CaseEntry e;
                e.path = p;
                try {
                    const cases::CaseSummary s = cases::inspectCase(*file_, p);
                    e.op = s.op;
                    e.description = s.description;
                } catch (const std::exception& ex) {
                    e.description = ex.what();
                }
                cases_.push_back(std::move(e));
            }
        }
    } catch (const std::exception& e) {
        Q_EMIT statusMessage(QString("Listing cases: %1").arg(e.what()), true);
    }
}

void DebugContext::loadCase(const QString& casePath) {
    if (!file_) return;
    const std::string path = casePath.toStdString();
    const std::string file = filePath_.toStdString();
    const bool trace = isTrace_;
    const uint64_t request = ++caseRequest_;
    beginBusy(QString("Reading %1").arg(casePath));
    runInBackground<std::shared_ptr<const cases::Case>>(
        this,
        [file, path, trace]() -> std::shared_ptr<const cases::Case> {
            h5::vetFile(file, {path});
            const h5::File f = h5::File::openReadOnly(file);
            if (trace) return std::make_shared<const cases::Case>(cases::caseFromTrace(f, path));
            return std::make_shared<const cases::Case>(cases::readCase(f, path));
        },
        [this, casePath, trace, request](std::shared_ptr<const cases::Case> c, QString error) {
            endBusy();
            if (request != caseRequest_) return;  // the user moved on to another case
            if (!error.isEmpty() || !c) {
                const QString text = QString("Cannot read case %1: %2").arg(casePath, error);
                forgetCall();  // the previous case's form and results do not belong to this one
                Q_EMIT statusMessage(text, true);
                Q_EMIT caseLoadFailed(casePath, text);
                if (trace) showRecordedRun(casePath);  // not replayable, still browsable
                return;
            }
            const ops::Operator* op = ops::findOperator(c->op);
            if (!op) {
                const QString text = QString("Case %1 uses operator '%2', which is not registered in this build")
                                         .arg(casePath, QString::fromStdString(c->op));
                forgetCall();
                Q_EMIT statusMessage(text, true);
                Q_EMIT caseLoadFailed(casePath, text);
                return;
            }
            case_ = c;
            op_ = op;
            std::vector<std::string> notes;
            args_ = argumentsFromCase(op->schema(), *c, &notes);
            loadedArgs_ = args_;
            editedAttributes_.clear();
            standardSpec_ = QString::fromStdString(c->standard);
            runAs_ = DType::Undefined;  // "run as" is a choice per case: each starts as stored
            // A case recorded on a product (an imported dump, a trace) is emulated there, so that its
            // golden and device verdict describe that device, as the CLI's run does; any other case
            // on the product the user chose, not on one an earlier file switched to.
            const Product wanted = c->product.value_or(chosenProduct_);
            if (wanted != product_) {
                product_ = wanted;
                const QString name = QString::fromUtf8(productName(product_));
                Q_EMIT statusMessage(
                    c->product ? QString("%1 was recorded on the %2: emulating that product").arg(casePath, name)
                               : QString("%1 records no product: emulating the %2, as chosen").arg(casePath, name),
                    false);
            }
            baselineSource_ = kComputedBaseline;
            clearPlan();
            Q_EMIT operatorChanged();
            Q_EMIT argumentsChanged();
            Q_EMIT caseLoaded(casePath);
            for (const std::string& n : notes) Q_EMIT statusMessage(QString::fromStdString(n), false);
            prepare();
        });
}

std::vector<std::string> DebugContext::changedFromCase() const {
    if (!case_) return {};
    return changedArguments(loadedArgs_, args_);
}

void DebugContext::leaveCase() {
    ++caseRequest_;
    if (case_ || prepared_ || prepareError_) forgetCall();
}

// ---- operator and arguments --------------------------------------------------------------

bool DebugContext::setOperator(const QString& name) {
    const ops::Operator* op = ops::findOperator(name.toStdString());
    if (!op) return false;
    if (op == op_) return true;
    op_ = op;
    args_ = defaultArguments(op->schema());
    editedAttributes_.clear();
    case_.reset();
    clearPlan();
    Q_EMIT operatorChanged();
    Q_EMIT argumentsChanged();
    return true;
}

void DebugContext::bindDataset(const std::string& argument, const QString& datasetPath) {
    if (filePath_.isEmpty()) return;
    if (isTensorFile()) return bindFile(argument, tensorSpec(datasetPath));
    const std::string file = filePath_.toStdString();
    const std::string path = datasetPath.toStdString();
    // A dataset bound twice (one embedding as dy and as x) is read once: tensors share storage.
    for (const auto& [name, bound] : args_.tensors)
        if (bound.origin == path) return bindTensor(argument, bound.tensor, path);
    beginBusy(QString("Reading %1").arg(datasetPath));
    runInBackground<HostTensor>(
        this, [file, path] { return readDatasetVetted(file, path); },
        [this, argument, path, datasetPath](HostTensor t, QString error) {
            endBusy();
            if (!error.isEmpty()) {
                Q_EMIT statusMessage(QString("Cannot bind %1: %2").arg(datasetPath, error), true);
                return;
            }
            bindTensor(argument, std::move(t), path);
        });
}

void DebugContext::bindFile(const std::string& argument, const QString& spec) {
    beginBusy(QString("Reading %1").arg(spec));
    runInBackground<TensorBinding>(
        this, [s = spec.toStdString()] { return bindingFromFileOnWorker(s); },
        [this, argument, spec](TensorBinding b, QString error) {
            endBusy();
            if (!error.isEmpty()) {
                Q_EMIT statusMessage(QString("Cannot bind %1: %2").arg(spec, error), true);
                return;
            }
            bindTensor(argument, std::move(b.tensor), b.origin);
        });
}

void DebugContext::bindTensor(const std::string& argument, HostTensor tensor, const std::string& origin) {
    args_.tensors[argument] = {origin, std::move(tensor)};
    prefillFromShapes();
    invalidatePlan();
    Q_EMIT argumentsChanged();
}

namespace {
ops::TensorShapes boundShapes(const ArgumentState& args) {
    ops::TensorShapes shapes;
    for (const auto& [name, b] : args.tensors) shapes[name] = b.tensor.shape();
    return shapes;
}
}  // namespace

void DebugContext::prefillFromShapes() {
    if (!op_) return;
    const ops::ImpliedAttributes implied = ops::impliedAttributes(op_->schema(), boundShapes(args_), args_.attributes);
    QStringList filled;
    for (const auto& [name, value] : implied.values) {
        auto it = args_.attributes.find(name);
        if (editedAttributes_.count(name) || (it != args_.attributes.end() && it->second == value)) continue;
        args_.attributes[name] = value;
        filled << QString::fromStdString(name + " = " + paramToString(value));
    }
    if (!filled.isEmpty()) Q_EMIT statusMessage(QString("From the bound shapes: %1").arg(filled.join(", ")), false);
}

std::vector<std::string> DebugContext::shapeNotes() const {
    if (!op_) return {};
    return ops::impliedAttributes(op_->schema(), boundShapes(args_), args_.attributes).notes;
}

void DebugContext::unbindTensor(const std::string& argument) {
    if (args_.tensors.erase(argument) == 0) return;
    invalidatePlan();
    Q_EMIT argumentsChanged();
}

void DebugContext::setAttribute(const std::string& name, const ParamValue& value) {
    auto it = args_.attributes.find(name);
    if (it != args_.attributes.end() && it->second == value) return;
    args_.attributes[name] = value;
    editedAttributes_.insert(name);
    invalidatePlan();
    Q_EMIT argumentsChanged();
}

void DebugContext::clearAttribute(const std::string& name) {
    if (args_.attributes.erase(name) == 0) return;
    editedAttributes_.insert(name);
    invalidatePlan();
    Q_EMIT argumentsChanged();
}

void DebugContext::setRunAs(DType dtype) {
    if (dtype == runAs_) return;
    runAs_ = dtype;
    // "Run as" is there to see what the lower precision costs: compare with the reference of
    // the inputs as stored (the banner and "Compare with" say so); back when it is cleared.
    if (runAs_ != DType::Undefined && baselineSource_ == kComputedBaseline) baselineSource_ = kStoredInputsBaseline;
    if (runAs_ == DType::Undefined && baselineSource_ == kStoredInputsBaseline) baselineSource_ = kComputedBaseline;
    invalidatePlan();
    Q_EMIT argumentsChanged();
}

void DebugContext::setProduct(Product p) {
    chosenProduct_ = p;
    if (p == product_) return;
    product_ = p;
    invalidatePlan();
    Q_EMIT argumentsChanged();
}

QStringList DebugContext::baselineChoices() const {
    QStringList out{kComputedBaseline};
    if (runAs_ != DType::Undefined) out << kStoredInputsBaseline;
    if (case_)
        for (const cases::OutputSource& s : case_->sources) out << QString::fromStdString(s.name);
    return out;
}

void DebugContext::setBaselineSource(const QString& source) {
    if (source == baselineSource_) return;
    baselineSource_ = source;
    if (prepared_) computeBaseline();
}

void DebugContext::setStandard(const QString& spec) {
    if (spec == standardSpec_) return;
    standardSpec_ = spec;
    if (prepared_) computeBaseline();
}

// ---- execution ---------------------------------------------------------------------------

void DebugContext::beginBusy(const QString& what) {
    busyText_ = what;
    if (busy_++ == 0) Q_EMIT busyChanged(true);
}

void DebugContext::endBusy() {
    if (busy_ > 0 && --busy_ == 0) {
        busyText_.clear();
        Q_EMIT busyChanged(false);
    }
}

void DebugContext::beginBackground(const QString& what) {
    backgroundText_ = what;
    if (background_++ == 0) Q_EMIT backgroundChanged(true);
}

void DebugContext::endBackground() {
    if (background_ > 0 && --background_ == 0) Q_EMIT backgroundChanged(false);
}

void DebugContext::clearPlan() {
    ++generation_;
    const bool had = prepared_ || !steps_.empty() || prepareError_;
    prepared_ = false;
    recordedOnly_ = false;
    runFinished_ = false;
    plan_ = PlanInfo{};
    steps_.clear();
    next_ = 0;
    prepareError_.reset();
    baseline_.reset();
    analysis_.reset();
    finalOutputs_.reset();
    pick_ = ElementPick{};
    history_.clear();
    if (had) {
        Q_EMIT planChanged();
        Q_EMIT positionChanged(0);
        Q_EMIT baselineChanged();
        Q_EMIT analysisChanged();
        Q_EMIT historyChanged();
    }
}

void DebugContext::invalidatePlan() {
    if (prepared_ || prepareError_) clearPlan();
}

void DebugContext::prepare() {
    if (!op_) {
        Q_EMIT statusMessage("Choose an operator first", true);
        return;
    }
    if (isBusy() && prepared_) cancel();
    clearPlan();
    PrepareRequest req;
    req.generation = generation_;
    req.op = op_;
    req.args = args_.toOpArguments();
    req.runAs = runAs_;
    req.product = product_;
    beginBusy("Preparing (phase 1)");
    ExecutionWorker* w = worker_.get();
    w->post([w, req = std::move(req)]() mutable { w->prepareOnWorker(std::move(req)); });
}

void DebugContext::preparedFromWorker(uint64_t gen, PrepareOutcome outcome) {
    endBusy();
    if (gen != generation_) return;
    if (!outcome.ok) {
        PrepareError err{outcome.code, outcome.message, faultyArgument(op_->schema(), outcome.message.toStdString())};
        prepareError_ = err;
        Q_EMIT prepareFailed(QString::fromStdString(err.argument), err.code, err.message);
        Q_EMIT statusMessage(err.headline() + ": " + err.message, true);
        return;
    }
    prepared_ = true;
    plan_ = std::move(outcome.plan);
    usedArgs_ = std::move(outcome.usedArgs);
    storedArgs_ = std::move(outcome.storedArgs);
    steps_.assign(plan_.steps.size(), StepState{});
    next_ = 0;
    Q_EMIT planChanged();
    Q_EMIT positionChanged(0);
    Q_EMIT statusMessage(QString("Prepared %1: %2 steps, workspace %3 bytes")
                             .arg(QString::fromStdString(plan_.op))
                             .arg(plan_.steps.size())
                             .arg(plan_.workspaceBytes),
                         false);
    computeBaseline();
}

void DebugContext::run(RunOptions opt, const QString& what) {
    if (!op_) return;
    if (!prepared_) {
        Q_EMIT statusMessage("Prepare first (Ctrl+P)", true);
        return;
    }
    if (isBusy()) return;
    if (opt.restart || (runFinished_ && next_ >= plan_.steps.size())) {
        // The worker starts over: every step is pending again.
        runFinished_ = false;
        for (std::size_t i = 0; i < steps_.size(); ++i) {
            steps_[i] = StepState{};
            Q_EMIT stepStateChanged(i);
        }
        next_ = 0;
        history_.clear();
        Q_EMIT historyChanged();
    }
    opt.breakpoints = breakpoints_;
    opt.breakOnNonFinite = breakOnNonFinite_;
    opt.breakOnError = breakOnError_;
    beginBusy(what);
    const uint64_t gen = generation_;
    ExecutionWorker* w = worker_.get();
    w->clearCancel();
    w->post([w, gen, opt] { w->runOnWorker(gen, opt); });
}

void DebugContext::step() {
    // One step, whatever its breakpoint says: it was asked for explicitly.
    RunOptions o;
    o.maxSteps = 1;
    run(o, "Step");
}

void DebugContext::continueRun() { run(RunOptions{}, "Continue"); }

void DebugContext::runTo(std::size_t stepIndex) {
    RunOptions o;
    o.stopBefore = stepIndex;
    o.restart = stepIndex < next_ || (runFinished_ && next_ >= plan_.steps.size());
    run(o, QString("Run to step %1").arg(stepIndex));
}

void DebugContext::restart() {
    if (!prepared_ || isBusy()) return;
    runFinished_ = false;
    for (std::size_t i = 0; i < steps_.size(); ++i) {
        steps_[i] = StepState{};
        Q_EMIT stepStateChanged(i);
    }
    history_.clear();
    Q_EMIT historyChanged();
    beginBusy("Restart");
    const uint64_t gen = generation_;
    ExecutionWorker* w = worker_.get();
    w->post([w, gen] { w->restartOnWorker(gen); });
}

void DebugContext::cancel() { worker_->requestCancel(); }

void DebugContext::stepDoneFromWorker(uint64_t gen, std::size_t step, StepState state,
                                      std::vector<HistoryEntry> history) {
    if (gen != generation_ || step >= steps_.size()) return;
    steps_[step] = std::move(state);
    next_ = step + 1;
    Q_EMIT stepStateChanged(step);
    Q_EMIT positionChanged(next_);
    if (!history.empty()) {
        history_.insert(history_.end(), history.begin(), history.end());
        Q_EMIT historyChanged();
    }
}

void DebugContext::runStoppedFromWorker(uint64_t gen, StopKind kind, QString message, std::size_t nextStep) {
    endBusy();
    if (gen != generation_) return;
    next_ = nextStep;
    if (kind == StopKind::End) {
        runFinished_ = true;
        computeAnalysis();
    }
    Q_EMIT positionChanged(next_);
    Q_EMIT runStopped(kind, message);
    if (!message.isEmpty()) Q_EMIT statusMessage(message, kind == StopKind::Failed);
}

void DebugContext::stepsRejudgedFromWorker(uint64_t gen, std::vector<std::pair<std::size_t, StepState>> states) {
    if (gen != generation_) return;
    for (auto& [i, st] : states) {
        if (i >= steps_.size() || steps_[i].status != StepStatus::Done) continue;
        steps_[i] = std::move(st);
        Q_EMIT stepStateChanged(i);
    }
}

void DebugContext::toggleBreakpoint(std::size_t step) {
    if (!breakpoints_.erase(step)) breakpoints_.insert(step);
    Q_EMIT stepStateChanged(step);
}

// ---- baseline and analysis ---------------------------------------------------------------

void DebugContext::computeBaseline() {
    baseline_.reset();
    analysis_.reset();
    Q_EMIT baselineChanged();
    Q_EMIT analysisChanged();
    // The standard: the form's choice (which starts as the case's), else the operator's default,
    // resolved as the CLI resolves it.
    try {
        standard_ = ops::resolveStandard(standardSpec_.toStdString(), "", op_->schema().name);
    } catch (const std::exception& e) {
        Q_EMIT statusMessage(QString("Standard '%1': %2").arg(standardSpec_, e.what()), true);
        standard_ = ops::resolveStandard("", "", op_->schema().name);
    }
    const uint64_t gen = generation_;
    const bool stored = baselineSource_ == kStoredInputsBaseline;
    if (baselineSource_ != kComputedBaseline && !stored && case_) {
        if (const cases::OutputSource* src = case_->source(baselineSource_.toStdString())) {
            auto map = std::make_shared<TensorMap>();
            for (const auto& [name, t] : src->tensors) (*map)[name] = t;
            applyBaseline(map);
            return;
        }
        Q_EMIT statusMessage(QString("The case has no output source '%1'; using the golden").arg(baselineSource_),
                             true);
    }
    const ops::Operator* op = op_;
    const ops::OpArguments args = stored ? storedArgs_ : usedArgs_;
    beginBackground("Computing the golden (float64)");
    runInBackground<TensorMapPtr>(
        this,
        [op, args, product = product_] { return std::make_shared<const TensorMap>(op->reference(args, product)); },
        [this, gen](TensorMapPtr map, QString error) {
            endBackground();
            if (gen != generation_) return;
            if (!error.isEmpty()) {
                Q_EMIT statusMessage(QString("The golden failed: %1").arg(error), true);
                return;
            }
            applyBaseline(map);
        });
}

void DebugContext::applyBaseline(TensorMapPtr baseline) {
    baseline_ = std::move(baseline);
    Q_EMIT baselineChanged();
    const uint64_t gen = generation_;
    ExecutionWorker* w = worker_.get();
    w->post([w, gen, b = baseline_, s = standard_] { w->setBaselineOnWorker(gen, b, s); });
    if (next_ > 0 || runFinished_) w->post([w, gen] { w->rejudgeOnWorker(gen); });
    if (runFinished_) computeAnalysis();
}

void DebugContext::computeAnalysis() {
    if (!prepared_) return;
    const uint64_t gen = generation_;
    const uint64_t request = ++analysisRequest_;
    ExecutionWorker* w = worker_.get();
    w->post([this, w, gen, request] {
        auto outputs = std::make_shared<const TensorMap>(w->outputsOnWorker(gen));
        guiInvoke(this, [this, gen, request, outputs] {
            if (gen != generation_ || request != analysisRequest_) return;
            finalOutputs_ = outputs;
            if (!baseline_) return;  // analysed when the baseline arrives
            const TensorMapPtr baseline = baseline_;
            const std::vector<metrics::Standard> standards = standardsToShow(standard_);
            const std::string name = baselineSource_ == kComputedBaseline ? "golden (float64)"
                                     : baselineSource_ == kStoredInputsBaseline
                                         ? "golden of the stored inputs (float64)"
                                         : baselineSource_.toStdString();
            // The device verdict needs the golden of the inputs as run (the CLI's), and the call
            // the device ran: after an edit its outputs belong to other arguments.
            const std::vector<std::string> changed = changedFromCase();
            const std::shared_ptr<const cases::Case> devices =
                baselineSource_ == kComputedBaseline && changed.empty() ? case_ : std::shared_ptr<const cases::Case>();
            const std::string storedNote = storedOutputsNote(case_.get(), changed);
            const CallAsRun call{op_, usedArgs_, product_};
            beginBackground("Analysing outputs");
            runInBackground<AnalysisPtr>(
                this,
                [outputs, baseline, standards, name, devices, call, storedNote] {
                    auto report =
                        std::make_shared<AnalysisReport>(analyzeOutputs(*outputs, *baseline, standards, name));
                    if (devices) judgeDevices(report.get(), devices->sources, *baseline, standards.front(), call);
                    report->storedOutputsNote = storedNote;
                    return AnalysisPtr(std::move(report));
                },
                [this, gen, request](AnalysisPtr report, QString error) {
                    endBackground();
                    if (gen != generation_ || request != analysisRequest_) return;
                    if (!error.isEmpty()) {
                        Q_EMIT statusMessage(QString("Analysis failed: %1").arg(error), true);
                        return;
                    }
                    analysis_ = report;
                    Q_EMIT analysisChanged();
                });
        });
    });
}

// ---- inspection --------------------------------------------------------------------------

void DebugContext::fetchTensor(const TensorKey& key, QObject* receiver, std::function<void(TensorPtr, QString)> done) {
    QPointer<QObject> target(receiver);
    auto deliver = [this, target, done](TensorPtr t, QString error) {
        guiInvoke(this, [target, done, t, error] {
            if (target) done(t, error);
        });
    };
    if (key.source == TensorKey::Source::Baseline) {
        if (baseline_) {
            auto it = baseline_->find(key.name);
            if (it != baseline_->end()) return deliver(std::make_shared<const HostTensor>(it->second), {});
        }
        return deliver(nullptr, QString("no reference for %1 yet").arg(QString::fromStdString(key.name)));
    }
    if (!prepared_) return deliver(nullptr, recordedOnly_ ? "no values recorded (see Steps)" : "not prepared");
    const uint64_t gen = generation_;
    ExecutionWorker* w = worker_.get();
    if (key.source == TensorKey::Source::Slot) {
        w->post([w, gen, key, deliver] {
            TensorPtr t = w->snapshotOnWorker(gen, key.name);
            deliver(t, t ? QString() : QString("no tensor %1").arg(QString::fromStdString(key.name)));
        });
        return;
    }
    // Errors of an output against the baseline, at the current position.
    const SlotInfo* out = plan_.findSlot(key.name);
    if (!baseline_ || !out || !baseline_->count(key.name))
        return deliver(nullptr, QString("no reference for %1 yet").arg(QString::fromStdString(key.name)));
    const HostTensor ref = baseline_->at(key.name);
    const DType dtype = isFloatingType(out->dtype) ? out->dtype : DType::Float32;
    const bool wantAbs = key.source == TensorKey::Source::AbsError;
    w->post([this, w, gen, key, ref, dtype, wantAbs, deliver] {
        TensorPtr actual = w->snapshotOnWorker(gen, key.name);
        if (!actual) return deliver(nullptr, "not prepared");
        runInBackground<TensorPtr>(
            this,
            [actual, ref, dtype, wantAbs] {
                metrics::ErrorMaps m = metrics::errorMaps(*actual, ref, dtype);
                return std::make_shared<const HostTensor>(wantAbs ? std::move(m.absError) : std::move(m.relError));
            },
            [deliver](TensorPtr t, QString error) { deliver(t, error); });
    });
}

void DebugContext::pickElement(const ElementPick& pick) {
    pick_ = pick;
    history_.clear();
    Q_EMIT historyChanged();
    if (!prepared_) return;
    beginBusy("Collecting element history");
    const uint64_t gen = generation_;
    ExecutionWorker* w = worker_.get();
    w->post([w, gen, pick] { w->pickOnWorker(gen, pick); });
}

void DebugContext::historyFromWorker(uint64_t gen, ElementPick pick, std::vector<HistoryEntry> history) {
    endBusy();
    if (gen != generation_ || pick.index != pick_.index || pick.slot != pick_.slot) return;
    history_ = std::move(history);
    Q_EMIT historyChanged();
}

void DebugContext::withExecutor(std::function<void(ops::PreparedCall&)> fn, std::function<void(QString)> done) {
    if (!prepared_) return done("nothing is prepared");
    const uint64_t gen = generation_;
    ExecutionWorker* w = worker_.get();
    beginBusy("Working");
    w->post([this, w, gen, fn, done] {
        QString error;
        try {
            w->withExecutorOnWorker(gen, fn);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
        }
        guiInvoke(this, [this, done, error] {
            endBusy();
            done(error);
        });
    });
}

SessionSnapshot DebugContext::snapshot() const {
    SessionSnapshot s;
    s.plan = plan_;
    s.inputFile = filePath_.toStdString();
    s.casePath = case_ ? case_->path : std::string();
    s.steps = steps_;
    s.outputs = finalOutputs_;
    s.baseline = baseline_;
    s.analysis = analysis_;
    return s;
}

void DebugContext::saveSession(const QString& dest, bool replaceInput, std::function<void(QString)> done) {
    if (!prepared_) return done("nothing is prepared");
    const QString input = filePath_;
    std::shared_ptr<h5::AtomicFileWriter> writer;
    try {
        std::vector<std::filesystem::path> inputs;
        if (!replaceInput && !input.isEmpty()) inputs.push_back(input.toStdString());
        writer = std::make_shared<h5::AtomicFileWriter>(dest.toStdString(), inputs);
    } catch (const std::exception& e) {
        return done(QString::fromUtf8(e.what()));
    }
    const std::string temp = writer->tempPath().string();
    const SessionSnapshot snap = snapshot();
    const std::size_t resumeAt = next_;
    withExecutor([temp, snap, resumeAt](ops::PreparedCall& call) { saveSessionOnWorker(call, temp, snap, resumeAt); },
                 [this, writer, dest, replaceInput, done](QString error) {
                     try {
                         if (!error.isEmpty()) throw std::runtime_error(error.toStdString());
                         if (replaceInput) closeFile();
                         writer->commit();
                         if (replaceInput) openFile(dest);
                         Q_EMIT statusMessage(QString("Saved the session to %1").arg(dest), false);
                     } catch (const std::exception& e) {
                         error = QString::fromUtf8(e.what());
                     }
                     done(error);
                 });
}

}  // namespace opscope::gui
