#include "opscope/executor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>

#include "opscope/error.h"
#include "opscope/stats.h"
#include "opscope/trace.h"
#include "process_list.h"

namespace opscope {
namespace {

ProcessList<std::shared_ptr<ExecutorObserver>>& globalObservers() {
    static auto* observers = new ProcessList<std::shared_ptr<ExecutorObserver>>();
    return *observers;
}

std::vector<std::shared_ptr<ExecutorObserver>> snapshotObservers() { return globalObservers().snapshot(); }

std::atomic<uint64_t> gNextExecutorId{1};

}  // namespace

void addGlobalObserver(std::shared_ptr<ExecutorObserver> observer) { globalObservers().add(std::move(observer)); }

void removeGlobalObserver(const std::shared_ptr<ExecutorObserver>& observer) { globalObservers().remove(observer); }

double traceClockUs() {
    using Clock = std::chrono::steady_clock;
    static const Clock::time_point epoch = Clock::now();
    return std::chrono::duration<double, std::micro>(Clock::now() - epoch).count();
}

Executor::Executor(std::string opName)
    : opName_(std::move(opName)), product_(currentProduct()), id_(gNextExecutorId++) {}

template <class Fn>
void Executor::notify(Fn&& fn) const {
    for (const auto& o : snapshotObservers()) fn(*o);
    for (ExecutorObserver* o : localObservers_) fn(*o);
}

void Executor::removeObserver(ExecutorObserver* o) {
    localObservers_.erase(std::remove(localObservers_.begin(), localObservers_.end(), o), localObservers_.end());
}

void Executor::bindWorkspace(void* workspace, uint64_t size) {
    const std::size_t need = plan_.workspaceBytes();
    if (need > 0 && !workspace)
        fail(status::kRuntimeError,
             Msg() << opName_ << " needs a workspace of " << need << " bytes but workspace is null");
    if (size < need)
        fail(status::kRuntimeError,
             Msg() << opName_ << " needs a workspace of " << need << " bytes but workspaceSize is " << size);
    if (next_ > 0 && !atEnd()) notify([&](ExecutorObserver& o) { o.onRunEnd(*this, false); });
    workspace_ = workspace;
    workspaceSize_ = size;
    next_ = 0;
    records_.clear();
}

StepRecord Executor::runNext() {
    if (atEnd()) fail(status::kRuntimeError, Msg() << opName_ << ": no step left to run");
    if (next_ == 0) {
        records_.clear();
        notify([&](ExecutorObserver& o) { o.onRunBegin(*this); });
    }
    const Step& step = plan_.steps()[next_];
    StepRecord rec;
    rec.index = next_;
    rec.startUs = traceClockUs();
    try {
        step.run(StepContext(plan_, workspace_));
    } catch (...) {
        notify([&](ExecutorObserver& o) { o.onRunEnd(*this, false); });
        next_ = 0;
        throw;
    }
    rec.durationUs = traceClockUs() - rec.startUs;
    records_.push_back(rec);
    ++next_;
    notify([&](ExecutorObserver& o) { o.onStepEnd(*this, rec); });
    if (atEnd()) {
        ++completedRuns_;
        notify([&](ExecutorObserver& o) { o.onRunEnd(*this, true); });
    }
    return rec;
}

StopReason Executor::runUntil(std::size_t stopBefore, bool stopOnNonFinite) {
    stopBefore = std::min(stopBefore, stepCount());
    if (stepCount() == 0) {
        // An empty plan (e.g. empty tensors) still counts as a run for observers.
        notify([&](ExecutorObserver& o) { o.onRunBegin(*this); });
        ++completedRuns_;
        notify([&](ExecutorObserver& o) { o.onRunEnd(*this, true); });
        return StopReason::End;
    }
    while (next_ < stopBefore) {
        const StepRecord rec = runNext();
        if (stopOnNonFinite && stepOutputsNonFinite(rec.index)) return StopReason::NonFinite;
    }
    return atEnd() ? StopReason::End : StopReason::Breakpoint;
}

void Executor::reset() {
    if (next_ > 0 && !atEnd()) notify([&](ExecutorObserver& o) { o.onRunEnd(*this, false); });
    next_ = 0;
    records_.clear();
}

bool Executor::stepOutputsNonFinite(std::size_t step) const {
    for (int slot : plan_.steps().at(step).outputs) {
        const TensorStats s = computeStats(slotView(slot));
        if (s.nanCount > 0 || s.infCount > 0) return true;
    }
    return false;
}

}  // namespace opscope
