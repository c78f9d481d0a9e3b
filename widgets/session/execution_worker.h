// The debugger's execution thread. It owns the prepared call (the executor, its workspace
// and output tensors); every method named ...OnWorker runs on its thread, in the order posted,
// so a tensor is never read while a step writes it. Results go back to the context through
// WorkerSink on the GUI thread (guarded: nothing is delivered once the context is gone).
// Cancellation is checked between steps: steps are atomic.
#pragma once

#include <QObject>
#include <QThread>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "opscope/metrics.h"
#include "opscope/ops/operator.h"
#include "opscope/product.h"
#include "session/session_types.h"

namespace opscope::gui {

struct PrepareRequest {
    uint64_t generation = 0;
    const ops::Operator* op = nullptr;
    ops::OpArguments args;
    DType runAs = DType::Undefined;  // Undefined: run with the tensors' own dtypes
    Product product = Product::AtlasA2;
};

struct PrepareOutcome {
    bool ok = false;
    int32_t code = 0;  // aclnn status, or 0 for a binding problem
    QString message;
    PlanInfo plan;
    ops::OpArguments usedArgs;    // with defaults and "run as": what the executor ran
    ops::OpArguments storedArgs;  // with defaults, before "run as": the case as stored
};

struct RunOptions {
    std::set<std::size_t> breakpoints;  // stop before these steps
    std::size_t stopBefore = SIZE_MAX;  // "run to cursor"
    std::size_t maxSteps = SIZE_MAX;    // 1 for Step
    bool breakOnNonFinite = false;
    bool breakOnError = false;  // a judged output fails the standard
    bool restart = false;       // rewind to step 0 first (replay)
};

// Implemented by the context; every call arrives on the GUI thread.
class WorkerSink {
public:
    virtual ~WorkerSink() = default;
    virtual void preparedFromWorker(uint64_t generation, PrepareOutcome outcome) = 0;
    virtual void stepDoneFromWorker(uint64_t generation, std::size_t step, StepState state,
                                    std::vector<HistoryEntry> history) = 0;
    virtual void runStoppedFromWorker(uint64_t generation, StopKind kind, QString message, std::size_t nextStep) = 0;
    virtual void stepsRejudgedFromWorker(uint64_t generation,
                                         std::vector<std::pair<std::size_t, StepState>> states) = 0;
    virtual void historyFromWorker(uint64_t generation, ElementPick pick, std::vector<HistoryEntry> history) = 0;
};

class ExecutionWorker : public QObject {
    Q_OBJECT
public:
    // Starts the thread; `guard` is the QObject results are delivered through (the context).
    ExecutionWorker(WorkerSink* sink, QObject* guard);
    ~ExecutionWorker() override;

    // Queues fn on the worker thread (from any thread).
    void post(std::function<void()> fn);
    // Asks a running Continue to stop before its next step (from any thread).
    void requestCancel() { cancel_ = true; }
    // Called before posting a run, so that a Cancel pressed right after Continue applies to it.
    void clearCancel() { cancel_ = false; }
    // Stops the thread after the current task; the prepared call is destroyed on it.
    void shutdown();

    // ---- run on the worker thread ----
    void prepareOnWorker(PrepareRequest request);
    void runOnWorker(uint64_t generation, RunOptions options);
    void restartOnWorker(uint64_t generation);
    // The baseline (reference) each step's outputs are judged against, and the standard.
    void setBaselineOnWorker(uint64_t generation, TensorMapPtr baseline, metrics::Standard standard);
    // Judges the outputs of every step run so far (after the baseline arrives).
    void rejudgeOnWorker(uint64_t generation);
    // Replays the run up to the current position to collect the element's history.
    void pickOnWorker(uint64_t generation, ElementPick pick);
    // The slot's current contents (null when not prepared or unknown), fixed from then on.
    // Inputs and whole outputs are shared, not copied (a 512 MiB output costs nothing to look
    // at): before the executor writes again, an output still held moves to new storage
    // (PreparedCall::detachSharedOutputs). Asked again before the executor moves, it is the
    // same tensor while anyone holds it. Other slots (scratch, views) are copied.
    TensorPtr snapshotOnWorker(uint64_t generation, const std::string& slot);
    // Every operator output (user output slots) at the current position, shared likewise.
    TensorMap outputsOnWorker(uint64_t generation);
    // Runs fn with the executor when prepared and current (for saving traces).
    void withExecutorOnWorker(uint64_t generation, const std::function<void(ops::PreparedCall&)>& fn);

private:
    class HistoryRecorder;
    StepState evaluateStepOnWorker(std::size_t step);
    bool current(uint64_t generation) const { return call_ && generation == generation_; }
    // The executor's memory is about to change: earlier snapshots no longer describe it, and
    // outputs they share move away first. `Rewind`: the executor starts over at step 0, so the
    // moved outputs need not keep their values.
    enum class NextWrite { Continue, Rewind };
    void releaseSnapshots(NextWrite next);
    TensorPtr sharedSnapshot(int slot) const;

    WorkerSink* sink_;
    QObject* guard_;
    QThread thread_;
    QObject* anchor_ = nullptr;  // lives in thread_: the target of post()
    std::atomic<bool> cancel_{false};

    // Worker-thread state.
    uint64_t generation_ = 0;
    std::unique_ptr<ops::PreparedCall> call_;
    PlanInfo plan_;
    TensorMapPtr baseline_;
    std::optional<metrics::Standard> standard_;
    std::unique_ptr<HistoryRecorder> recorder_;
    std::map<int, std::weak_ptr<const HostTensor>> snapshots_;  // by slot id, at the current position
};

}  // namespace opscope::gui
