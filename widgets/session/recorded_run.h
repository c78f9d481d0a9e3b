// A recorded executor (a trace at any level) as the plan and step states the Steps panel shows:
// what a trace recorded at level "stats" or "metadata" holds (steps, what they read and wrote,
// durations, statistics) is browsable even though it has no values to replay.
#pragma once

#include <vector>

#include "opscope/trace.h"
#include "session/session_types.h"

namespace opscope::gui {

struct RecordedRun {
    PlanInfo plan;
    std::vector<StepState> steps;  // one per recorded step: Done, with its duration and statistics
};

// Slots: the inputs, then the outputs, then every other tensor a step names (scratch), with the
// dtype and shape recorded for them.
RecordedRun recordedRun(const ExecutorTrace& trace);

}  // namespace opscope::gui
