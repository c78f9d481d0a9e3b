#include "session/execution_worker.h"

#include <QCoreApplication>
#include <set>

#include "opscope/error.h"
#include "opscope/stats.h"
#include "opscope/view/slice.h"
#include "session/gui_invoke.h"

namespace opscope::gui {

// Records the picked element after every step that writes the picked tensor or another tensor
// of the same output (its float32 scratch before the cast); unrelated tensors that merely have
// the same shape are not its history.
class ExecutionWorker::HistoryRecorder final : public ExecutorObserver {
public:
    void setPick(ElementPick pick, std::set<int> slots) {
        pick_ = std::move(pick);
        slots_ = std::move(slots);
        pending_.clear();
    }
    std::vector<HistoryEntry> take() { return std::exchange(pending_, {}); }

    void onStepEnd(const Executor& e, const StepRecord& r) override {
        if (!pick_.valid()) return;
        const Step& step = e.plan().steps()[r.index];
        for (int slot : step.outputs) {
            if (!slots_.count(slot)) continue;
            const TensorView v = e.slotView(slot);
            if (v.shape != pick_.shape) continue;
            HistoryEntry h;
            h.step = r.index;
            h.stepName = step.name;
            h.slotName = e.plan().slot(slot).name;
            h.value = view::elementValue(v, pick_.index);
            pending_.push_back(std::move(h));
        }
    }

private:
    ElementPick pick_;
    std::set<int> slots_;
    std::vector<HistoryEntry> pending_;
};

namespace {

PlanInfo describePlan(const ops::PreparedCall& call, const std::string& runAs) {
    const Executor& e = call.executor();
    PlanInfo p;
    p.op = e.opName();
    p.product = productId(e.product());
    p.runAs = runAs;
    p.workspaceBytes = call.workspaceSize();
    p.params = e.params();
    const auto& slots = e.plan().slots();
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const Slot& s = slots[i];
        SlotInfo info;
        info.id = static_cast<int>(i);
        info.name = s.name;
        info.kind = s.kind;
        info.dtype = s.view.dtype;
        info.shape = s.view.shape;
        info.contiguous = s.view.isContiguous();
        info.wsOffset = s.wsOffset;
        info.bytes = s.bytes;
        if (s.kind == SlotKind::Output) info.output = s.name;
        p.slots.push_back(std::move(info));
    }
    // Scratch "gradInput.float32" holding an output before its cast belongs to that output.
    for (SlotInfo& s : p.slots) {
        if (s.kind != SlotKind::Scratch) continue;
        for (const SlotInfo& o : p.slots)
            if (o.kind == SlotKind::Output && s.shape == o.shape && s.name.rfind(o.name + ".", 0) == 0)
                s.output = o.name;
    }
    const auto& steps = e.plan().steps();
    for (std::size_t i = 0; i < steps.size(); ++i)
        p.steps.push_back({i, steps[i].name, steps[i].detail, steps[i].inputs, steps[i].outputs});
    return p;
}

}  // namespace

ExecutionWorker::ExecutionWorker(WorkerSink* sink, QObject* guard)
    : sink_(sink), guard_(guard), recorder_(std::make_unique<HistoryRecorder>()) {
    thread_.setObjectName("opscope-execution");
    anchor_ = new QObject();
    anchor_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, anchor_, &QObject::deleteLater);
    thread_.start();
}

ExecutionWorker::~ExecutionWorker() { shutdown(); }

void ExecutionWorker::post(std::function<void()> fn) {
    QMetaObject::invokeMethod(anchor_, std::move(fn), Qt::QueuedConnection);
}

void ExecutionWorker::shutdown() {
    if (!thread_.isRunning()) return;
    cancel_ = true;
    // The prepared call dies on the thread that used it.
    post([this] {
        call_.reset();
        baseline_.reset();
    });
    thread_.quit();
    thread_.wait();
}

void ExecutionWorker::prepareOnWorker(PrepareRequest req) {
    snapshots_.clear();  // holders keep their tensors: the call they came from goes
    call_.reset();
    baseline_.reset();
    standard_.reset();
    recorder_->setPick({}, {});
    generation_ = req.generation;
    PrepareOutcome out;
    try {
        setProduct(req.product);
        const ops::OpArguments original = req.op->withDefaults(req.args);
        const ops::OpArguments args = req.runAs != DType::Undefined ? req.op->castTo(original, req.runAs) : original;
        call_ = req.op->prepare(args);
        call_->bindWorkspace();
        call_->executor().addObserver(recorder_.get());
        plan_ = describePlan(*call_, req.runAs != DType::Undefined ? dtypeName(req.runAs) : "");
        out.ok = true;
        out.plan = plan_;
        out.usedArgs = args;
        out.storedArgs = original;
    } catch (const StatusError& e) {
        out.code = e.code();
        out.message = QString::fromUtf8(e.what());
    } catch (const ops::ArgumentError& e) {
        out.message = QString::fromUtf8(e.what());
    } catch (const std::exception& e) {
        out.code = status::kInner;
        out.message = QString::fromUtf8(e.what());
    }
    if (!out.ok) call_.reset();
    const uint64_t gen = req.generation;
    guiInvoke(guard_,
              [sink = sink_, gen, out = std::move(out)]() mutable { sink->preparedFromWorker(gen, std::move(out)); });
}

StepState ExecutionWorker::evaluateStepOnWorker(std::size_t step) {
    const Executor& e = call_->executor();
    StepState st;
    st.status = StepStatus::Done;
    const auto& recs = e.records();
    if (!recs.empty() && recs.back().index == step) st.durationUs = recs.back().durationUs;
    for (int slot : e.plan().steps()[step].outputs) {
        SlotResult r;
        r.slot = slot;
        const TensorView v = e.slotView(slot);
        r.stats = computeStats(v);
        st.nonFinite = st.nonFinite || r.stats.nanCount > 0 || r.stats.infCount > 0;
        const SlotInfo* info = plan_.slot(slot);
        if (baseline_ && standard_ && info && !info->output.empty()) {
            auto it = baseline_->find(info->output);
            const SlotInfo* user = plan_.findSlot(info->output);
            if (it != baseline_->end() && user) {
                // The evaluation the analysis and the CLI use; an incomparable pair gets no step
                // verdict (the analysis says why).
                const ops::Comparison c = ops::compareOutput(info->output, "opscope", HostTensor::copyOf(v), "baseline",
                                                             it->second, user->dtype, *standard_);
                if (c.compared) {
                    r.judgement = c.judgement;
                    r.maxRelError = c.metrics.maxRelError;
                }
            }
        }
        st.outputs.push_back(std::move(r));
    }
    return st;
}

void ExecutionWorker::runOnWorker(uint64_t gen, RunOptions opt) {
    auto stopped = [&](StopKind kind, const QString& msg) {
        const std::size_t next = call_ ? call_->executor().nextStep() : 0;
        guiInvoke(guard_, [sink = sink_, gen, kind, msg, next] { sink->runStoppedFromWorker(gen, kind, msg, next); });
    };
    if (!current(gen)) return stopped(StopKind::Failed, "nothing is prepared");
    Executor& e = call_->executor();
    const bool rewind = opt.restart || (e.atEnd() && e.stepCount() > 0);  // finished (or asked): start over
    releaseSnapshots(rewind ? NextWrite::Rewind : NextWrite::Continue);
    if (rewind) {
        call_->bindWorkspace();
        recorder_->take();
    }
    if (e.stepCount() == 0) {
        e.runToEnd();
        return stopped(StopKind::End, "the plan has no steps (empty tensors)");
    }
    std::size_t ran = 0;
    while (!e.atEnd()) {
        const std::size_t next = e.nextStep();
        if (ran > 0) {
            if (cancel_) return stopped(StopKind::Cancelled, "cancelled");
            if (ran >= opt.maxSteps) return stopped(StopKind::Step, {});
            if (opt.breakpoints.count(next))
                return stopped(StopKind::Breakpoint, QString("breakpoint before step %1").arg(next));
        }
        if (next >= opt.stopBefore) return stopped(StopKind::Step, {});
        StepState st;
        try {
            e.runNext();
            st = evaluateStepOnWorker(next);
        } catch (const StatusError& ex) {
            st.status = StepStatus::Failed;
            guiInvoke(guard_, [sink = sink_, gen, next, st] { sink->stepDoneFromWorker(gen, next, st, {}); });
            return stopped(StopKind::Failed,
                           QString("step %1 failed (%2): %3").arg(next).arg(ex.code()).arg(ex.what()));
        } catch (const std::exception& ex) {
            st.status = StepStatus::Failed;
            guiInvoke(guard_, [sink = sink_, gen, next, st] { sink->stepDoneFromWorker(gen, next, st, {}); });
            return stopped(StopKind::Failed, QString("step %1 failed: %2").arg(next).arg(ex.what()));
        }
        ++ran;
        const bool nonFinite = st.nonFinite;
        const bool failedStandard = st.verdict() == metrics::Verdict::Fail;
        guiInvoke(guard_, [sink = sink_, gen, next, st = std::move(st), h = recorder_->take()]() mutable {
            sink->stepDoneFromWorker(gen, next, std::move(st), std::move(h));
        });
        if (opt.breakOnNonFinite && nonFinite)
            return stopped(StopKind::NonFinite, QString("step %1 wrote NaN/Inf").arg(next));
        if (opt.breakOnError && failedStandard)
            return stopped(StopKind::ErrorExceeded, QString("step %1: error exceeds the standard").arg(next));
    }
    stopped(StopKind::End, {});
}

void ExecutionWorker::restartOnWorker(uint64_t gen) {
    if (!current(gen)) return;
    releaseSnapshots(NextWrite::Rewind);
    call_->bindWorkspace();
    recorder_->take();
    const std::size_t next = call_->executor().nextStep();
    guiInvoke(guard_,
              [sink = sink_, gen, next] { sink->runStoppedFromWorker(gen, StopKind::None, "restarted", next); });
}

void ExecutionWorker::setBaselineOnWorker(uint64_t gen, TensorMapPtr baseline, metrics::Standard standard) {
    if (!current(gen)) return;
    baseline_ = std::move(baseline);
    standard_ = std::move(standard);
}

void ExecutionWorker::rejudgeOnWorker(uint64_t gen) {
    if (!current(gen)) return;
    std::vector<std::pair<std::size_t, StepState>> states;
    const Executor& e = call_->executor();
    for (const StepRecord& r : e.records()) states.emplace_back(r.index, evaluateStepOnWorker(r.index));
    // evaluateStepOnWorker reads the last record's duration only: restore every duration.
    for (std::size_t i = 0; i < states.size(); ++i) states[i].second.durationUs = e.records()[i].durationUs;
    guiInvoke(guard_, [sink = sink_, gen, states = std::move(states)]() mutable {
        sink->stepsRejudgedFromWorker(gen, std::move(states));
    });
}

void ExecutionWorker::pickOnWorker(uint64_t gen, ElementPick pick) {
    if (!current(gen)) return;
    std::set<int> slots;
    for (const SlotInfo& info : plan_.slots)
        if (info.name == pick.slot || (!pick.output.empty() && info.output == pick.output)) slots.insert(info.id);
    recorder_->setPick(pick, std::move(slots));
    Executor& e = call_->executor();
    const std::size_t target = e.nextStep();
    std::vector<HistoryEntry> history;
    if (pick.valid() && target > 0) {
        releaseSnapshots(NextWrite::Rewind);
        try {
            call_->bindWorkspace();  // deterministic replay to where we were
            e.runUntil(target);
        } catch (const std::exception&) {}
        history = recorder_->take();
    }
    guiInvoke(guard_, [sink = sink_, gen, pick = std::move(pick), history = std::move(history)]() mutable {
        sink->historyFromWorker(gen, std::move(pick), std::move(history));
    });
}

TensorPtr ExecutionWorker::snapshotOnWorker(uint64_t gen, const std::string& slot) {
    if (!current(gen)) return nullptr;
    const int id = call_->executor().plan().findSlot(slot);
    if (id < 0) return nullptr;
    if (TensorPtr kept = snapshots_[id].lock()) return kept;
    TensorPtr t = sharedSnapshot(id);
    if (!t) t = std::make_shared<const HostTensor>(HostTensor::copyOf(call_->executor().slotView(id)));
    snapshots_[id] = t;
    return t;
}

// The storage behind a caller slot that views a whole tensor, shared instead of copied: an
// input's (kernels only read inputs) or an output's (moved away before the next write).
TensorPtr ExecutionWorker::sharedSnapshot(int id) const {
    const Slot& info = call_->executor().plan().slot(id);
    const HostTensor* whole = nullptr;
    if (info.kind == SlotKind::Input && call_->arguments().hasTensor(info.name))
        whole = &call_->arguments().tensor(info.name);
    else if (info.kind == SlotKind::Output)
        for (const auto& named : call_->outputs())
            if (named.second.data() == info.view.data) whole = &named.second;
    const bool sameView = whole && whole->dtype() == info.view.dtype && whole->shape() == info.view.shape &&
                          info.view.offset == 0 && info.view.isContiguous();
    return sameView ? std::make_shared<const HostTensor>(*whole) : nullptr;
}

void ExecutionWorker::releaseSnapshots(NextWrite next) {
    snapshots_.clear();
    call_->detachSharedOutputs(next == NextWrite::Continue);
}

TensorMap ExecutionWorker::outputsOnWorker(uint64_t gen) {
    TensorMap out;
    if (!current(gen)) return out;
    for (const SlotInfo& s : plan_.slots)
        if (s.kind == SlotKind::Output) out[s.name] = *snapshotOnWorker(gen, s.name);  // shares the storage
    return out;
}

void ExecutionWorker::withExecutorOnWorker(uint64_t gen, const std::function<void(ops::PreparedCall&)>& fn) {
    if (!current(gen)) return;
    releaseSnapshots(NextWrite::Continue);  // fn may replay the call
    fn(*call_);
}

}  // namespace opscope::gui
