#include "session/session_types.h"

#include "opscope/names.h"

namespace opscope::gui {

std::optional<metrics::Verdict> StepState::verdict() const {
    std::optional<metrics::Verdict> worst;
    for (const SlotResult& r : outputs)
        if (r.judgement && (!worst || static_cast<int>(r.judgement->verdict) > static_cast<int>(*worst)))
            worst = r.judgement->verdict;
    return worst;
}

bool slotWritten(const PlanInfo& plan, const std::vector<StepState>& steps, int slot) {
    const SlotInfo* s = plan.slot(slot);
    if (!s) return false;
    if (s->kind == SlotKind::Input) return true;
    for (const StepInfo& st : plan.steps)
        for (int o : st.outputs)
            if (o == slot && st.index < steps.size() && steps[st.index].status == StepStatus::Done) return true;
    return false;
}

const char* stopKindText(StopKind k) {
    static constexpr Named<StopKind> kStopKinds[] = {
        {StopKind::None, "ready"},          {StopKind::End, "finished"},
        {StopKind::Step, "stepped"},        {StopKind::Breakpoint, "breakpoint"},
        {StopKind::NonFinite, "NaN/Inf"},   {StopKind::ErrorExceeded, "error exceeds the standard"},
        {StopKind::Cancelled, "cancelled"}, {StopKind::Failed, "failed"}};
    return nameOf(kStopKinds, k);
}

}  // namespace opscope::gui
