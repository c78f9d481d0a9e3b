// One evaluation of outputs for the CLI and the debugger (see evaluation.h).
#include "opscope/ops/evaluation.h"

#include <algorithm>

#include "opscope/error.h"
#include "opscope/names.h"
#include "opscope/metric_fields.h"

namespace opscope::ops {
namespace {

std::string describe(DType dtype, const std::vector<int64_t>& shape) {
    return std::string(dtypeName(dtype)) + shapeToString(shape);
}

// A standard named by the caller is a usage error; one a case file names is the case's content.
template <class ErrorOfOrigin>
metrics::Standard parseFrom(const std::string& spec, const char* origin) {
    try {
        return metrics::parseStandard(spec);
    } catch (const UsageError& e) {
        throw ErrorOfOrigin(std::string(origin) + ": " + e.what());
    }
}

}  // namespace

metrics::Standard resolveStandard(const std::string& explicitSpec, const std::string& caseSpec,
                                  const std::string& opName) {
    if (!explicitSpec.empty()) return parseFrom<UsageError>(explicitSpec, "the chosen standard");
    if (!caseSpec.empty()) return parseFrom<ContentError>(caseSpec, "the case's 'standard' attribute");
    return metrics::parseStandard(metrics::defaultStandardName(opName));
}

DType judgedDtype(DType d) {
    return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 || d == DType::Float64 ? d
                                                                                                     : DType::Float32;
}

DType judgedDtype(const HostTensor& actual) { return judgedDtype(actual.dtype()); }

Comparison comparePair(const std::string& output, const std::string& actualName, DType actualDtype,
                       const std::vector<int64_t>& actualShape, const std::string& referenceName, DType referenceDtype,
                       const std::vector<int64_t>& referenceShape, const metrics::Standard& standard,
                       const std::function<metrics::ComparisonMetrics()>& measure) {
    auto named = [&](const std::string& source) { return output.empty() ? source : source + "/" + output; };
    if (shapeNumel(actualShape) != shapeNumel(referenceShape))
        return notCompared(output, actualName, referenceName,
                           named(referenceName) + " is " + describe(referenceDtype, referenceShape) + " but " +
                               named(actualName) + " is " + describe(actualDtype, actualShape) +
                               ": the element counts differ",
                           standard);
    Comparison c;
    c.output = output;
    c.actual = actualName;
    c.reference = referenceName;
    try {
        c.metrics = measure();
    } catch (const UsageError& e) {
        return notCompared(output, actualName, referenceName, e.what(), standard);
    }
    c.judgement = standard.judge(c.metrics);
    return c;
}

Comparison compareOutput(const std::string& output, const std::string& actualName, const HostTensor& actual,
                         const std::string& referenceName, const HostTensor& reference, DType outputDtype,
                         const metrics::Standard& standard) {
    return comparePair(output, actualName, actual.dtype(), actual.shape(), referenceName, reference.dtype(),
                       reference.shape(), standard,
                       [&] { return metrics::compare(actual, reference, outputDtype, standard.options); });
}

Comparison notCompared(const std::string& output, const std::string& actualName, const std::string& referenceName,
                       const std::string& note, const metrics::Standard& standard) {
    Comparison c;
    c.output = output;
    c.actual = actualName;
    c.reference = referenceName;
    c.compared = c.judged = false;
    c.note = note;
    c.judgement.standard = standard.name;
    c.judgement.verdict = metrics::Verdict::Fail;
    c.judgement.reason = "not judged: " + c.note;
    return c;
}

Comparison missingOutput(const std::string& output, const std::string& actualName, const std::string& referenceName,
                         const std::string& lacking, const metrics::Standard& standard) {
    return notCompared(output, actualName, referenceName, lacking + " has no '" + output + "'", standard);
}

std::vector<Comparison> compareOutputs(const std::map<std::string, HostTensor>& outputs, const std::string& actualName,
                                       const std::map<std::string, HostTensor>& reference,
                                       const std::string& referenceName, const metrics::Standard& standard) {
    std::vector<Comparison> out;
    for (const auto& [name, actual] : outputs) {
        auto ref = reference.find(name);
        if (ref == reference.end()) {
            out.push_back(missingOutput(name, actualName, referenceName, referenceName, standard));
            continue;
        }
        out.push_back(
            compareOutput(name, actualName, actual, referenceName, ref->second, judgedDtype(actual), standard));
    }
    return out;
}

Overall overallOf(const std::vector<Comparison>& comparisons) {
    bool anyNotCompared = false;
    for (const Comparison& c : comparisons) {
        if (c.judged && !c.judgement.passed()) return Overall::Fail;
        anyNotCompared = anyNotCompared || !c.compared;
    }
    return anyNotCompared ? Overall::NotJudged : Overall::Pass;
}

const char* overallName(Overall o) {
    static constexpr Named<Overall> kOveralls[] = {
        {Overall::Pass, "pass"}, {Overall::Fail, "fail"}, {Overall::NotJudged, "not judged"}};
    return nameOf(kOveralls, o);
}

void writeComparisonJson(JsonWriter& w, const Comparison& c) {
    w.beginObject();
    w.field("output", c.output).field("actual", c.actual).field("reference", c.reference);
    w.field("compared", c.compared).field("judged", c.judged);
    if (!c.note.empty()) w.field("note", c.note);
    w.field("standard", c.judgement.standard);
    w.field("verdict", c.compared ? metrics::verdictName(c.judgement.verdict) : "not judged");
    w.field("reason", c.judgement.reason);
    w.key("metrics");
    if (c.compared)
        metrics::writeMetricsJson(w, c.metrics);
    else
        w.null();
    w.endObject();
}

const char* deviceVerdictName(DeviceVerdict::Kind k) {
    using Kind = DeviceVerdict::Kind;
    static constexpr Named<Kind> kKinds[] = {{Kind::DeviceFails, "device fails"},
                                             {Kind::Agree, "emulation and device agree"},
                                             {Kind::BothFail, "both fail"},
                                             {Kind::EmulationFails, "emulation fails"},
                                             {Kind::OtherSettings, "device ran other settings"}};
    return nameOf(kKinds, k, "no device outputs");
}

DeviceVerdict deviceVerdict(const std::vector<Comparison>& comparisons, const std::optional<OtherArithmetic>& ran) {
    DeviceVerdict v;
    std::string deviceFailures, emulationFailures;
    bool anyDevice = false;
    for (const Comparison& c : comparisons) {
        if (!c.judged || c.reference != kGolden) continue;
        const bool device = c.actual != "opscope";
        anyDevice = anyDevice || device;
        if (c.judgement.passed()) continue;
        std::string& list = device ? deviceFailures : emulationFailures;
        list += (list.empty() ? "" : ", ") + c.actual + "/" + c.output + " (" + c.judgement.reason + ")";
    }
    if (!anyDevice) return v;
    using K = DeviceVerdict::Kind;
    if (!deviceFailures.empty() && emulationFailures.empty() && ran) {
        v.kind = K::OtherSettings;
        v.line = "device ran other settings: " + deviceFailures + "; with " + ran->label +
                 " every device output passes: " + ran->advice;
    } else if (!deviceFailures.empty() && emulationFailures.empty()) {
        v.kind = K::DeviceFails;
        v.line = "device fails: " + deviceFailures + "; the emulation passes on the same inputs";
    } else if (deviceFailures.empty() && emulationFailures.empty()) {
        v.kind = K::Agree;
        v.line = "emulation and device agree: every output passes";
    } else if (!deviceFailures.empty()) {
        v.kind = K::BothFail;
        v.line = "both fail: " + deviceFailures + "; opscope " + emulationFailures +
                 " too, so the inputs are the problem (non-finite values, cancellation or a damaged dump)";
    } else {
        v.kind = K::EmulationFails;
        v.line = "emulation fails: " + emulationFailures + "; the device passes";
    }
    return v;
}

std::vector<Comparison> judgeActualSources(const std::vector<cases::OutputSource>& sources,
                                           const std::map<std::string, HostTensor>& golden,
                                           const metrics::Standard& standard) {
    std::vector<Comparison> out;
    for (const cases::OutputSource& source : sources) {
        if (source.role != cases::SourceRole::Actual) continue;
        const std::map<std::string, HostTensor> tensors(source.tensors.begin(), source.tensors.end());
        for (Comparison& c : compareOutputs(tensors, source.name, golden, kGolden, standard))
            out.push_back(std::move(c));
    }
    return out;
}

std::optional<OtherArithmetic> deviceArithmetic(const std::vector<Comparison>& comparisons, const Operator& op,
                                                const OpArguments& args, Product product,
                                                const std::vector<cases::OutputSource>& sources,
                                                const metrics::Standard& standard) {
    if (deviceVerdict(comparisons).kind != DeviceVerdict::Kind::DeviceFails) return std::nullopt;
    for (const ArithmeticVariant& variant : op.arithmeticVariants(args, product)) {
        const std::vector<Comparison> device =
            judgeActualSources(sources, op.reference(variant.args, variant.product.value_or(product)), standard);
        const auto judged = [](const Comparison& c) { return c.judged; };
        const bool passes = std::all_of(device.begin(), device.end(),
                                        [](const Comparison& c) { return !c.judged || c.judgement.passed(); });
        if (passes && std::any_of(device.begin(), device.end(), judged))
            return OtherArithmetic{variant.label, variant.advice};
    }
    return std::nullopt;
}

}  // namespace opscope::ops
