#include "session/analysis.h"

namespace opscope::gui {

std::vector<metrics::Standard> standardsToShow(const metrics::Standard& primary) {
    std::vector<metrics::Standard> out{primary};
    for (const metrics::Standard& s : metrics::builtinStandards())
        if (s.name != primary.name) out.push_back(s);
    return out;
}

AnalysisReport analyzeOutputs(const TensorMap& outputs, const TensorMap& baseline,
                              const std::vector<metrics::Standard>& standards, const std::string& baselineName,
                              int64_t maxSamples, const std::string& actualName) {
    AnalysisReport report;
    report.baselineName = baselineName;
    if (standards.empty()) return report;
    report.standard = standards.front().name;
    report.comparisons = ops::compareOutputs(outputs, actualName, baseline, baselineName, standards.front());
    for (const ops::Comparison& c : report.comparisons) {
        const HostTensor& actual = outputs.at(c.output);
        OutputAnalysis a;
        a.output = c.output;
        a.dtype = ops::judgedDtype(actual);
        a.shape = actual.shape();
        a.compared = c.compared;
        a.note = c.note;
        a.metrics = c.metrics;
        a.judgements.push_back(c.judgement);
        if (!c.compared) {
            report.outputs.push_back(std::move(a));
            continue;
        }
        const HostTensor& ref = baseline.at(c.output);
        for (std::size_t i = 1; i < standards.size(); ++i)
            a.judgements.push_back(
                ops::compareOutput(c.output, actualName, actual, baselineName, ref, a.dtype, standards[i]).judgement);
        metrics::ErrorSummary e =
            metrics::summarizeErrors(actual, ref, a.dtype, metrics::logTolerances(-8, 0, 4), maxSamples);
        a.perAxis = std::move(e.perAxis);
        a.absHistogram = std::move(e.absHistogram);
        a.relHistogram = std::move(e.relHistogram);
        a.relShares = std::move(e.relShares);
        a.absShares = std::move(e.absShares);
        a.sampleRef = std::move(e.sampleRef);
        a.sampleAbs = std::move(e.sampleAbs);
        a.sampleRel = std::move(e.sampleRel);
        report.outputs.push_back(std::move(a));
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

}  // namespace opscope::gui
