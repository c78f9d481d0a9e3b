// DebugContext: a recorded executor shown without an executor to run (a trace at level stats
// or metadata), so its steps, timings and per-step statistics are browsable.
#include "opscope/h5/h5_file.h"
#include "opscope/h5/vetting.h"
#include "session/debug_context.h"
#include "session/gui_invoke.h"
#include "session/recorded_run.h"

namespace opscope::gui {

void DebugContext::showRecordedRun(const QString& executorPath) {
    std::size_t index = 0;
    if (!file_ || !isTrace_ || !parseTraceExecutorPath(executorPath.toStdString(), &index)) return;
    const std::string file = filePath_.toStdString();
    const uint64_t gen = generation_;
    beginBackground(QString("Reading %1").arg(executorPath));
    runInBackground<RecordedRun>(
        this,
        [file, index] {
            h5::vetFile(file);
            return recordedRun(readTraceExecutor(h5::File::openReadOnly(file), index));
        },
        [this, gen, executorPath](RecordedRun run, QString error) {
            endBackground();
            if (gen != generation_) return;  // another case or file since
            if (!error.isEmpty()) return Q_EMIT statusMessage(error, true);
            clearPlan();
            plan_ = std::move(run.plan);
            steps_ = std::move(run.steps);
            next_ = steps_.size();
            recordedOnly_ = true;
            Q_EMIT planChanged();
            Q_EMIT positionChanged(next_);
            Q_EMIT statusMessage(QString("%1: %2 recorded steps shown (statistics and timings; it cannot be replayed)")
                                     .arg(executorPath)
                                     .arg(steps_.size()),
                                 false);
        });
}

}  // namespace opscope::gui
