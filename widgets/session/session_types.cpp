#include "session/session_types.h"

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
    switch (k) {
        case StopKind::None: return "ready";
        case StopKind::End: return "finished";
        case StopKind::Step: return "stepped";
        case StopKind::Breakpoint: return "breakpoint";
        case StopKind::NonFinite: return "NaN/Inf";
        case StopKind::ErrorExceeded: return "error exceeds the standard";
        case StopKind::Cancelled: return "cancelled";
        case StopKind::Failed: return "failed";
    }
    return "?";
}

}  // namespace opscope::gui
