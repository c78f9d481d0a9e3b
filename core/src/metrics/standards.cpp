// The pass/fail standards as data: name, rule text, thresholds and the verdict function.
#include <cmath>
#include <stdexcept>

#include "opscope/error.h"
#include "opscope/metrics.h"
#include "opscope/names.h"
#include "opscope/printf_text.h"

namespace opscope::metrics {
namespace {

std::string num(double v) { return printfText("%.3g", v); }

// Element values need more digits than error sizes to tell them apart.
std::string val(double v) { return printfText("%.7g", v); }

std::string percent(double share) { return printfText("%.3f%%", share * 100.0); }

std::string coords(const ElementRef& e) {
    std::string s = "[";
    for (std::size_t i = 0; i < e.coords.size(); ++i) s += (i ? ", " : "") + std::to_string(e.coords[i]);
    return s + "]";
}

Judgement verdict(Verdict v, const std::string& standard, std::string reason) {
    return Judgement{v, standard, std::move(reason)};
}

// Every standard fails on NaN/Inf appearing on one side only.
bool nonFiniteFailure(const ComparisonMetrics& m, const std::string& standard, Judgement* out) {
    if (m.nonFiniteMismatches == 0) return false;
    const ElementRef& e = m.firstMismatch;
    *out =
        verdict(Verdict::Fail, standard,
                std::to_string(m.nonFiniteMismatches) + " NaN/Inf mismatch" + (m.nonFiniteMismatches > 1 ? "es" : "") +
                    " (first at " + coords(e) + ": " + val(e.actual) + " vs " + val(e.reference) + ")");
    return true;
}

constexpr Named<DType> kShortDtypes[] = {
    {DType::Float16, "fp16"}, {DType::BFloat16, "bf16"}, {DType::Float64, "fp64"}, {DType::Float32, "fp32"}};

const char* shortDtype(DType d) { return nameOf(kShortDtypes, d, "fp32"); }

Judgement judgeCann(const ComparisonMetrics& m) {
    const std::string name = "cann";
    Judgement j;
    if (nonFiniteFailure(m, name, &j)) return j;
    const double t = tolerancesFor(m.outputDtype).cannThreshold;
    const bool meanOk = m.meanRelError < t;
    const bool maxOk = m.maxRelError < 10 * t;
    const std::string tName = std::string("T(") + shortDtype(m.outputDtype) + ")";
    std::string reason = "mean rel " + num(m.meanRelError) + (meanOk ? " < " : " >= ") + tName + "=" + num(t) +
                         ", max rel " + num(m.maxRelError) + (maxOk ? " < " : " >= ") + "10T=" + num(10 * t);
    if (!maxOk) reason += " at " + coords(m.worstRel);
    return verdict(meanOk && maxOk ? Verdict::Pass : Verdict::Fail, name, reason);
}

Judgement judgeDualThousandth(const ComparisonMetrics& m) {
    const std::string name = "dual-thousandth";
    Judgement j;
    if (nonFiniteFailure(m, name, &j)) return j;
    const bool ok = m.shareRelBelow1e3 > 0.999;
    std::string reason =
        percent(m.shareRelBelow1e3) + " of elements within rel 1e-3 (" + (ok ? "> " : "<= ") + "99.9%)";
    if (!ok) reason += ", worst " + num(m.maxRelError) + " at " + coords(m.worstRel);
    return verdict(ok ? Verdict::Pass : Verdict::Fail, name, reason);
}

Judgement judgeMsprobeLegacy(const ComparisonMetrics& m) {
    const std::string name = "msprobe-legacy";
    Judgement j;
    if (nonFiniteFailure(m, name, &j)) return j;
    if (!(m.cosine > 0.99)) return verdict(Verdict::Fail, name, "cosine " + num(m.cosine) + " <= 0.99");
    if (m.maxAbsError < 1e-3)
        return verdict(Verdict::Pass, name,
                       "cosine " + num(m.cosine) + " > 0.99 and max abs " + num(m.maxAbsError) + " < 1e-3");
    const std::string head = "cosine " + num(m.cosine) + ", max abs " + num(m.maxAbsError) + " >= 1e-3; ";
    const bool low = m.outputDtype == DType::Float16 || m.outputDtype == DType::BFloat16;
    if (low) {
        if (!(m.shareRelBelow1e2 > 0.99))
            return verdict(Verdict::Fail, name, head + percent(m.shareRelBelow1e2) + " within rel 1e-2 (<= 99%)");
        if (m.shareRelBelow1e3 > 0.999)
            return verdict(Verdict::Pass, name, head + percent(m.shareRelBelow1e3) + " within rel 1e-3 (> 99.9%)");
        return verdict(Verdict::Warning, name,
                       head + percent(m.shareRelBelow1e2) + " within rel 1e-2 but only " + percent(m.shareRelBelow1e3) +
                           " within rel 1e-3 (<= 99.9%)");
    }
    if (!(m.shareRelBelow1e3 > 0.999))
        return verdict(Verdict::Fail, name, head + percent(m.shareRelBelow1e3) + " within rel 1e-3 (<= 99.9%)");
    if (!(m.shareRelBelow1e4 > 0.9999))
        return verdict(Verdict::Warning, name,
                       head + percent(m.shareRelBelow1e3) + " within rel 1e-3 but only " + percent(m.shareRelBelow1e4) +
                           " within rel 1e-4 (<= 99.99%)");
    return verdict(Verdict::Pass, name, head + percent(m.shareRelBelow1e4) + " within rel 1e-4 (> 99.99%)");
}

std::string toleranceName(double rtol, double atol) { return "rtol=" + num(rtol) + ",atol=" + num(atol); }

bool parseNumber(const std::string& text, double* out) {
    if (text.empty()) return false;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) return false;
    *out = v;
    return true;
}

const char* kAccepted =
    "standards are cann, dual-thousandth, msprobe-legacy, or a tolerance such as rtol=1e-3,atol=1e-5";

}  // namespace

namespace {
constexpr Named<Verdict> kVerdicts[] = {
    {Verdict::Pass, "pass"}, {Verdict::Warning, "warning"}, {Verdict::Fail, "fail"}};
}  // namespace

const char* verdictName(Verdict v) { return nameOf(kVerdicts, v, "fail"); }

std::optional<Verdict> verdictNamed(const std::string& name) { return valueNamed(name, kVerdicts); }

const std::vector<Standard>& builtinStandards() {
    static const std::vector<Standard> standards = [] {
        std::vector<Standard> s;
        s.push_back({"cann", "CANN single-benchmark",
                     "rel = |a - r| / (|r| + 1e-7) over finite pairs; pass when mean(rel) < T and max(rel) < 10*T, "
                     "T chosen by the output dtype; any NaN/Inf mismatch fails",
                     "T = 2^-10 (fp16), 2^-7 (bf16), 2^-13 (fp32)", CompareOptions{}, judgeCann});
        s.push_back({"dual-thousandth", "msprobe double-thousandth",
                     "pass when more than 99.9% of all elements have rel < 1e-3 (a matching NaN/Inf pair counts as "
                     "within); any NaN/Inf mismatch fails",
                     "rel < 1e-3 for > 99.9% of elements, every dtype", CompareOptions{}, judgeDualThousandth});
        s.push_back({"msprobe-legacy", "msprobe per-dtype (old standard)",
                     "fail when cosine <= 0.99; else pass when max abs < 1e-3; else fp16/bf16: fail unless > 99% "
                     "have rel < 1e-2, pass when > 99.9% have rel < 1e-3, warning otherwise; fp32: fail unless > 99.9% "
                     "have rel < 1e-3, warning unless > 99.99% have rel < 1e-4",
                     "cosine 0.99; max abs 1e-3; double hundredth 99% (fp16/bf16), double thousandth 99.9%, "
                     "double ten-thousandth 99.99% (fp32)",
                     CompareOptions{}, judgeMsprobeLegacy});
        return s;
    }();
    return standards;
}

Standard toleranceStandard(double rtol, double atol) {
    Standard s;
    s.name = toleranceName(rtol, atol);
    s.title = "user tolerance";
    s.formula =
        "pass when |a - r| <= atol + rtol*|r| for every finite pair and no NaN/Inf mismatch (numpy.allclose "
        "with equal_nan)";
    s.thresholds = "rtol = " + num(rtol) + ", atol = " + num(atol);
    s.options.checkTolerance = true;
    s.options.rtol = rtol;
    s.options.atol = atol;
    const std::string name = s.name;
    s.judge = [name, rtol, atol](const ComparisonMetrics& m) {
        Judgement j;
        if (nonFiniteFailure(m, name, &j)) return j;
        if (!m.toleranceChecked)
            return verdict(Verdict::Fail, name, "the metrics were computed without this tolerance");
        if (m.toleranceViolations == 0)
            return verdict(Verdict::Pass, name,
                           "every element within atol + rtol*|r| (max abs " + num(m.maxAbsError) + ")");
        const ElementRef& w = m.worstTolerance;
        return verdict(Verdict::Fail, name,
                       std::to_string(m.toleranceViolations) + " of " + std::to_string(m.count) +
                           " elements outside atol + rtol*|r|, worst at " + coords(w) + ": " + val(w.actual) + " vs " +
                           val(w.reference) + " (|a - r| " + num(w.absError) + " > limit " +
                           num(atol + rtol * std::fabs(w.reference)) + ")");
    };
    return s;
}

Standard parseStandard(const std::string& spec) {
    const std::string s = lowerCase(spec);
    static const std::pair<const char*, const char*> aliases[] = {{"cann", "cann"},
                                                                  {"cann-single", "cann"},
                                                                  {"single-benchmark", "cann"},
                                                                  {"cann-single-benchmark", "cann"},
                                                                  {"dual-thousandth", "dual-thousandth"},
                                                                  {"double-thousandth", "dual-thousandth"},
                                                                  {"thousandth", "dual-thousandth"},
                                                                  {"msprobe-thousandth", "dual-thousandth"},
                                                                  {"msprobe-legacy", "msprobe-legacy"},
                                                                  {"msprobe", "msprobe-legacy"},
                                                                  {"legacy", "msprobe-legacy"}};
    for (const auto& [alias, name] : aliases)
        if (s == alias)
            for (const Standard& st : builtinStandards())
                if (st.name == name) return st;
    if (s.find('=') != std::string::npos) {
        double rtol = 0, atol = 0;
        bool sawR = false, sawA = false;
        std::size_t begin = 0;
        while (begin <= s.size()) {
            std::size_t end = s.find(',', begin);
            if (end == std::string::npos) end = s.size();
            const std::string part = s.substr(begin, end - begin);
            const std::size_t eq = part.find('=');
            const std::string key = eq == std::string::npos ? part : part.substr(0, eq);
            const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
            double* target = key == "rtol" ? &rtol : key == "atol" ? &atol : nullptr;
            bool* seen = key == "rtol" ? &sawR : &sawA;
            if (!target || *seen || !parseNumber(value, target))
                throw UsageError("cannot read the standard '" + spec + "': '" + part +
                                 "' is not rtol=<number> or atol=<number> (non-negative); " + kAccepted);
            *seen = true;
            begin = end + 1;
        }
        return toleranceStandard(rtol, atol);
    }
    throw UsageError("unknown standard '" + spec + "': " + kAccepted);
}

std::string defaultStandardName(const std::string& opName) {
    const std::string s = lowerCase(opName);
    if (s == "aclnnconvolutionbackward" || s == "convolution_backward") return "dual-thousandth";
    return "cann";
}

}  // namespace opscope::metrics
