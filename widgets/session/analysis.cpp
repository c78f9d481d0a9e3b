#include "session/analysis.h"

#include <cmath>

#include "opscope/view/slice.h"

namespace opscope::gui {

std::vector<metrics::Standard> standardsToShow(const metrics::Standard& primary) {
    std::vector<metrics::Standard> out{primary};
    for (const metrics::Standard& s : metrics::builtinStandards())
        if (s.name != primary.name) out.push_back(s);
    return out;
}

AnalysisReport analyzeOutputs(const TensorMap& outputs, const TensorMap& baseline,
                              const std::vector<metrics::Standard>& standards, const std::string& baselineName,
                              int64_t maxSamples) {
    AnalysisReport report;
    report.baselineName = baselineName;
    report.standard = standards.empty() ? std::string() : standards.front().name;
    for (const auto& [name, actual] : outputs) {
        auto ref = baseline.find(name);
        if (ref == baseline.end() || ref->second.numel() != actual.numel()) continue;
        OutputAnalysis a;
        a.output = name;
        a.dtype = isFloatingType(actual.dtype()) ? actual.dtype() : DType::Float32;
        a.shape = actual.shape();
        a.metrics = metrics::compare(actual, ref->second, a.dtype,
                                     standards.empty() ? metrics::CompareOptions{} : standards.front().options);
        for (std::size_t i = 0; i < standards.size(); ++i)
            a.judgements.push_back(standards[i].judge(
                i == 0 ? a.metrics : metrics::compare(actual, ref->second, a.dtype, standards[i].options)));
        a.maps = metrics::errorMaps(actual, ref->second, a.dtype);
        a.absHistogram = metrics::logHistogram(a.maps.absError);
        a.relHistogram = metrics::logHistogram(a.maps.relError);
        const std::vector<double> tol = metrics::logTolerances(-8, 0, 4);
        a.relShares = metrics::cumulativeShare(a.maps.relError, tol);
        a.absShares = metrics::cumulativeShare(a.maps.absError, tol);
        const HostTensor rounded = metrics::roundedTo(ref->second, a.dtype);
        for (int64_t i : view::sampleIndices(actual.numel(), maxSamples)) {
            const double e = a.maps.absError.getAsDouble(i);
            if (!std::isfinite(e)) continue;
            a.sampleRef.push_back(std::fabs(rounded.getAsDouble(i)));
            a.sampleAbs.push_back(e);
            a.sampleRel.push_back(a.maps.relError.getAsDouble(i));
        }
        report.outputs.push_back(std::move(a));
    }
    return report;
}

}  // namespace opscope::gui
