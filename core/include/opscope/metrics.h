// Accuracy of one tensor against a reference, and the pass/fail standards Ascend operator
// developers are held to. One module for the CLI, the GUI's charts and the tests.
//
// Every metric compares `actual` with `reference` element by element after rounding the
// reference to the output dtype (a float64 golden rounded to fp16 is what a perfect fp16 kernel
// would return). Formulas, thresholds and sources: datasets/FORMAT.md, "Metrics and standards".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opscope/dtype.h"
#include "opscope/host_tensor.h"

namespace opscope::metrics {

// ---- per-dtype constants -------------------------------------------------------------------

struct DTypeTolerances {
    double cannThreshold = 0;   // T of the CANN single-benchmark standard
    double smallValue = 0;      // |reference| below this is a small value (msprobe benchmark)
    double smallValueAtol = 0;  // a small value is in error when |actual - reference| exceeds this
    int mantissaBits = 0;       // explicit mantissa bits, for ULP: 10 fp16, 7 bf16, 23 fp32, 52 fp64
    int minExponent = 0;        // exponent of the smallest normal: -14 fp16, -126 bf16/fp32, -1022 fp64
};
// fp16: T 2^-10, small 1e-3/1e-5; bf16: T 2^-7, small 1e-3/1e-5; fp32 and fp64: T 2^-13,
// small 1e-6/1e-9 (fp64 has its own ULP). Other dtypes use fp32's.
DTypeTolerances tolerancesFor(DType outputDtype);

// Guard of the relative error's denominator: rel = |a - r| / (|r| + guard), as CANN's tests do.
inline constexpr double kRelativeErrorGuard = 1e-7;

double relativeError(double actual, double reference, double guard = kRelativeErrorGuard);
// The spacing of `dtype` numbers at `reference`: 2^(max(floor(log2|r|), minExponent) - mantissaBits).
double ulpOf(double reference, DType dtype);
// |actual - reference| in units of ulpOf(reference): a correctly rounded result is within 0.5.
double ulpError(double actual, double reference, DType dtype);
// The value stored in `dtype` (round to nearest even); unchanged for float64 and non-float types.
double roundToDtype(double value, DType dtype);
// A float64 tensor holding `t`'s values rounded through `dtype`.
HostTensor roundedTo(const HostTensor& t, DType dtype);

// ---- comparing two tensors -----------------------------------------------------------------

struct CompareOptions {
    bool roundReference = true;  // round the reference to the output dtype first
    double relativeGuard = kRelativeErrorGuard;
    // Counts elements outside |a - r| <= atol + rtol * |r| (what a user-given tolerance judges).
    bool checkTolerance = false;
    double rtol = 0, atol = 0;
};

// One element, for "where is the worst one".
struct ElementRef {
    int64_t index = -1;                // row-major; -1 when there is none
    std::vector<int64_t> coords;       // in the actual tensor's shape
    double actual = 0, reference = 0;  // reference as compared (rounded)
    double absError = 0, relError = 0;
};

struct ComparisonMetrics {
    DType outputDtype = DType::Float32;
    std::vector<int64_t> shape;
    int64_t count = 0;        // elements compared
    int64_t finiteCount = 0;  // pairs where both are finite: the error metrics' domain

    int64_t nanActual = 0, nanReference = 0, infActual = 0, infReference = 0;
    // One side NaN and the other not, Inf against a finite value, or Inf of the other sign.
    int64_t nonFiniteMismatches = 0;
    ElementRef firstMismatch;

    double cosine = 1;  // a.r / (|a| |r|); 1 when both are zero, 0 when one is
    double maxAbsError = 0, meanAbsError = 0;
    double maxRelError = 0, meanRelError = 0;
    double rmse = 0;
    double errorBalance = 0;  // mean((a - r) / max(|r|, 1)): systematic drift, signed
    // Shares of all elements with relative error below 1e-2, 1e-3, 1e-4 ("double hundredth,
    // thousandth, ten-thousandth"); a matching NaN/Inf pair counts as within, a mismatch not.
    double shareRelBelow1e2 = 1, shareRelBelow1e3 = 1, shareRelBelow1e4 = 1;
    bool ulpApplicable = false;                // fp16, bf16, fp32 (and fp64) outputs
    double maxUlpError = 0, meanUlpError = 0;  // against the unrounded reference
    int64_t smallValueCount = 0;               // finite pairs with |r| < smallValue
    double smallValueErrorRatio = 0;           // of those, the share with |a - r| > smallValueAtol
    bool toleranceChecked = false;
    int64_t toleranceViolations = 0;  // finite pairs outside atol + rtol*|r|, plus mismatches
    ElementRef worstAbs, worstRel, worstTolerance;
};

// Throws UsageError (one sentence) when the element counts differ or a tensor is not
// numeric. Shapes may differ if the counts agree ([C] against [1, C]); coordinates are actual's.
ComparisonMetrics compare(const HostTensor& actual, const HostTensor& reference, DType outputDtype,
                          const CompareOptions& options = {});
// The output dtype is actual's when it is a floating type, float32 otherwise.
ComparisonMetrics compare(const HostTensor& actual, const HostTensor& reference);

// compare() fed a block at a time in row-major order: two tensors larger than memory compare with
// one band of each in memory, to the same metrics, bit for bit. Both tally the elements in chunks
// of 65,536 at fixed places, in parallel (opscope/parallel.h), and add the chunks' sums in order:
// the same bits however the elements arrive and on any thread count.
class ComparisonAccumulator {
public:
    // `shape` is actual's: the coordinates of the worst elements are in it.
    ComparisonAccumulator(std::vector<int64_t> shape, DType outputDtype, const CompareOptions& options = {});
    ~ComparisonAccumulator();
    ComparisonAccumulator(const ComparisonAccumulator&) = delete;
    ComparisonAccumulator& operator=(const ComparisonAccumulator&) = delete;
    // The next elements of both tensors (the same count, any shapes). Throws UsageError as
    // compare() does, or when they go past the shape's elements.
    void add(const HostTensor& actual, const HostTensor& reference);
    int64_t added() const;
    // Throws UsageError unless exactly the shape's elements were added.
    ComparisonMetrics finish();

private:
    struct State;
    std::unique_ptr<State> state_;
};

// ---- standards ------------------------------------------------------------------------------

enum class Verdict { Pass, Warning, Fail };  // Warning passes (msprobe's "warning")
const char* verdictName(Verdict v);          // "pass", "warning", "fail"
// The verdict verdictName gives `name`, or nothing.
std::optional<Verdict> verdictNamed(const std::string& name);

struct Judgement {
    Verdict verdict = Verdict::Pass;
    std::string standard;  // the standard's name
    std::string reason;    // one line with the numbers and thresholds
    bool passed() const { return verdict != Verdict::Fail; }
};

// A standard as data: what it is called, how it decides, and what compare() must compute.
struct Standard {
    std::string name;        // "cann", "dual-thousandth", "msprobe-legacy", "rtol=..,atol=.."
    std::string title;       // "CANN single-benchmark"
    std::string formula;     // the rule, for --help, reports and the GUI
    std::string thresholds;  // the numbers per dtype
    CompareOptions options;
    std::function<Judgement(const ComparisonMetrics&)> judge;
};

// cann, dual-thousandth, msprobe-legacy (the tolerance standard is made by toleranceStandard).
const std::vector<Standard>& builtinStandards();
// |a - r| <= atol + rtol*|r| for every element, no NaN/Inf mismatch.
Standard toleranceStandard(double rtol, double atol);
// A builtin name or alias ("cann", "single-benchmark", "dual-thousandth", "double-thousandth",
// "msprobe-legacy", "msprobe") or "rtol=X,atol=Y" (either part may be left out: 0). Throws
// UsageError with a sentence naming the accepted forms.
Standard parseStandard(const std::string& spec);
// The standard an operator's outputs are judged by unless told otherwise: "dual-thousandth"
// for convolution backward (msprobe's rule for convolutions), "cann" for every other operator.
std::string defaultStandardName(const std::string& opName);

// ---- error analysis for charts (the GUI's; tested without a display) ------------------------

// Element-wise |a - r| and relative error as float64 tensors of actual's shape; NaN where a
// pair is not both finite (0 where it is a matching NaN/Inf pair).
struct ErrorMaps {
    HostTensor absError, relError;
};
// One pair's errors as errorMaps computes them (the maps, the heatmap's per-slice error rows
// and the streamed chart data share it). `reference` is rounded to outputDtype when asked.
struct ElementErrors {
    double abs = 0, rel = 0;
};
ElementErrors elementErrors(double actual, double reference, DType outputDtype, const CompareOptions& options = {});
ErrorMaps errorMaps(const HostTensor& actual, const HostTensor& reference, DType outputDtype,
                    const CompareOptions& options = {});

// Counts of non-negative values in log-spaced bins: bin i covers [edge(i), edge(i+1)) with
// edge(i) = 10^(minExponent + i/binsPerDecade).
struct LogHistogram {
    int minExponent = -10, maxExponent = 2, binsPerDecade = 4;
    std::vector<int64_t> counts;
    int64_t zeros = 0;      // exactly 0
    int64_t below = 0;      // in (0, 10^minExponent)
    int64_t above = 0;      // >= 10^maxExponent
    int64_t nonFinite = 0;  // NaN or Inf (and negative values, which errors never are)
    double edge(std::size_t i) const;
    int64_t total() const;
};
LogHistogram logHistogram(const HostTensor& values, int minExponent = -10, int maxExponent = 2, int binsPerDecade = 4);

// Error statistics per index of one axis (per channel with axis 1 of NCHW).
struct AxisErrorStats {
    int64_t index = 0;
    int64_t indices = 1;    // how many consecutive indices from `index` (a long axis summarized in runs)
    int64_t count = 0;      // finite pairs
    int64_t nonFinite = 0;  // pairs that are not both finite
    double maxAbs = 0, meanAbs = 0, maxRel = 0, meanRel = 0;
};
// Throws UsageError for an axis outside the maps' rank.
std::vector<AxisErrorStats> perAxisErrors(const ErrorMaps& maps, int axis);

// The share of all elements whose error is below each tolerance (NaN counts as not within):
// the "how many pass at what tolerance" curve.
struct ToleranceShare {
    double tolerance = 0;
    double share = 0;
};
std::vector<ToleranceShare> cumulativeShare(const HostTensor& errors, const std::vector<double>& tolerances);
// 10^minExponent ... 10^maxExponent, `perDecade` points per decade.
std::vector<double> logTolerances(int minExponent = -8, int maxExponent = 0, int perDecade = 1);

// What the charts draw about an output's errors, gathered in one pass over the pair without
// whole-tensor error maps (a [32768, 4096] output would need 2 GiB of them): the log
// histograms, the shares within each tolerance, the errors per index of every axis, and
// (|reference|, abs, rel) at up to maxSamples evenly spaced finite elements. Equal to
// logHistogram / cumulativeShare / perAxisErrors over errorMaps(actual, reference, outputDtype),
// except that an axis longer than kMaxAxisPoints is summarized in that many runs of consecutive
// indices (the flat 10^9 elements of an optimizer buffer would otherwise need an entry each).
inline constexpr int64_t kMaxAxisPoints = 4096;
struct ErrorSummary {
    LogHistogram absHistogram, relHistogram;
    std::vector<ToleranceShare> absShares, relShares;
    std::vector<std::vector<AxisErrorStats>> perAxis;  // [axis][index along it]
    std::vector<double> sampleRef, sampleAbs, sampleRel;
};
ErrorSummary summarizeErrors(const HostTensor& actual, const HostTensor& reference, DType outputDtype,
                             const std::vector<double>& tolerances, int64_t maxSamples);

// summarizeErrors fed a block at a time in row-major order (two tensors compared a band of each
// at a time): the same summary, bit for bit, however the elements are cut into blocks.
class ErrorSummaryAccumulator {
public:
    // `shape` is actual's: the per-axis statistics are along its axes. `tolerances` increase
    // (UsageError otherwise).
    ErrorSummaryAccumulator(std::vector<int64_t> shape, DType outputDtype, std::vector<double> tolerances,
                            int64_t maxSamples);
    ~ErrorSummaryAccumulator();
    ErrorSummaryAccumulator(const ErrorSummaryAccumulator&) = delete;
    ErrorSummaryAccumulator& operator=(const ErrorSummaryAccumulator&) = delete;
    // The next elements of both tensors (the same count, any shapes). Throws UsageError when the
    // counts differ, a tensor holds no numbers, or they go past the shape's elements.
    void add(const HostTensor& actual, const HostTensor& reference);
    // Throws UsageError unless exactly the shape's elements were added.
    ErrorSummary finish();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace opscope::metrics
