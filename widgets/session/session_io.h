// Keeping a session: the results, metrics and trace of a run in one HDF5 file (an OpScope
// trace with a /session group, so it reopens as a replayable case), and the report as CSV or
// JSON. Every file is written beside its destination and renamed into place.
#pragma once

#include <QByteArray>
#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "opscope/h5/h5_file.h"
#include "opscope/ops/operator.h"
#include "session/session_types.h"

namespace opscope::gui {

// Everything a report needs, copied out of the context on the GUI thread.
struct SessionSnapshot {
    PlanInfo plan;
    std::string inputFile, casePath;
    std::vector<StepState> steps;
    std::shared_ptr<const TensorMap> outputs;  // at the end of the run
    TensorMapPtr baseline;
    AnalysisPtr analysis;
};

// Writes /session (attributes, outputs/, reference/, metrics/<output> with one attribute per
// metric and verdict) into an open, writable file.
void writeSessionGroup(h5::File& file, const SessionSnapshot& s);

// On the worker thread: replays the prepared call from step 0 recording a full trace into
// `path` (created), appends the /session group, and runs the executor back to `resumeAt`.
void saveSessionOnWorker(ops::PreparedCall& call, const std::string& path, const SessionSnapshot& s,
                         std::size_t resumeAt);

// The report: one row per (output, metric) / (output, standard) in CSV; a JSON document with
// the plan, the steps and the analysis.
QByteArray reportCsv(const SessionSnapshot& s);
QByteArray reportJson(const SessionSnapshot& s);

// Writes bytes atomically; refuses to replace any of `inputs`. Throws std::runtime_error.
void writeFileAtomically(const std::string& path, const QByteArray& bytes, const std::vector<std::string>& inputs);

}  // namespace opscope::gui
