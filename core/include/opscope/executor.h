// The executor: one prepared operator call (an aclOpExecutor) that runs its plan step by step.
// The C API runs it to the end; the CLI, GUI and tests can step it like a debugger.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "opscope/plan.h"
#include "opscope/product.h"

namespace opscope {

using ParamValue =
    std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, std::vector<double>, std::vector<bool>>;
struct Param {
    std::string name;
    ParamValue value;
};
// "true", "3", "0.001", "text", "[1, 2]", "[true, false]": reals in the shortest form that
// reads back to the same double, so paramFromString(paramTypeName(v), paramToString(v)) == v.
std::string paramToString(const ParamValue& v);
// "bool", "int", "float", "string", "int[]", "float[]", "bool[]".
const char* paramTypeName(const ParamValue& v);
// The inverse of paramToString for a value of the named type; throws UsageError
// with a sentence naming the type and the text when the text is not such a value.
ParamValue paramFromString(const std::string& typeName, const std::string& text);

class Executor;

struct StepRecord {
    std::size_t index = 0;
    double startUs = 0;  // microseconds since the process's trace epoch
    double durationUs = 0;
};

// Sees every run and every step. Observers run on the thread that runs the executor.
class ExecutorObserver {
public:
    virtual ~ExecutorObserver() = default;
    virtual void onRunBegin(const Executor&) {}
    virtual void onStepEnd(const Executor&, const StepRecord&) {}
    // completed == false when the run stopped early (breakpoint, error, reset).
    virtual void onRunEnd(const Executor&, bool completed) {}
};

// Observers every executor reports to (the OPSCOPE_TRACE recorder is one).
void addGlobalObserver(std::shared_ptr<ExecutorObserver> observer);
void removeGlobalObserver(const std::shared_ptr<ExecutorObserver>& observer);

// Microseconds since a fixed process-wide epoch: all trace timestamps share it.
double traceClockUs();

enum class StopReason { None, End, Breakpoint, NonFinite, Error };

class Executor {
public:
    explicit Executor(std::string opName);
    virtual ~Executor() = default;
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    const std::string& opName() const { return opName_; }
    Product product() const { return product_; }
    uint64_t id() const { return id_; }

    std::vector<Param>& params() { return params_; }
    const std::vector<Param>& params() const { return params_; }
    void addParam(std::string name, ParamValue v) { params_.push_back({std::move(name), std::move(v)}); }
    Plan& plan() { return plan_; }
    const Plan& plan() const { return plan_; }

    void setRepeatable(bool r) { repeatable_ = r; }
    bool repeatable() const { return repeatable_; }
    int completedRuns() const { return completedRuns_; }

    // Binds the caller's workspace and rewinds to step 0. Throws kRuntimeError when the
    // workspace is null or smaller than the plan needs.
    void bindWorkspace(void* workspace, uint64_t size);
    void* workspace() const { return workspace_; }

    std::size_t stepCount() const { return plan_.steps().size(); }
    std::size_t nextStep() const { return next_; }
    bool atEnd() const { return next_ >= stepCount(); }
    // The slot's current view (scratch resolved inside the bound workspace).
    TensorView slotView(int slot) const { return plan_.resolve(slot, workspace_); }
    const std::vector<StepRecord>& records() const { return records_; }

    // Runs one step; returns its record. Throws what the step throws.
    StepRecord runNext();
    // Runs until `stopBefore` is next (exclusive), the end, or a watch fires.
    StopReason runUntil(std::size_t stopBefore, bool stopOnNonFinite = false);
    StopReason runToEnd(bool stopOnNonFinite = false) { return runUntil(stepCount(), stopOnNonFinite); }
    // Rewinds to step 0 (scratch contents are kept until overwritten).
    void reset();
    // True when one of the outputs of the given (already run) step holds NaN or Inf.
    bool stepOutputsNonFinite(std::size_t step) const;

    // Extra per-executor observers (the debugger's), notified after the global ones.
    void addObserver(ExecutorObserver* o) { localObservers_.push_back(o); }
    void removeObserver(ExecutorObserver* o);

private:
    template <class Fn>
    void notify(Fn&& fn) const;

    std::string opName_;
    Product product_;
    uint64_t id_;
    std::vector<Param> params_;
    Plan plan_;
    std::atomic<bool> repeatable_{false};  // may be set from another thread while a launch reads it
    int completedRuns_ = 0;
    void* workspace_ = nullptr;
    uint64_t workspaceSize_ = 0;
    std::size_t next_ = 0;
    std::vector<StepRecord> records_;
    std::vector<ExecutorObserver*> localObservers_;
};

}  // namespace opscope
