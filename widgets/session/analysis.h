// The accuracy analysis behind the charts and the metrics table: each output against the
// baseline under every standard. Runs on a pool thread; a pure function of its inputs.
#pragma once

#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/metrics.h"
#include "session/session_types.h"

namespace opscope::gui {

// The standards shown in the metrics table: `primary` first, then the other builtins.
std::vector<metrics::Standard> standardsToShow(const metrics::Standard& primary);

// Every output is judged through ops::compareOutputs (the CLI's evaluation); one the baseline
// lacks, or whose element count differs, is listed as not judged with the reason (and the
// overall verdict is then never a pass). Dtypes come from `outputs`, named `actualName` in the
// comparisons ("opscope" for a run's outputs). Scatter samples hold at most maxSamples points.
AnalysisReport analyzeOutputs(const TensorMap& outputs, const TensorMap& baseline,
                              const std::vector<metrics::Standard>& standards, const std::string& baselineName,
                              int64_t maxSamples = 4000, const std::string& actualName = "opscope");

// The call whose outputs are judged, as it ran: what a failing device's other arithmetics are
// tried on (ops::deviceArithmetic).
struct CallAsRun {
    const ops::Operator* op = nullptr;
    ops::OpArguments args;
    Product product = Product::AtlasA2;
};

// When the baseline is the golden: each device source (an actual source such as msprobe's npu/)
// judged against it under the report's standard, and with OpScope's comparisons the device
// verdict (ops::deviceVerdict, with ops::deviceArithmetic for a failing device, as opscope-cli
// run prints it) in report->device.
void judgeDevices(AnalysisReport* report, const std::vector<cases::OutputSource>& devices, const TensorMap& golden,
                  const metrics::Standard& standard, const CallAsRun& call);

}  // namespace opscope::gui
