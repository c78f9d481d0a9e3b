// The accuracy analysis behind the charts and the metrics table: each output against the
// baseline under every standard. Runs on a pool thread; a pure function of its inputs.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/metrics.h"
#include "opscope/ops/tensor_sets.h"
#include "session/session_types.h"

namespace opscope::gui {

// The standards shown in the metrics table: `primary` first, then the other builtins.
std::vector<metrics::Standard> standardsToShow(const metrics::Standard& primary);

// How one pass over a pair goes: the size of a band of each side, a flag asked between bands,
// and the share of the pair passed after each band.
struct PassControl {
    uint64_t bandBytes = ops::kCompareBandBytes;
    const std::atomic<bool>* cancelled = nullptr;
    std::function<void(double)> progress;
};

// One output against its baseline, judged as ops::compareTensors judges it (to the same bits),
// under every standard of `standards` (the first is `comparison`'s), in one pass over the pair
// (ops::forEachBandPair), so a pair of 10 GiB tensors costs a band of each. An element-count
// mismatch is not compared, with the reason. Nothing when cancelled between bands; read errors
// (FileError) propagate. The charts' data is summarizePair's, in a pass of its own: the verdict
// does not wait for it.
struct PairAnalysis {
    ops::Comparison comparison;
    OutputAnalysis analysis;  // without the charts' data (attachSummary)
};
std::optional<PairAnalysis> analyzePair(const std::string& output, const std::string& actualName,
                                        const ops::TensorHandle& actual, const std::string& baselineName,
                                        const ops::TensorHandle& baseline,
                                        const std::vector<metrics::Standard>& standards,
                                        const PassControl& control = {});

// What the charts draw of a pair analyzePair compared (metrics::ErrorSummaryAccumulator, in the
// actual's judged dtype; scatter samples hold at most maxSamples points), in one pass over it;
// nothing when cancelled between bands.
std::optional<metrics::ErrorSummary> summarizePair(const ops::TensorHandle& actual, const ops::TensorHandle& baseline,
                                                   int64_t maxSamples, const PassControl& control = {});
// Puts a summary's charts data into the analysis of its output.
void attachSummary(OutputAnalysis& analysis, metrics::ErrorSummary summary);

// Every output of `outputs` judged by analyzePair against the same-named baseline tensor, with
// its summarizePair, in name order; one the baseline lacks is not judged (ops::missingOutput), and the overall verdict
// is then never a pass. Outputs are named `actualName` in the comparisons ("opscope" for a
// run's outputs). Scatter samples hold at most maxSamples points.
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

// Why the case's stored outputs do not judge this run when the call was changed since the case
// loaded (`changed`: DebugContext::changedFromCase); "" when nothing changed or the case stores
// no outputs.
std::string storedOutputsNote(const cases::Case* c, const std::vector<std::string>& changed);

}  // namespace opscope::gui
