// A plan is what phase 1 of an aclnn call builds: a table of tensor slots (the caller's
// inputs and outputs, and scratch tensors placed in the workspace) and an ordered list of
// named steps that read and write slots. Phase 2, the debugger and the tests only run it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "opscope/tensor_view.h"

namespace opscope {

enum class SlotKind { Input, Output, Scratch };
const char* slotKindName(SlotKind k);

struct Slot {
    std::string name;
    SlotKind kind = SlotKind::Input;
    TensorView view;           // for Scratch: data == nullptr, contiguous, placed at wsOffset
    std::size_t wsOffset = 0;  // Scratch only
    std::size_t bytes = 0;     // Scratch only
};

class StepContext;
using StepFn = std::function<void(const StepContext&)>;

struct Step {
    std::string name;          // device-style name: "Contiguous", "Cast", "GroupNormGrad.Reduce", ...
    std::string detail;        // one line for people: what this step does with which slots
    std::vector<int> inputs;   // slot ids read
    std::vector<int> outputs;  // slot ids written
    StepFn run;
};

class Plan {
public:
    static constexpr std::size_t kWorkspaceAlignment = 64;

    int addInput(const std::string& name, const TensorView& view);
    int addOutput(const std::string& name, const TensorView& view);
    // A contiguous scratch tensor in the workspace; its bytes count toward workspaceBytes().
    int addScratch(const std::string& name, DType dtype, const std::vector<int64_t>& shape);
    void addStep(Step step);

    const std::vector<Slot>& slots() const { return slots_; }
    const Slot& slot(int id) const { return slots_.at(static_cast<std::size_t>(id)); }
    const std::vector<Step>& steps() const { return steps_; }
    std::size_t workspaceBytes() const { return workspaceBytes_; }
    // -1 when no slot has that name.
    int findSlot(const std::string& name) const;

    // The slot's view with scratch placed inside `workspace`.
    TensorView resolve(int id, void* workspace) const;
    // Points a caller (input or output) slot at other storage: same dtype, shape and strides,
    // element [0,...] at data + offset elements. Phase 2 uses it to read inputs from a copy.
    void rebindCaller(int id, void* data, int64_t offset);
    // Points every caller slot whose storage starts at `from` at `to` instead (same offsets):
    // the caller moved that tensor to other storage of the same size.
    void moveCallerStorage(const void* from, void* to);

private:
    std::vector<Slot> slots_;
    std::vector<Step> steps_;
    std::size_t workspaceBytes_ = 0;
};

// What a running step sees: its slots resolved against the bound workspace.
class StepContext {
public:
    StepContext(const Plan& plan, void* workspace) : plan_(plan), workspace_(workspace) {}
    TensorView tensor(int slot) const { return plan_.resolve(slot, workspace_); }
    // Pointer to element [0,...] of a slot the plan guarantees to be contiguous.
    template <class T>
    T* data(int slot) const {
        return static_cast<T*>(tensor(slot).first());
    }

private:
    const Plan& plan_;
    void* workspace_;
};

}  // namespace opscope
