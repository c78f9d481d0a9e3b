// Metrics and standards on hand-made vectors whose answers are worked out in the comments:
// every metric, rounding of the reference, ULP in each dtype, NaN/Inf mismatches, zero
// references, each standard just inside and just outside its thresholds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "opscope/error.h"
#include "opscope/float16.h"
#include "opscope/host_tensor.h"
#include "opscope/metric_fields.h"
#include "opscope/metrics.h"
#include "opscope/parallel.h"

using namespace opscope;
using namespace opscope::metrics;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

HostTensor f64(const std::vector<double>& v, std::vector<int64_t> shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
    return HostTensor::fromDoubles(DType::Float64, shape, v);
}

HostTensor of(DType d, const std::vector<double>& v) {
    return HostTensor::fromDoubles(d, {static_cast<int64_t>(v.size())}, v);
}

CompareOptions exact() {
    CompareOptions o;
    o.roundReference = false;
    return o;
}

}  // namespace

// ---- the metrics -----------------------------------------------------------------------------

TEST(Metrics, IdenticalTensorsHaveNoError) {
    const HostTensor t = of(DType::Float32, {1, -2, 3.5, 0, 1e-3});
    const ComparisonMetrics m = compare(t, t);
    EXPECT_EQ(m.count, 5);
    EXPECT_EQ(m.finiteCount, 5);
    EXPECT_DOUBLE_EQ(m.cosine, 1.0);
    EXPECT_EQ(m.maxAbsError, 0);
    EXPECT_EQ(m.maxRelError, 0);
    EXPECT_EQ(m.rmse, 0);
    EXPECT_EQ(m.errorBalance, 0);
    EXPECT_EQ(m.shareRelBelow1e4, 1);
    EXPECT_EQ(m.maxUlpError, 0);
    EXPECT_EQ(m.nonFiniteMismatches, 0);
    for (const Standard& s : builtinStandards()) EXPECT_EQ(s.judge(m).verdict, Verdict::Pass) << s.name;
}

TEST(Metrics, KnownErrorsOnAHandMadeVector) {
    // a - r = 0, 0.003, 0, -0.0005: |d| = 0, 0.003, 0, 0.0005.
    const HostTensor a = f64({1.0, 2.005, 4.0, -1.0});
    const HostTensor r = f64({1.0, 2.002, 4.0, -0.9995});
    const ComparisonMetrics m = compare(a, r, DType::Float64, exact());
    EXPECT_NEAR(m.maxAbsError, 0.003, 1e-15);
    EXPECT_NEAR(m.meanAbsError, 0.0035 / 4, 1e-15);
    EXPECT_NEAR(m.rmse, std::sqrt((0.003 * 0.003 + 0.0005 * 0.0005) / 4), 1e-15);
    const double rel1 = 0.003 / (2.002 + 1e-7), rel3 = 0.0005 / (0.9995 + 1e-7);
    EXPECT_NEAR(m.maxRelError, std::max(rel1, rel3), 1e-12);
    EXPECT_NEAR(m.meanRelError, (rel1 + rel3) / 4, 1e-12);
    // Error balance: mean of (a - r) / max(|r|, 1) = (0.003/2.002 - 0.0005/1) / 4.
    EXPECT_NEAR(m.errorBalance, (0.003 / 2.002 - 0.0005) / 4, 1e-12);
    // rel ~ 1.5e-3 and 5e-4: both below 1e-2, one of them below 1e-3, neither below 1e-4.
    EXPECT_DOUBLE_EQ(m.shareRelBelow1e2, 1.0);
    EXPECT_DOUBLE_EQ(m.shareRelBelow1e3, 0.75);
    EXPECT_DOUBLE_EQ(m.shareRelBelow1e4, 0.5);
    // The worst element and where it is.
    EXPECT_EQ(m.worstAbs.index, 1);
    EXPECT_EQ(m.worstAbs.coords, std::vector<int64_t>{1});
    EXPECT_DOUBLE_EQ(m.worstAbs.actual, 2.005);
    EXPECT_DOUBLE_EQ(m.worstAbs.reference, 2.002);
    EXPECT_EQ(m.worstRel.index, 1);
    // Cosine by hand.
    const double dot = 1 + 2.005 * 2.002 + 16 + 0.9995;
    const double na = std::sqrt(1 + 2.005 * 2.005 + 16 + 1), nr = std::sqrt(1 + 2.002 * 2.002 + 16 + 0.9995 * 0.9995);
    EXPECT_NEAR(m.cosine, dot / (na * nr), 1e-14);
}

TEST(Metrics, CoordinatesOfTheWorstElementFollowTheShape) {
    std::vector<double> r(24, 1.0), a(24, 1.0);
    a[1 * 12 + 2 * 4 + 3] = 1.5;  // element [1, 2, 3] of [2, 3, 4]
    const ComparisonMetrics m = compare(f64(a, {2, 3, 4}), f64(r, {2, 3, 4}), DType::Float64);
    EXPECT_EQ(m.worstAbs.coords, (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(m.worstRel.coords, (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(m.shape, (std::vector<int64_t>{2, 3, 4}));
}

TEST(Metrics, ReferenceIsRoundedToTheOutputDtype) {
    // 1 + 2^-12 is not an fp16 number: rounded, it is 1.0, which the fp16 output holds exactly.
    const HostTensor a = of(DType::Float16, {1.0});
    const HostTensor r = f64({1.0 + std::ldexp(1.0, -12)});
    EXPECT_EQ(compare(a, r).maxAbsError, 0);
    // Without rounding the difference shows.
    EXPECT_DOUBLE_EQ(compare(a, r, DType::Float16, exact()).maxAbsError, std::ldexp(1.0, -12));
    // bf16 rounds 1 + 2^-9 to 1 as well; fp32 keeps it.
    EXPECT_EQ(compare(of(DType::BFloat16, {1.0}), f64({1.0 + std::ldexp(1.0, -9)})).maxAbsError, 0);
    EXPECT_DOUBLE_EQ(roundToDtype(1.0 + std::ldexp(1.0, -9), DType::Float32), 1.0 + std::ldexp(1.0, -9));
    // Round to nearest even at a tie: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 in fp16.
    EXPECT_DOUBLE_EQ(roundToDtype(1.0 + std::ldexp(1.0, -11), DType::Float16), 1.0);
    EXPECT_DOUBLE_EQ(roundToDtype(1.0 + 3 * std::ldexp(1.0, -11), DType::Float16), 1.0 + std::ldexp(2.0, -10));
    const HostTensor rounded = roundedTo(f64({1.0 + std::ldexp(1.0, -12), 3.0}), DType::Float16);
    EXPECT_EQ(rounded.dtype(), DType::Float64);
    EXPECT_DOUBLE_EQ(rounded.getAsDouble(0), 1.0);
}

TEST(Metrics, UlpErrorInEachDtype) {
    // The spacing at 1.0 is 2^-10 (fp16), 2^-7 (bf16), 2^-23 (fp32).
    EXPECT_DOUBLE_EQ(ulpOf(1.0, DType::Float16), std::ldexp(1.0, -10));
    EXPECT_DOUBLE_EQ(ulpOf(1.0, DType::BFloat16), std::ldexp(1.0, -7));
    EXPECT_DOUBLE_EQ(ulpOf(1.0, DType::Float32), std::ldexp(1.0, -23));
    EXPECT_DOUBLE_EQ(ulpOf(1.5, DType::Float32), std::ldexp(1.0, -23));
    EXPECT_DOUBLE_EQ(ulpOf(-3.0, DType::Float16), std::ldexp(1.0, -9));
    // Below the smallest normal the spacing stays that of the subnormals.
    EXPECT_DOUBLE_EQ(ulpOf(0.0, DType::Float16), std::ldexp(1.0, -24));
    EXPECT_DOUBLE_EQ(ulpOf(1e-6, DType::Float16), std::ldexp(1.0, -24));
    EXPECT_DOUBLE_EQ(ulpOf(0.0, DType::Float32), std::ldexp(1.0, -149));

    // One step above 1.0 in each dtype is one ULP.
    const float nextF = std::nextafter(1.0f, 2.0f);
    EXPECT_DOUBLE_EQ(compare(of(DType::Float32, {nextF}), f64({1.0})).maxUlpError, 1.0);
    EXPECT_DOUBLE_EQ(compare(of(DType::Float16, {1.0 + std::ldexp(1.0, -10)}), f64({1.0})).maxUlpError, 1.0);
    EXPECT_DOUBLE_EQ(compare(of(DType::BFloat16, {1.0 + std::ldexp(1.0, -7)}), f64({1.0})).maxUlpError, 1.0);
    // ULP is measured against the unrounded reference: a correctly rounded result is within 0.5.
    const ComparisonMetrics m = compare(of(DType::Float16, {1.0}), f64({1.0 + std::ldexp(1.0, -12)}));
    EXPECT_DOUBLE_EQ(m.maxUlpError, 0.25);
    EXPECT_TRUE(m.ulpApplicable);
    // The smallest fp16 subnormal against zero: one ULP.
    EXPECT_DOUBLE_EQ(compare(of(DType::Float16, {std::ldexp(1.0, -24)}), f64({0.0})).maxUlpError, 1.0);
    // Mean over elements: 0 and 2 ULP.
    EXPECT_DOUBLE_EQ(compare(of(DType::Float32, {1.0, 1.0 + std::ldexp(2.0, -23)}), f64({1.0, 1.0})).meanUlpError, 1.0);
    EXPECT_FALSE(compare(of(DType::Int32, {1}), of(DType::Int32, {1}), DType::Int32).ulpApplicable);
}

TEST(Metrics, NaNAndInfMatchesAndMismatches) {
    // Pairs: NaN/NaN match, +Inf/+Inf match, 1/NaN, -Inf/+Inf, NaN/1 mismatch, 2/2 finite.
    const HostTensor a = f64({kNaN, kInf, 1.0, -kInf, kNaN, 2.0});
    const HostTensor r = f64({kNaN, kInf, kNaN, kInf, 1.0, 2.0});
    const ComparisonMetrics m = compare(a, r, DType::Float32);
    EXPECT_EQ(m.nanActual, 2);
    EXPECT_EQ(m.nanReference, 2);
    EXPECT_EQ(m.infActual, 2);
    EXPECT_EQ(m.infReference, 2);
    EXPECT_EQ(m.nonFiniteMismatches, 3);
    EXPECT_EQ(m.firstMismatch.index, 2);
    EXPECT_EQ(m.finiteCount, 1);
    EXPECT_EQ(m.maxAbsError, 0);
    // Matching pairs count as within tolerance, mismatches do not: 3 of 6.
    EXPECT_DOUBLE_EQ(m.shareRelBelow1e3, 0.5);
    for (const Standard& s : builtinStandards()) {
        const Judgement j = s.judge(m);
        EXPECT_EQ(j.verdict, Verdict::Fail) << s.name;
        EXPECT_NE(j.reason.find("3 NaN/Inf mismatches"), std::string::npos) << j.reason;
    }
    // Only matching non-finite pairs: every standard passes.
    const ComparisonMetrics ok = compare(f64({kNaN, -kInf, 1.0}), f64({kNaN, -kInf, 1.0}), DType::Float32);
    EXPECT_EQ(ok.nonFiniteMismatches, 0);
    for (const Standard& s : builtinStandards()) EXPECT_TRUE(s.judge(ok).passed()) << s.name;
    // A finite reference that overflows fp16 when rounded is an Inf reference.
    const ComparisonMetrics over = compare(of(DType::Float16, {65504.0}), f64({1e6}));
    EXPECT_EQ(over.infReference, 1);
    EXPECT_EQ(over.nonFiniteMismatches, 1);
}

TEST(Metrics, ZeroReferencesUseTheGuardedDenominator) {
    // rel = |a - r| / (|r| + 1e-7): 1e-8 against 0 is 0.1, not infinite.
    const ComparisonMetrics m = compare(f64({0.0, 1e-8}), f64({0.0, 0.0}), DType::Float64, exact());
    EXPECT_NEAR(m.maxRelError, 0.1, 1e-12);
    EXPECT_TRUE(std::isfinite(m.meanRelError));
    EXPECT_DOUBLE_EQ(m.cosine, 0.0);  // the reference is all zeros, the actual is not
    EXPECT_DOUBLE_EQ(compare(f64({0.0, 0.0}), f64({0.0, 0.0})).cosine, 1.0);
    EXPECT_DOUBLE_EQ(relativeError(3.0, 0.0), 3.0 / 1e-7);
    EXPECT_DOUBLE_EQ(relativeError(1.0, 2.0, 0.0), 0.5);
}

TEST(Metrics, SmallValueErrorRatio) {
    // fp16: small values are |r| < 1e-3, in error when |a - r| > 1e-5.
    // r = 1e-4 (small, error 2e-5: bad), 5e-4 (small, error 0: good), 1.0 (not small).
    const ComparisonMetrics m = compare(f64({1.2e-4, 5e-4, 1.5}), f64({1e-4, 5e-4, 1.0}), DType::Float16, exact());
    EXPECT_EQ(m.smallValueCount, 2);
    EXPECT_DOUBLE_EQ(m.smallValueErrorRatio, 0.5);
    // fp32: thresholds 1e-6 / 1e-9.
    const ComparisonMetrics f = compare(f64({5e-7 + 2e-9, 1e-7}), f64({5e-7, 1e-7}), DType::Float32, exact());
    EXPECT_EQ(f.smallValueCount, 2);
    EXPECT_DOUBLE_EQ(f.smallValueErrorRatio, 0.5);
}

TEST(Metrics, EmptyTensorsCompareAsEqual) {
    const HostTensor e(DType::Float32, {0, 3});
    const ComparisonMetrics m = compare(e, e);
    EXPECT_EQ(m.count, 0);
    EXPECT_EQ(m.shareRelBelow1e3, 1);
    for (const Standard& s : builtinStandards()) EXPECT_TRUE(s.judge(m).passed()) << s.name;
}

TEST(Metrics, DifferentSizesAreAnError) {
    try {
        compare(of(DType::Float32, {1, 2, 3}), f64({1, 2}));
        FAIL() << "no exception";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("float32[3] (3 elements)"), std::string::npos) << e.what();
    }
    // Same count, different shapes: compared, coordinates in the actual's shape.
    EXPECT_EQ(compare(f64({1, 2, 3, 4}, {2, 2}), f64({1, 2, 3, 5}, {4})).worstAbs.coords, (std::vector<int64_t>{1, 1}));
    EXPECT_THROW(compare(of(DType::Float32, {1}), HostTensor()), UsageError);
}

TEST(Metrics, ErrorBalanceIsSigned) {
    // (a - r) / max(|r|, 1): +0.5/2 and +0.5/1 -> mean 0.375; the negatives cancel it.
    EXPECT_DOUBLE_EQ(compare(f64({2.5, 1.0}), f64({2.0, 0.5}), DType::Float64, exact()).errorBalance, 0.375);
    EXPECT_DOUBLE_EQ(compare(f64({2.5, 1.5}), f64({2.0, 2.0}), DType::Float64, exact()).errorBalance, 0.0);
}

// ---- the standards ---------------------------------------------------------------------------

namespace {

// n elements of reference 1 whose actual values carry relative error `rel`, plus optional
// outliers with relative error `outlierRel`.
ComparisonMetrics scaled(DType outputDtype, int n, double rel, int outliers = 0, double outlierRel = 0) {
    std::vector<double> a(static_cast<std::size_t>(n), 1.0 + rel), r(static_cast<std::size_t>(n), 1.0);
    for (int i = 0; i < outliers; ++i) a[static_cast<std::size_t>(i)] = 1.0 + outlierRel;
    return compare(f64(a), f64(r), outputDtype, exact());
}

}  // namespace

TEST(Standards, CannThresholdsFollowTheOutputDtype) {
    EXPECT_DOUBLE_EQ(tolerancesFor(DType::Float16).cannThreshold, std::ldexp(1.0, -10));
    EXPECT_DOUBLE_EQ(tolerancesFor(DType::BFloat16).cannThreshold, std::ldexp(1.0, -7));
    EXPECT_DOUBLE_EQ(tolerancesFor(DType::Float32).cannThreshold, std::ldexp(1.0, -13));
    const Standard cann = parseStandard("cann");
    for (DType d : {DType::Float16, DType::BFloat16, DType::Float32}) {
        const double t = tolerancesFor(d).cannThreshold;
        // Mean just under T, max under 10T: pass.
        EXPECT_EQ(cann.judge(scaled(d, 1000, 0.9 * t)).verdict, Verdict::Pass) << dtypeName(d);
        // Mean just over T: fail.
        EXPECT_EQ(cann.judge(scaled(d, 1000, 1.1 * t)).verdict, Verdict::Fail) << dtypeName(d);
        // One outlier at 11T with a small mean: fail on the maximum, and the reason says where.
        const Judgement j = cann.judge(scaled(d, 1000, 0.0, 1, 11 * t));
        EXPECT_EQ(j.verdict, Verdict::Fail) << dtypeName(d);
        EXPECT_NE(j.reason.find("max rel"), std::string::npos);
        EXPECT_NE(j.reason.find("at [0]"), std::string::npos) << j.reason;
        // One outlier at 9T: pass.
        EXPECT_EQ(cann.judge(scaled(d, 1000, 0.0, 1, 9 * t)).verdict, Verdict::Pass) << dtypeName(d);
    }
    // An fp32 result judged with fp16's T would pass at 1e-4; with fp32's T it fails.
    EXPECT_EQ(cann.judge(scaled(DType::Float16, 100, 1e-4)).verdict, Verdict::Pass);
    EXPECT_EQ(cann.judge(scaled(DType::Float32, 100, 2e-4)).verdict, Verdict::Fail);
}

TEST(Standards, DualThousandthNeedsMoreThan999PerMille) {
    const Standard s = parseStandard("dual-thousandth");
    EXPECT_EQ(s.name, "dual-thousandth");
    // 10 of 10000 at rel 2e-3: 99.9% within, which is not more than 99.9%.
    EXPECT_EQ(s.judge(scaled(DType::Float32, 10000, 0.0, 10, 2e-3)).verdict, Verdict::Fail);
    EXPECT_EQ(s.judge(scaled(DType::Float32, 10000, 0.0, 9, 2e-3)).verdict, Verdict::Pass);
    // Exactly 1e-3 is not "below 1e-3".
    EXPECT_LT(scaled(DType::Float32, 10, 0.0, 1, 1.001e-3).shareRelBelow1e3, 1.0);
}

TEST(Standards, MsprobeLegacyDecisionOrder) {
    const Standard s = parseStandard("msprobe-legacy");
    // Cosine 0.99 or less fails first, whatever else holds.
    const ComparisonMetrics opposite = compare(f64({1.0, -1.0}), f64({-1.0, 1.0}), DType::Float32, exact());
    EXPECT_EQ(s.judge(opposite).verdict, Verdict::Fail);
    EXPECT_NE(s.judge(opposite).reason.find("cosine"), std::string::npos);
    // Max abs below 1e-3 passes even with a poor relative error (small values).
    EXPECT_EQ(s.judge(scaled(DType::Float32, 100, 0.0, 50, 5e-4)).verdict, Verdict::Pass);
    // Values around 100 so that max abs >= 1e-3; relative errors decide.
    auto big = [](DType d, int n, int bad, double badRel, int mid = 0, double midRel = 0) {
        std::vector<double> a(static_cast<std::size_t>(n), 100.0), r(static_cast<std::size_t>(n), 100.0);
        for (int i = 0; i < bad; ++i) a[static_cast<std::size_t>(i)] = 100.0 * (1 + badRel);
        for (int i = bad; i < bad + mid; ++i) a[static_cast<std::size_t>(i)] = 100.0 * (1 + midRel);
        return compare(f64(a), f64(r), d, exact());
    };
    // fp16: 2% above 1e-2 fails the double hundredth.
    EXPECT_EQ(s.judge(big(DType::Float16, 1000, 20, 0.05)).verdict, Verdict::Fail);
    // fp16: all within 1e-2 but 1% between 1e-3 and 1e-2: warning (which passes).
    const Judgement warn = s.judge(big(DType::Float16, 1000, 0, 0, 10, 5e-3));
    EXPECT_EQ(warn.verdict, Verdict::Warning);
    EXPECT_TRUE(warn.passed());
    // bf16: 5 in 10000 between 1e-3 and 1e-2 leaves 99.95% within 1e-3: pass.
    EXPECT_EQ(s.judge(big(DType::BFloat16, 10000, 0, 0, 5, 5e-3)).verdict, Verdict::Pass);
    // fp32: the double thousandth is required, the double ten-thousandth only warns.
    EXPECT_EQ(s.judge(big(DType::Float32, 1000, 2, 5e-3)).verdict, Verdict::Fail);
    EXPECT_EQ(s.judge(big(DType::Float32, 100000, 0, 0, 20, 5e-4)).verdict, Verdict::Warning);
    EXPECT_EQ(s.judge(big(DType::Float32, 100000, 0, 0, 5, 5e-4)).verdict, Verdict::Pass);
}

TEST(Standards, UserToleranceIsNumpyAllclose) {
    const Standard s = parseStandard("rtol=1e-3,atol=1e-5");
    EXPECT_EQ(s.name, "rtol=0.001,atol=1e-05");
    EXPECT_TRUE(s.options.checkTolerance);
    // |a - r| <= atol + rtol*|r|: r = 2 allows 2.01e-3.
    auto run = [&](double a, double r) { return s.judge(compare(f64({a}), f64({r}), DType::Float64, s.options)); };
    EXPECT_EQ(run(2.0 + 2.0e-3, 2.0).verdict, Verdict::Pass);
    const Judgement bad = run(2.0 + 2.1e-3, 2.0);
    EXPECT_EQ(bad.verdict, Verdict::Fail);
    EXPECT_NE(bad.reason.find("1 of 1 elements"), std::string::npos) << bad.reason;
    // atol alone near zero.
    EXPECT_EQ(run(9e-6, 0.0).verdict, Verdict::Pass);
    EXPECT_EQ(run(1.1e-5, 0.0).verdict, Verdict::Fail);
    // Either part may be left out.
    EXPECT_EQ(parseStandard("atol=0.5")
                  .judge(compare(f64({1.4}), f64({1.0}), DType::Float64, parseStandard("atol=0.5").options))
                  .verdict,
              Verdict::Pass);
    // Metrics computed without the tolerance cannot be judged by it.
    EXPECT_EQ(s.judge(compare(f64({1.0}), f64({1.0}))).verdict, Verdict::Fail);
}

TEST(Standards, NamesAliasesAndErrors) {
    EXPECT_EQ(parseStandard("CANN").name, "cann");
    EXPECT_EQ(parseStandard("single-benchmark").name, "cann");
    EXPECT_EQ(parseStandard("double-thousandth").name, "dual-thousandth");
    EXPECT_EQ(parseStandard("msprobe").name, "msprobe-legacy");
    EXPECT_THROW(parseStandard("strict"), UsageError);
    EXPECT_THROW(parseStandard("rtol=abc"), UsageError);
    EXPECT_THROW(parseStandard("rtol=-1"), UsageError);
    EXPECT_THROW(parseStandard("rtol=1,rtol=2"), UsageError);
    EXPECT_THROW(parseStandard("tol=1"), UsageError);
    try {
        parseStandard("strict");
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("cann, dual-thousandth, msprobe-legacy"), std::string::npos);
    }
    for (const Standard& s : builtinStandards()) {
        EXPECT_FALSE(s.title.empty());
        EXPECT_FALSE(s.formula.empty());
        EXPECT_FALSE(s.thresholds.empty());
    }
    EXPECT_EQ(defaultStandardName("aclnnConvolutionBackward"), "dual-thousandth");
    EXPECT_EQ(defaultStandardName("convolution_backward"), "dual-thousandth");
    EXPECT_EQ(defaultStandardName("aclnnGroupNormBackward"), "cann");
    EXPECT_EQ(defaultStandardName("rms_norm_grad"), "cann");
    EXPECT_STREQ(verdictName(Verdict::Warning), "warning");
}

// ---- error analysis for charts ---------------------------------------------------------------

TEST(ErrorAnalysis, ErrorMapsPerElement) {
    const ErrorMaps maps =
        errorMaps(f64({1.5, kNaN, kNaN, 2.0}, {2, 2}), f64({1.0, kNaN, 1.0, 2.0}, {2, 2}), DType::Float64);
    EXPECT_EQ(maps.absError.shape(), (std::vector<int64_t>{2, 2}));
    EXPECT_DOUBLE_EQ(maps.absError.getAsDouble(0), 0.5);
    EXPECT_NEAR(maps.relError.getAsDouble(0), 0.5 / (1 + 1e-7), 1e-15);
    EXPECT_EQ(maps.absError.getAsDouble(1), 0.0);           // NaN against NaN matches
    EXPECT_TRUE(std::isnan(maps.absError.getAsDouble(2)));  // NaN against 1 does not
    EXPECT_EQ(maps.relError.getAsDouble(3), 0.0);
}

TEST(ErrorAnalysis, LogHistogramBinsByDecade) {
    // Two bins per decade from 1e-4 to 1e-2: [1e-4, 3.16e-4), [3.16e-4, 1e-3), [1e-3, 3.16e-3), [3.16e-3, 1e-2).
    const LogHistogram h = logHistogram(f64({0.0, 1e-5, 1e-4, 2e-4, 5e-4, 1e-3, 5e-3, 1e-2, 1.0, kNaN}), -4, -2, 2);
    ASSERT_EQ(h.counts.size(), 4u);
    EXPECT_EQ(h.counts, (std::vector<int64_t>{2, 1, 1, 1}));
    EXPECT_EQ(h.zeros, 1);
    EXPECT_EQ(h.below, 1);
    EXPECT_EQ(h.above, 2);
    EXPECT_EQ(h.nonFinite, 1);
    EXPECT_EQ(h.total(), 10);
    EXPECT_DOUBLE_EQ(h.edge(0), 1e-4);
    EXPECT_DOUBLE_EQ(h.edge(2), 1e-3);
    EXPECT_THROW(logHistogram(f64({1.0}), 0, 0, 1), UsageError);
}

TEST(ErrorAnalysis, PerAxisErrorsPerChannel) {
    // Shape [2, 3, 2]: channel c holds elements with error c+1 (n = 0) and 2(c+1) (n = 1).
    std::vector<double> a(12), r(12, 10.0);
    for (int n = 0; n < 2; ++n)
        for (int c = 0; c < 3; ++c)
            for (int w = 0; w < 2; ++w) a[static_cast<std::size_t>(n * 6 + c * 2 + w)] = 10.0 + (c + 1) * (n + 1);
    const ErrorMaps maps = errorMaps(f64(a, {2, 3, 2}), f64(r, {2, 3, 2}), DType::Float64);
    const std::vector<AxisErrorStats> s = perAxisErrors(maps, 1);
    ASSERT_EQ(s.size(), 3u);
    for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(s[static_cast<std::size_t>(c)].count, 4);
        EXPECT_DOUBLE_EQ(s[static_cast<std::size_t>(c)].maxAbs, 2.0 * (c + 1));
        EXPECT_DOUBLE_EQ(s[static_cast<std::size_t>(c)].meanAbs, 1.5 * (c + 1));
    }
    EXPECT_EQ(perAxisErrors(maps, 0).size(), 2u);
    EXPECT_THROW(perAxisErrors(maps, 3), UsageError);
}

TEST(ErrorAnalysis, CumulativeShareWithinTolerances) {
    const std::vector<ToleranceShare> c = cumulativeShare(f64({1e-5, 1e-3, 0.5, kNaN}), {1e-4, 1e-2, 1.0});
    ASSERT_EQ(c.size(), 3u);
    EXPECT_DOUBLE_EQ(c[0].share, 0.25);
    EXPECT_DOUBLE_EQ(c[1].share, 0.5);
    EXPECT_DOUBLE_EQ(c[2].share, 0.75);  // the NaN is never within
    const std::vector<double> t = logTolerances(-3, 0, 1);
    ASSERT_EQ(t.size(), 4u);
    EXPECT_DOUBLE_EQ(t.front(), 1e-3);
    EXPECT_DOUBLE_EQ(t.back(), 1.0);
}

// A comparison fed in blocks (what a streamed compare of two tensors larger than memory does)
// equals the whole one field for field, bit for bit: NaN/Inf pairs, small values, tolerance,
// the worst elements' coordinates, in each output dtype.
TEST(Metrics, AComparisonFedInBlocksEqualsTheWholeBitForBit) {
    const std::vector<int64_t> shape{7, 5, 11};
    const int64_t n = 7 * 5 * 11;
    std::vector<double> a(n), r(n);
    uint32_t seed = 12345;
    auto next = [&] {
        seed = seed * 1664525u + 1013904223u;
        return (static_cast<double>(seed >> 8) / 16777216.0) * 2 - 1;
    };
    for (int64_t i = 0; i < n; ++i) {
        r[i] = next() * (i % 13 == 0 ? 1e-7 : 3.0);
        a[i] = r[i] * (1 + 1e-3 * next());
    }
    a[17] = std::numeric_limits<double>::quiet_NaN();
    r[40] = std::numeric_limits<double>::infinity();
    a[41] = r[41] = -std::numeric_limits<double>::infinity();
    metrics::CompareOptions options;
    options.checkTolerance = true;
    options.rtol = 1e-3;
    options.atol = 1e-6;
    for (DType dtype : {DType::Float32, DType::Float16, DType::BFloat16}) {
        SCOPED_TRACE(dtypeName(dtype));
        const HostTensor actual = HostTensor::fromDoubles(dtype, shape, a);
        const HostTensor reference = HostTensor::fromDoubles(DType::Float64, shape, r);
        const metrics::ComparisonMetrics whole = metrics::compare(actual, reference, dtype, options);
        metrics::ComparisonAccumulator blocks(shape, dtype, options);
        for (int64_t at = 0, size = 1; at < n; at += size, size = size * 3 % 97 + 1) {
            const int64_t count = std::min(size, n - at);
            auto slice = [&](const HostTensor& t) {
                TensorView v = t.view();
                v.shape = {count};
                v.strides = {1};
                v.offset = at;
                return HostTensor::copyOf(v);
            };
            blocks.add(slice(actual), slice(reference));
        }
        const metrics::ComparisonMetrics fed = blocks.finish();
        for (const metrics::MetricField& f : metrics::metricFields()) {
            SCOPED_TRACE(f.key);
            const std::optional<double> x = f.value(whole), y = f.value(fed);
            ASSERT_EQ(x.has_value(), y.has_value());
            if (x) EXPECT_TRUE(*x == *y || (std::isnan(*x) && std::isnan(*y))) << *x << " vs " << *y;
        }
        for (const metrics::ElementField& f : metrics::elementFields()) {
            SCOPED_TRACE(f.key);
            EXPECT_EQ(f.element(whole).index, f.element(fed).index);
            EXPECT_EQ(f.element(whole).coords, f.element(fed).coords);
        }
        EXPECT_EQ(whole.worstRel.coords, (std::vector<int64_t>(fed.worstRel.coords)));
    }
    metrics::ComparisonAccumulator shortOne(shape, DType::Float32);
    EXPECT_THROW(shortOne.finish(), UsageError);  // fewer elements than the shape holds
}

// ulpOf reads the exponent from the bits: the same spacing as frexp and ldexp give, from
// float64's subnormals to its largest values, in each dtype.
TEST(Metrics, UlpSpacingEqualsFrexpLdexpEverywhere) {
    std::vector<double> values{0.0,
                               -0.0,
                               1.0,
                               -1.0,
                               0.75,
                               1e-300,
                               4.9e-324,
                               2.2250738585072014e-308,
                               1e-45,
                               6e-8,
                               65504.0,
                               3.4e38,
                               1.7976931348623157e308,
                               -2.5e-310};
    uint64_t bits = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 20000; ++i) {
        bits = bits * 6364136223846793005ull + 1442695040888963407ull;
        double v = 0;
        const uint64_t finite = bits & ~(uint64_t(0x7ff) << 52) | ((bits >> 12) % 0x7ff) << 52;  // never Inf/NaN
        std::memcpy(&v, &finite, sizeof v);
        values.push_back(v);
    }
    for (DType dtype : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
        const metrics::DTypeTolerances t = metrics::tolerancesFor(dtype);
        for (double v : values) {
            int e = 0;
            std::frexp(std::fabs(v), &e);
            const int exponent = v == 0 ? t.minExponent : std::max(e - 1, t.minExponent);
            ASSERT_EQ(metrics::ulpOf(v, dtype), std::ldexp(1.0, exponent - t.mantissaBits))
                << v << " " << dtypeName(dtype);
        }
    }
}

// Past one chunk of the pass (65,536 elements): whole, in bands that cut chunks anywhere, on one
// thread or two, the metrics are the same bits.
TEST(Metrics, ManyChunksGiveTheSameBitsInBandsAndOnAnyThreadCount) {
    const int64_t n = 5 * 65536 + 123;
    std::vector<double> a(static_cast<std::size_t>(n)), r(a.size());
    for (int64_t i = 0; i < n; ++i) {
        r[i] = 2 + std::sin(0.001 * static_cast<double>(i));
        a[i] = r[i] + 1;
    }
    // An error of 1e20 early in the first chunk: the errors of 1 after it, added one by one to it,
    // are lost (its spacing in long double is 8), while a sum of them started anew is kept. So
    // the sums show where chunks begin and end: cut anywhere else, the mean error moves.
    a[10] = 1e20;
    a[70000] = std::numeric_limits<double>::quiet_NaN();
    const HostTensor actual = HostTensor::fromDoubles(DType::Float32, {n}, a);
    const HostTensor reference = HostTensor::fromDoubles(DType::Float64, {n}, r);
    auto fields = [](const metrics::ComparisonMetrics& m) {
        std::vector<double> v;
        for (const metrics::MetricField& f : metrics::metricFields()) v.push_back(f.value(m).value_or(-1));
        for (const metrics::ElementField& f : metrics::elementFields()) v.push_back(double(f.element(m).index));
        return v;
    };
    auto sameBits = [](const std::vector<double>& x, const std::vector<double>& y) {
        return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
    };
    setNumThreads(1);
    const std::vector<double> one = fields(metrics::compare(actual, reference, DType::Float32));
    setNumThreads(2);
    const std::vector<double> two = fields(metrics::compare(actual, reference, DType::Float32));
    EXPECT_TRUE(sameBits(one, two));
    metrics::ComparisonAccumulator bands({n}, DType::Float32);
    for (int64_t at = 0, size = 3; at < n; at += size, size = size * 7 % 150001 + 1) {
        const int64_t count = std::min(size, n - at);
        auto slice = [&](const HostTensor& t) {
            TensorView v = t.view();
            v.shape = {count};
            v.offset = at;
            return HostTensor::copyOf(v);
        };
        bands.add(slice(actual), slice(reference));
    }
    const metrics::ComparisonMetrics fed = bands.finish();
    EXPECT_TRUE(sameBits(one, fields(fed)));
    EXPECT_EQ(fed.worstAbs.index, 10);
    EXPECT_EQ(fed.firstMismatch.index, 70000);
    setNumThreads(0);
}

// The sums behind the means, RMSE, balance and cosine are long-double sums in element order
// within chunks of 65,536 elements at fixed places, the chunks' sums added in order (docs/CLI.md):
// a plain loop that sums exactly so gives the same bits as the accumulator, fed whole or in odd
// bands, on any thread count. NaN pairs are skipped by every sum.
TEST(Metrics, SumsAreLongDoubleInElementOrderWithinChunksOf65536) {
    const int64_t n = 3 * 65536 + 1234;
    HostTensor a(DType::Float32, {n}), r(DType::Float32, {n});
    uint32_t seed = 12345;
    const auto next = [&] {
        seed = seed * 1664525u + 1013904223u;
        return static_cast<double>(seed >> 8) / 16777216.0 - 0.5;
    };
    for (int64_t i = 0; i < n; ++i) {
        const double v = next() * 4e5;
        r.dataAs<float>()[i] = static_cast<float>(v);
        a.dataAs<float>()[i] = static_cast<float>(v + 400 + 100 * next());
    }
    // An error of 1e22 first: in a long-double sum the next errors (350-450, under half its
    // spacing there) round away, while a chunk's own sum of them does not: the grouping shows.
    a.dataAs<float>()[0] = 1e22f;
    r.dataAs<float>()[0] = 0;
    a.dataAs<float>()[70000] = std::numeric_limits<float>::quiet_NaN();
    long double abs = 0, rel = 0, sq = 0, balance = 0, ulp = 0, dot = 0, normA = 0, normR = 0;
    int64_t finite = 0;
    for (int64_t c = 0; c < n; c += 65536) {
        long double cAbs = 0, cRel = 0, cSq = 0, cBal = 0, cUlp = 0, cDot = 0, cA = 0, cR = 0;
        for (int64_t i = c; i < std::min(n, c + 65536); ++i) {
            const double x = a.dataAs<float>()[i], y = r.dataAs<float>()[i];
            if (std::isnan(x)) continue;
            ++finite;
            const double e = std::fabs(x - y);
            cAbs += static_cast<long double>(e);
            cRel += static_cast<long double>(e / (std::fabs(y) + kRelativeErrorGuard));
            cSq += static_cast<long double>(e) * static_cast<long double>(e);
            cBal += static_cast<long double>((x - y) / std::max(std::fabs(y), 1.0));
            cUlp += static_cast<long double>(ulpError(x, y, DType::Float32));
            cDot += static_cast<long double>(x) * static_cast<long double>(y);
            cA += static_cast<long double>(x) * static_cast<long double>(x);
            cR += static_cast<long double>(y) * static_cast<long double>(y);
        }
        abs += cAbs, rel += cRel, sq += cSq, balance += cBal, ulp += cUlp, dot += cDot, normA += cA, normR += cR;
    }
    const long double count = static_cast<long double>(finite);
    for (int threads : {1, 2, 3}) {
        setNumThreads(threads);
        ComparisonAccumulator banded(a.shape(), DType::Float32, {});
        for (int64_t from = 0; from < n; from += 50000) {  // bands that cut chunks anywhere
            const int64_t len = std::min<int64_t>(50000, n - from);
            HostTensor pa(DType::Float32, {len}), pr(DType::Float32, {len});
            std::memcpy(pa.data(), a.dataAs<float>() + from, static_cast<std::size_t>(len) * 4);
            std::memcpy(pr.data(), r.dataAs<float>() + from, static_cast<std::size_t>(len) * 4);
            banded.add(pa, pr);
        }
        for (const ComparisonMetrics& m : {compare(a, r, DType::Float32), banded.finish()}) {
            EXPECT_EQ(m.finiteCount, finite);
            EXPECT_EQ(m.meanAbsError, static_cast<double>(abs / count));
            EXPECT_EQ(m.meanRelError, static_cast<double>(rel / count));
            EXPECT_EQ(m.rmse, static_cast<double>(std::sqrt(sq / count)));
            EXPECT_EQ(m.errorBalance, static_cast<double>(balance / count));
            EXPECT_EQ(m.meanUlpError, static_cast<double>(ulp / count));
            EXPECT_EQ(m.cosine, static_cast<double>(dot / std::sqrt(normA * normR)));
        }
    }
    setNumThreads(0);
}
