// How an output is judged, once, for the CLI (run, compare) and the debugger (on its worker
// thread): which standard applies, each output against one reference with the metrics and the
// judgement, and why an output could not be judged. The float64 result OpScope computes from
// the inputs is called "golden" everywhere; a stored output source ("expected", "npu", ...) is
// called by its name.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <optional>

#include "opscope/case_file.h"
#include "opscope/host_tensor.h"
#include "opscope/json_writer.h"
#include "opscope/metrics.h"
#include "opscope/ops/operator.h"

namespace opscope::ops {

inline constexpr const char* kGolden = "golden";

// The standard that judges a call: the explicit choice (--standard, the debugger's picker), else
// the case's `standard` attribute, else the operator's default. A malformed choice throws
// UsageError, a malformed attribute ContentError, each naming which of them it is.
metrics::Standard resolveStandard(const std::string& explicitSpec, const std::string& caseSpec,
                                  const std::string& opName);

// One output (or an actual source's tensor) against one reference.
struct Comparison {
    std::string output;     // "gradInput"
    std::string actual;     // "opscope", or an actual source's name ("npu")
    std::string reference;  // "golden", "expected", "trace", ...
    bool compared = true;   // false: could not be compared (element counts differ, the reference
                            // lacks the output); `note` says why, and the call cannot pass
    bool judged = true;     // false: not judged (not compared, or shown for information only)
    std::string note;
    metrics::ComparisonMetrics metrics;
    metrics::Judgement judgement;
};

// Never throws for the data: a count mismatch or a non-numeric tensor gives compared = false and
// the reason. `outputDtype` is what the metrics round the reference to. Messages name a tensor
// "<source>/<output>", or by its source name alone when `output` is empty (two tensors compared
// on their own, as 'compare' does).
Comparison compareOutput(const std::string& output, const std::string& actualName, const HostTensor& actual,
                         const std::string& referenceName, const HostTensor& reference, DType outputDtype,
                         const metrics::Standard& standard);

// compareOutput's rules for a pair known by dtype and shape whose metrics `measure` makes (the
// whole pair's compare, or a streamed one): the element counts checked first, a UsageError from
// `measure` a not-compared note, the metrics judged by the standard.
Comparison comparePair(const std::string& output, const std::string& actualName, DType actualDtype,
                       const std::vector<int64_t>& actualShape, const std::string& referenceName, DType referenceDtype,
                       const std::vector<int64_t>& referenceShape, const metrics::Standard& standard,
                       const std::function<metrics::ComparisonMetrics()>& measure);

// The dtype an output is judged in: its own when it is fp16/bf16/fp32/fp64, else float32.
DType judgedDtype(DType actual);
DType judgedDtype(const HostTensor& actual);

// A comparison that could not be made (an output one side lacks, `note` says which): not
// compared, not judged, never a pass.
Comparison notCompared(const std::string& output, const std::string& actualName, const std::string& referenceName,
                       const std::string& note, const metrics::Standard& standard);

// notCompared for an output one side lacks: "<lacking> has no '<output>'" (`lacking` is the
// actual's or the reference's name).
Comparison missingOutput(const std::string& output, const std::string& actualName, const std::string& referenceName,
                         const std::string& lacking, const metrics::Standard& standard);

// Every tensor of `outputs` against the same-named tensor of `reference`; one Comparison each,
// in name order. An output the reference lacks is a Comparison with compared = false.
std::vector<Comparison> compareOutputs(const std::map<std::string, HostTensor>& outputs, const std::string& actualName,
                                       const std::map<std::string, HostTensor>& reference,
                                       const std::string& referenceName, const metrics::Standard& standard);

// Overall: Fail when a judged comparison failed; NotJudged when nothing failed but some output
// could not be compared (never a pass then); Pass otherwise.
enum class Overall { Pass, Fail, NotJudged };
Overall overallOf(const std::vector<Comparison>& comparisons);
const char* overallName(Overall o);  // "pass", "fail", "not judged"

// Which side is wrong when a device's outputs (an "actual" source such as msprobe's npu/) and
// OpScope's are both judged against the same float64 golden: the device fails, the two agree,
// or both fail (then the inputs are the problem: non-finite values, cancellation, a damaged
// dump). From the comparisons alone, so the CLI and the debugger say the same.
struct DeviceVerdict {
    enum class Kind {
        NoDevice,        // no actual source was judged against the golden
        DeviceFails,     // a device output fails its standard; the emulation passes
        Agree,           // the device and the emulation both pass
        BothFail,        // both fail: the inputs are the problem
        EmulationFails,  // the device passes but OpScope does not (an OpScope problem)
        OtherSettings,   // the device fails the case's golden but passes in another arithmetic
    };
    Kind kind = Kind::NoDevice;
    std::string line;  // "device fails: npu/gradWeight (...); the emulation passes on the same inputs"
};
const char* deviceVerdictName(DeviceVerdict::Kind k);  // "device fails", "emulation and device agree", ...
// Every tensor of every actual source (a device's outputs, such as msprobe's npu/) against the
// same-named output of `golden` (compareOutputs), in source order; one the golden lacks is a
// comparison that was not judged.
std::vector<Comparison> judgeActualSources(const std::vector<cases::OutputSource>& sources,
                                           const std::map<std::string, HostTensor>& golden,
                                           const metrics::Standard& standard);

// The arithmetic a failing device ran instead of the case's (deviceArithmetic).
struct OtherArithmetic {
    std::string label, advice;  // ArithmeticVariant's
};

// Looks at the judged comparisons against kGolden: actual "opscope" is the emulation, any other
// actual a device. A device that fails while the emulation passes is "device fails", unless
// `ran` says it passes in another arithmetic (then OtherSettings, with the advice).
DeviceVerdict deviceVerdict(const std::vector<Comparison>& comparisons, const std::optional<OtherArithmetic>& ran = {});

// When `comparisons` say "device fails" (deviceVerdict): the first of the operator's
// arithmeticVariants whose golden every output of every actual source passes (a float32
// convolution dumped with torch_npu.npu.conv.allow_hf32 off and imported as on, or the reverse);
// otherwise nothing. Computes one golden per variant tried, only for a failing device. The CLI
// (runCase) and the debugger (its analysis) both ask here.
std::optional<OtherArithmetic> deviceArithmetic(const std::vector<Comparison>& comparisons, const Operator& op,
                                                const OpArguments& args, Product product,
                                                const std::vector<cases::OutputSource>& sources,
                                                const metrics::Standard& standard);

// A comparison as a JSON object, the one schema reports and session files share: output, actual,
// reference, compared, judged, note (when there is one), standard, verdict ("not judged" when it
// was not compared), reason, metrics (metrics::writeMetricsJson; null when not compared).
void writeComparisonJson(JsonWriter& w, const Comparison& c);

}  // namespace opscope::ops
