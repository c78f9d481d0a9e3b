#include "session/recorded_run.h"

#include <algorithm>

namespace opscope::gui {

namespace {

// The slot id of `name`, added (as `kind`) when new; `record` gives its dtype and shape.
int slotFor(PlanInfo& plan, const std::string& name, SlotKind kind, const TensorRecord* record) {
    for (const SlotInfo& s : plan.slots)
        if (s.name == name) return s.id;
    SlotInfo s;
    s.id = static_cast<int>(plan.slots.size());
    s.name = name;
    s.kind = kind;
    if (record) {
        s.dtype = record->dtype;
        s.shape = record->shape;
        s.contiguous = record->contiguous;
    }
    if (kind == SlotKind::Output) s.output = name;
    plan.slots.push_back(s);
    return s.id;
}

StepState stateOf(const StepTrace& step, const PlanInfo& plan) {
    StepState st;
    st.status = StepStatus::Done;
    st.durationUs = step.durationUs;
    for (const TensorRecord& r : step.outputTensors) {
        const SlotInfo* slot = plan.findSlot(r.name);
        if (!slot || !r.stats) continue;
        SlotResult result;
        result.slot = slot->id;
        result.stats = *r.stats;
        st.nonFinite = st.nonFinite || r.stats->nanCount > 0 || r.stats->infCount > 0;
        st.outputs.push_back(result);
    }
    return st;
}

}  // namespace

RecordedRun recordedRun(const ExecutorTrace& trace) {
    RecordedRun run;
    PlanInfo& plan = run.plan;
    plan.op = trace.op;
    plan.product = trace.product;
    plan.workspaceBytes = trace.workspaceBytes;
    plan.params = trace.params;
    for (const TensorRecord& r : trace.inputs) slotFor(plan, r.name, SlotKind::Input, &r);
    for (const TensorRecord& r : trace.outputs) slotFor(plan, r.name, SlotKind::Output, &r);
    for (const StepTrace& step : trace.steps) {
        StepInfo info;
        info.index = step.index;
        info.name = step.name;
        info.detail = step.detail;
        for (const std::string& n : step.inputs) info.inputs.push_back(slotFor(plan, n, SlotKind::Scratch, nullptr));
        for (const std::string& n : step.outputs) {
            auto r = std::find_if(step.outputTensors.begin(), step.outputTensors.end(),
                                  [&](const TensorRecord& t) { return t.name == n; });
            info.outputs.push_back(slotFor(plan, n, SlotKind::Scratch, r == step.outputTensors.end() ? nullptr : &*r));
        }
        plan.steps.push_back(std::move(info));
        run.steps.push_back(stateOf(step, plan));
    }
    return run;
}

}  // namespace opscope::gui
