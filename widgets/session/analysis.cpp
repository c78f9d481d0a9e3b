#include "session/analysis.h"

#include <algorithm>
#include <memory>

#include "opscope/error.h"

namespace opscope::gui {

std::vector<metrics::Standard> standardsToShow(const metrics::Standard& primary) {
    std::vector<metrics::Standard> out{primary};
    for (const metrics::Standard& s : metrics::builtinStandards())
        if (s.name != primary.name) out.push_back(s);
    return out;
}

namespace {

struct Cancelled {};

bool sameOptions(const metrics::CompareOptions& a, const metrics::CompareOptions& b) {
    return a.roundReference == b.roundReference && a.relativeGuard == b.relativeGuard &&
           a.checkTolerance == b.checkTolerance && a.rtol == b.rtol && a.atol == b.atol;
}

}  // namespace

std::optional<PairAnalysis> analyzePair(const std::string& output, const std::string& actualName,
                                        const ops::TensorHandle& actual, const std::string& baselineName,
                                        const ops::TensorHandle& baseline,
                                        const std::vector<metrics::Standard>& standards, const PassControl& control) {
    if (standards.empty()) throw UsageError("analyzePair needs a standard");
    const DType dtype = ops::judgedDtype(actual.dtype);
    // One accumulator per distinct set of options: the builtin standards share one.
    std::vector<std::size_t> accumulatorOf(standards.size());
    std::vector<std::unique_ptr<metrics::ComparisonAccumulator>> passes;
    std::vector<metrics::ComparisonMetrics> measured;
    PairAnalysis out;
    try {
        out.comparison = ops::comparePair(
            output, actualName, actual.dtype, actual.shape, baselineName, baseline.dtype, baseline.shape,
            standards.front(), [&] {
                for (std::size_t i = 0; i < standards.size(); ++i) {
                    std::size_t k = 0;
                    while (k < i && !sameOptions(standards[k].options, standards[i].options)) ++k;
                    accumulatorOf[i] = k == i ? passes.size() : accumulatorOf[k];
                    if (k == i)
                        passes.push_back(std::make_unique<metrics::ComparisonAccumulator>(actual.shape, dtype,
                                                                                          standards[i].options));
                }
                const bool done = ops::forEachBandPair(actual, baseline, control.bandBytes, control.cancelled,
                                                       [&](const HostTensor& a, const HostTensor& r, double share) {
                                                           for (auto& p : passes) p->add(a, r);
                                                           if (control.progress) control.progress(share);
                                                       });
                if (!done) throw Cancelled{};
                for (auto& p : passes) measured.push_back(p->finish());
                return measured[accumulatorOf.front()];
            });
    } catch (const Cancelled&) {
        return std::nullopt;
    }
    OutputAnalysis& a = out.analysis;
    const ops::Comparison& c = out.comparison;
    a.output = output;
    a.dtype = dtype;
    a.shape = actual.shape;
    a.compared = c.compared;
    a.note = c.note;
    a.metrics = c.metrics;
    a.judgements.push_back(c.judgement);
    if (!c.compared) return out;
    for (std::size_t i = 1; i < standards.size(); ++i)
        a.judgements.push_back(standards[i].judge(measured[accumulatorOf[i]]));
    return out;
}

std::optional<metrics::ErrorSummary> summarizePair(const ops::TensorHandle& actual, const ops::TensorHandle& baseline,
                                                   int64_t maxSamples, const PassControl& control) {
    metrics::ErrorSummaryAccumulator errors(actual.shape, ops::judgedDtype(actual.dtype),
                                            metrics::logTolerances(-8, 0, 4), maxSamples);
    const bool done = ops::forEachBandPair(actual, baseline, control.bandBytes, control.cancelled,
                                           [&](const HostTensor& a, const HostTensor& r, double share) {
                                               errors.add(a, r);
                                               if (control.progress) control.progress(share);
                                           });
    if (!done) return std::nullopt;
    return errors.finish();
}

void attachSummary(OutputAnalysis& a, metrics::ErrorSummary summary) {
    a.summarized = true;
    a.perAxis = std::move(summary.perAxis);
    a.absHistogram = std::move(summary.absHistogram);
    a.relHistogram = std::move(summary.relHistogram);
    a.relShares = std::move(summary.relShares);
    a.absShares = std::move(summary.absShares);
    a.sampleRef = std::move(summary.sampleRef);
    a.sampleAbs = std::move(summary.sampleAbs);
    a.sampleRel = std::move(summary.sampleRel);
}

AnalysisReport analyzeOutputs(const TensorMap& outputs, const TensorMap& baseline,
                              const std::vector<metrics::Standard>& standards, const std::string& baselineName,
                              int64_t maxSamples, const std::string& actualName) {
    AnalysisReport report;
    report.baselineName = baselineName;
    if (standards.empty()) return report;
    report.standard = standards.front().name;
    PassControl whole;  // the tensors are held: each pair in one block
    whole.bandBytes = UINT64_MAX;
    for (const auto& [name, actual] : outputs) {
        const auto ref = baseline.find(name);
        if (ref == baseline.end()) {
            report.comparisons.push_back(
                ops::missingOutput(name, actualName, baselineName, baselineName, standards.front()));
            OutputAnalysis a;
            a.output = name;
            a.dtype = ops::judgedDtype(actual);
            a.shape = actual.shape();
            a.compared = false;
            a.note = report.comparisons.back().note;
            a.judgements.push_back(report.comparisons.back().judgement);
            report.outputs.push_back(std::move(a));
            continue;
        }
        const ops::TensorHandle a = ops::heldTensor(actual), b = ops::heldTensor(ref->second);
        std::optional<PairAnalysis> p = analyzePair(name, actualName, a, baselineName, b, standards, whole);
        if (p->analysis.compared) attachSummary(p->analysis, *summarizePair(a, b, maxSamples, whole));
        report.comparisons.push_back(std::move(p->comparison));
        report.outputs.push_back(std::move(p->analysis));
    }
    return report;
}

void judgeDevices(AnalysisReport* report, const std::vector<cases::OutputSource>& devices, const TensorMap& golden,
                  const metrics::Standard& standard, const CallAsRun& call) {
    std::vector<ops::Comparison> all = report->comparisons;
    for (ops::Comparison& c : all) c.reference = ops::kGolden;
    for (ops::Comparison& c : ops::judgeActualSources(devices, golden, standard)) all.push_back(std::move(c));
    report->device = ops::deviceVerdict(
        all, call.op ? ops::deviceArithmetic(all, *call.op, call.args, call.product, devices, standard) : std::nullopt);
}

std::string storedOutputsNote(const cases::Case* c, const std::vector<std::string>& changed) {
    if (!c || c->sources.empty() || changed.empty()) return "";
    std::string names, sources;
    for (const std::string& n : changed) names += (names.empty() ? "" : ", ") + n;
    for (const cases::OutputSource& src : c->sources) sources += (sources.empty() ? "" : ", ") + src.name + "/";
    const bool device = std::any_of(c->sources.begin(), c->sources.end(),
                                    [](const cases::OutputSource& s) { return s.role == cases::SourceRole::Actual; });
    return "Changed since the case was loaded: " + names + ". The case's stored outputs (" + sources +
           ") are of the call as loaded" + (device ? ", so the device is not judged against this run" : "") +
           "; load the case again to judge them.";
}

}  // namespace opscope::gui
