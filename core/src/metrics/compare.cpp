// The element-wise comparison behind every metric: one pass over both tensors, in chunks tallied
// in parallel and summed in order (long double), with the reference rounded to the output dtype
// as it is read.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>

#include "element_access.h"
#include "opscope/error.h"
#include "opscope/float16.h"
#include "opscope/metrics.h"
#include "opscope/parallel.h"

namespace opscope::metrics {

DTypeTolerances tolerancesFor(DType outputDtype) {
    switch (outputDtype) {
        case DType::Float16: return {std::ldexp(1.0, -10), 1e-3, 1e-5, 10, -14};
        case DType::BFloat16: return {std::ldexp(1.0, -7), 1e-3, 1e-5, 7, -126};
        case DType::Float64: return {std::ldexp(1.0, -13), 1e-6, 1e-9, 52, -1022};
        default: return {std::ldexp(1.0, -13), 1e-6, 1e-9, 23, -126};
    }
}

double relativeError(double actual, double reference, double guard) {
    return std::fabs(actual - reference) / (std::fabs(reference) + guard);
}

namespace {

// ulpOf with the dtype's constants at hand (a compare asks for every element): floor(log2|r|)
// and the power of two read from the bits, as frexp and ldexp would give them.
double ulpWith(double reference, const DTypeTolerances& t) {
    if (!std::isfinite(reference)) return std::numeric_limits<double>::quiet_NaN();
    uint64_t bits = 0;
    std::memcpy(&bits, &reference, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);  // 0: zero or subnormal, below every minExponent
    const int exponent = biased == 0 ? t.minExponent : std::max(biased - 1023, t.minExponent);
    const int power = exponent - t.mantissaBits;
    if (power < -1022) return std::ldexp(1.0, power);  // a subnormal spacing (float64's smallest values)
    const uint64_t one = static_cast<uint64_t>(power + 1023) << 52;
    double out = 0;
    std::memcpy(&out, &one, sizeof out);
    return out;
}

double ulpErrorWith(double actual, double reference, const DTypeTolerances& t) {
    return std::fabs(actual - reference) / ulpWith(reference, t);
}

}  // namespace

double ulpOf(double reference, DType dtype) { return ulpWith(reference, tolerancesFor(dtype)); }

double ulpError(double actual, double reference, DType dtype) {
    return ulpErrorWith(actual, reference, tolerancesFor(dtype));
}

double roundToDtype(double value, DType dtype) { return detail::roundTo(value, dtype); }

HostTensor roundedTo(const HostTensor& t, DType dtype) {
    const detail::Reader read(t, "input");
    HostTensor out(DType::Float64, t.shape());
    double* o = out.dataAs<double>();
    for (int64_t i = 0; i < t.numel(); ++i) o[i] = detail::roundTo(read(i), dtype);
    return out;
}

namespace {

bool isUlpDtype(DType d) {
    return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 || d == DType::Float64;
}

void requireSameCount(const HostTensor& actual, const HostTensor& reference) {
    if (actual.numel() == reference.numel()) return;
    std::ostringstream os;
    os << "cannot compare tensors of different sizes: the actual tensor is " << dtypeName(actual.dtype())
       << shapeToString(actual.shape()) << " (" << actual.numel() << " elements) and the reference "
       << dtypeName(reference.dtype()) << shapeToString(reference.shape()) << " (" << reference.numel() << ")";
    throw UsageError(os.str());
}

ElementRef elementRef(int64_t i, const std::vector<int64_t>& shape, double a, double r, double absErr, double rel) {
    ElementRef e;
    e.index = i;
    e.coords = detail::coordsOf(i, shape);
    e.actual = a;
    e.reference = r;
    e.absError = absErr;
    e.relError = rel;
    return e;
}

bool sameNonFinite(double a, double r) {
    if (std::isnan(a) || std::isnan(r)) return std::isnan(a) && std::isnan(r);
    return std::isinf(a) && std::isinf(r) && std::signbit(a) == std::signbit(r);
}

// What one pass accumulates besides the counts kept in ComparisonMetrics itself.
struct Sums {
    long double abs = 0, rel = 0, sq = 0, balance = 0, ulp = 0;
    long double dot = 0, normA = 0, normR = 0;
    int64_t within2 = 0, within3 = 0, within4 = 0, smallErrors = 0;
    double worstToleranceRatio = -1;
};

// A pair where either side is NaN or Inf: equal non-finite values agree at every share.
void addNonFinite(ComparisonMetrics& m, Sums& s, int64_t i, double a, double r, const CompareOptions& options) {
    if (sameNonFinite(a, r)) {
        ++s.within2, ++s.within3, ++s.within4;
        return;
    }
    if (m.nonFiniteMismatches++ == 0)
        m.firstMismatch = elementRef(i, m.shape, a, r, std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::infinity());
    if (options.checkTolerance) ++m.toleranceViolations;
}

void addTolerance(ComparisonMetrics& m, Sums& s, int64_t i, double a, double r, double absErr, double rel,
                  const CompareOptions& options) {
    const double limit = options.atol + options.rtol * std::fabs(r);
    if (absErr > limit) ++m.toleranceViolations;
    const double ratio = limit > 0 ? absErr / limit : (absErr > 0 ? std::numeric_limits<double>::infinity() : 0);
    if (ratio > s.worstToleranceRatio) {
        s.worstToleranceRatio = ratio;
        m.worstTolerance = elementRef(i, m.shape, a, r, absErr, rel);
    }
}

// A finite pair's terms of the long-double sums, kept until the sums of its block are made
// (sumTerms): a, r, and the errors the metrics average.
struct Terms {
    double a, r, abs, rel, balance, ulp;
};

// A finite pair; `exact` is the reference before rounding (ULP is measured against it). Counts,
// worst elements and shares here, in element order; the sums from `terms` afterwards.
void addFinite(ComparisonMetrics& m, Sums& s, Terms& terms, int64_t i, double a, double r, double exact,
               const CompareOptions& options, const DTypeTolerances& tol) {
    ++m.finiteCount;
    const double absErr = std::fabs(a - r);
    const double rel = absErr / (std::fabs(r) + options.relativeGuard);
    terms = {a, r, absErr, rel, (a - r) / std::max(std::fabs(r), 1.0), 0.0};
    if (m.worstAbs.index < 0 || absErr > m.maxAbsError) {
        m.maxAbsError = absErr;
        m.worstAbs = elementRef(i, m.shape, a, r, absErr, rel);
    }
    if (m.worstRel.index < 0 || rel > m.maxRelError) {
        m.maxRelError = rel;
        m.worstRel = elementRef(i, m.shape, a, r, absErr, rel);
    }
    s.within2 += rel < 1e-2;
    s.within3 += rel < 1e-3;
    s.within4 += rel < 1e-4;
    if (m.ulpApplicable) {
        terms.ulp = ulpErrorWith(a, std::isfinite(exact) ? exact : r, tol);
        m.maxUlpError = std::max(m.maxUlpError, terms.ulp);
    }
    if (std::fabs(r) < tol.smallValue) {
        ++m.smallValueCount;
        s.smallErrors += absErr > tol.smallValueAtol;
    }
    if (options.checkTolerance) addTolerance(m, s, i, a, r, absErr, rel, options);
}

// The long-double sums of `n` finite pairs' terms, each sum in element order. Four sums a loop,
// in locals: the x87 stack holds them between elements. Summed per element into memory, as
// before, each paid an 80-bit store and reload an element (a microcoded, slow store), which was
// most of a comparison's time (bench/README.md); the adds are the same, in the same order: the
// same bits.
void sumTerms(Sums& s, const Terms* terms, std::size_t n, bool ulpApplicable) {
    long double abs = s.abs, rel = s.rel, sq = s.sq, balance = s.balance;
    for (std::size_t j = 0; j < n; ++j) {
        const Terms& t = terms[j];
        abs += static_cast<long double>(t.abs);
        rel += static_cast<long double>(t.rel);
        sq += static_cast<long double>(t.abs) * static_cast<long double>(t.abs);
        balance += static_cast<long double>(t.balance);
    }
    s.abs = abs, s.rel = rel, s.sq = sq, s.balance = balance;
    long double dot = s.dot, normA = s.normA, normR = s.normR;
    for (std::size_t j = 0; j < n; ++j) {
        const Terms& t = terms[j];
        dot += static_cast<long double>(t.a) * static_cast<long double>(t.r);
        normA += static_cast<long double>(t.a) * static_cast<long double>(t.a);
        normR += static_cast<long double>(t.r) * static_cast<long double>(t.r);
    }
    s.dot = dot, s.normA = normA, s.normR = normR;
    if (!ulpApplicable) return;
    long double ulp = s.ulp;
    for (std::size_t j = 0; j < n; ++j) ulp += static_cast<long double>(terms[j].ulp);
    s.ulp = ulp;
}

// Means, cosine and shares from the sums.
void finish(ComparisonMetrics& m, const Sums& s) {
    if (m.finiteCount > 0) {
        const long double n = static_cast<long double>(m.finiteCount);
        m.meanAbsError = static_cast<double>(s.abs / n);
        m.meanRelError = static_cast<double>(s.rel / n);
        m.rmse = static_cast<double>(std::sqrt(s.sq / n));
        m.errorBalance = static_cast<double>(s.balance / n);
        m.meanUlpError = m.ulpApplicable ? static_cast<double>(s.ulp / n) : 0;
    }
    if (s.normA == 0 && s.normR == 0)
        m.cosine = 1;
    else if (s.normA == 0 || s.normR == 0)
        m.cosine = 0;
    else
        m.cosine = static_cast<double>(std::max(-1.0L, std::min(1.0L, s.dot / std::sqrt(s.normA * s.normR))));
    if (m.count > 0) {
        const double n = static_cast<double>(m.count);
        m.shareRelBelow1e2 = static_cast<double>(s.within2) / n;
        m.shareRelBelow1e3 = static_cast<double>(s.within3) / n;
        m.shareRelBelow1e4 = static_cast<double>(s.within4) / n;
    }
    m.smallValueErrorRatio =
        m.smallValueCount > 0 ? static_cast<double>(s.smallErrors) / static_cast<double>(m.smallValueCount) : 0;
}

}  // namespace

namespace {

// The elements are tallied in chunks of this many, at fixed places (multiples of it in the
// row-major order), each chunk alone and in order, and the chunks' tallies added in order: the
// same bits however the elements arrive (whole, in bands) and however many threads tally them.
constexpr int64_t kChunk = 1 << 16;

// What a run of elements adds up to: counts, worst elements and max ULP (in a ComparisonMetrics
// whose means are not made yet), and the sums.
struct Tally {
    ComparisonMetrics m;
    Sums sums;
};

// Elements [from, from + count) of the readers, which are elements first.. of the whole: a block
// of them at a time, its counts per element, then its sums (sumTerms).
void tallyRange(Tally& t, const detail::Reader& readA, const detail::Reader& readR, int64_t from, int64_t count,
                int64_t first, const CompareOptions& options, const DTypeTolerances& tol) {
    constexpr int64_t kBlock = 1024;
    Terms terms[kBlock];
    ComparisonMetrics& m = t.m;
    for (int64_t b = 0; b < count; b += kBlock) {
        std::size_t finite = 0;
        for (int64_t k = b; k < std::min(count, b + kBlock); ++k) {
            const double a = readA(from + k);
            const double exact = readR(from + k);
            const double r = options.roundReference ? detail::roundTo(exact, m.outputDtype) : exact;
            m.nanActual += std::isnan(a);
            m.infActual += std::isinf(a);
            m.nanReference += std::isnan(r);
            m.infReference += std::isinf(r);
            if (!std::isfinite(a) || !std::isfinite(r))
                addNonFinite(m, t.sums, first + k, a, r, options);
            else
                addFinite(m, t.sums, terms[finite++], first + k, a, r, exact, options, tol);
        }
        sumTerms(t.sums, terms, finite, m.ulpApplicable);
    }
}

// `next`'s elements follow `into`'s: counts and sums add, the first worst element stays worst.
void mergeTally(Tally& into, const Tally& next) {
    ComparisonMetrics& a = into.m;
    const ComparisonMetrics& b = next.m;
    a.nanActual += b.nanActual;
    a.infActual += b.infActual;
    a.nanReference += b.nanReference;
    a.infReference += b.infReference;
    if (a.nonFiniteMismatches == 0 && b.nonFiniteMismatches > 0) a.firstMismatch = b.firstMismatch;
    a.nonFiniteMismatches += b.nonFiniteMismatches;
    a.finiteCount += b.finiteCount;
    if (b.worstAbs.index >= 0 && (a.worstAbs.index < 0 || b.maxAbsError > a.maxAbsError)) {
        a.maxAbsError = b.maxAbsError;
        a.worstAbs = b.worstAbs;
    }
    if (b.worstRel.index >= 0 && (a.worstRel.index < 0 || b.maxRelError > a.maxRelError)) {
        a.maxRelError = b.maxRelError;
        a.worstRel = b.worstRel;
    }
    a.maxUlpError = std::max(a.maxUlpError, b.maxUlpError);
    a.smallValueCount += b.smallValueCount;
    a.toleranceViolations += b.toleranceViolations;
    Sums& s = into.sums;
    const Sums& t = next.sums;
    if (t.worstToleranceRatio > s.worstToleranceRatio) {
        s.worstToleranceRatio = t.worstToleranceRatio;
        a.worstTolerance = b.worstTolerance;
    }
    s.abs += t.abs, s.rel += t.rel, s.sq += t.sq, s.balance += t.balance, s.ulp += t.ulp;
    s.dot += t.dot, s.normA += t.normA, s.normR += t.normR;
    s.within2 += t.within2, s.within3 += t.within3, s.within4 += t.within4, s.smallErrors += t.smallErrors;
}

}  // namespace

struct ComparisonAccumulator::State {
    Tally fresh;  // an empty tally: the shape and dtype set, nothing counted
    Tally total;  // of the chunks done
    Tally open;   // of the chunk the next element belongs to
    int64_t count = 0;
    CompareOptions options;
    DTypeTolerances tol;
    int64_t next = 0;  // the row-major index of the next element added
};

ComparisonAccumulator::ComparisonAccumulator(std::vector<int64_t> shape, DType outputDtype,
                                             const CompareOptions& options)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.options = options;
    s.tol = tolerancesFor(outputDtype);
    s.count = shapeNumel(shape);
    ComparisonMetrics& m = s.fresh.m;
    m.outputDtype = outputDtype;
    m.shape = std::move(shape);
    m.ulpApplicable = isUlpDtype(outputDtype);
    m.toleranceChecked = options.checkTolerance;
    s.total = s.open = s.fresh;
}

ComparisonAccumulator::~ComparisonAccumulator() = default;

void ComparisonAccumulator::add(const HostTensor& actual, const HostTensor& reference) {
    requireSameCount(actual, reference);
    State& s = *state_;
    const int64_t n = actual.numel();
    if (n > s.count - s.next)
        throw UsageError("a comparison of " + std::to_string(s.count) + " elements was given " +
                         std::to_string(s.next + n));
    const detail::Reader readA(actual, "actual");
    const detail::Reader readR(reference, "reference");
    for (int64_t k = 0; k < n;) {
        if (s.next % kChunk != 0 || n - k < kChunk) {  // the rest of a chunk, or a chunk's start
            const int64_t take = std::min(n - k, kChunk - s.next % kChunk);
            tallyRange(s.open, readA, readR, k, take, s.next, s.options, s.tol);
            k += take;
            s.next += take;
            if (s.next % kChunk == 0) {
                mergeTally(s.total, s.open);
                s.open = s.fresh;
            }
            continue;
        }
        const int64_t chunks = (n - k) / kChunk;  // whole chunks: tallied in parallel, added in order
        std::vector<Tally> tallies(static_cast<std::size_t>(chunks), s.fresh);
        parallelFor(0, chunks, 1, [&](int64_t begin, int64_t end) {
            for (int64_t c = begin; c < end; ++c)
                tallyRange(tallies[static_cast<std::size_t>(c)], readA, readR, k + c * kChunk, kChunk,
                           s.next + c * kChunk, s.options, s.tol);
        });
        for (const Tally& t : tallies) mergeTally(s.total, t);
        k += chunks * kChunk;
        s.next += chunks * kChunk;
    }
}

int64_t ComparisonAccumulator::added() const { return state_->next; }

ComparisonMetrics ComparisonAccumulator::finish() {
    State& s = *state_;
    if (s.next != s.count)
        throw UsageError("a comparison of " + std::to_string(s.count) + " elements was given " +
                         std::to_string(s.next));
    Tally all = s.total;
    mergeTally(all, s.open);
    all.m.count = s.count;
    metrics::finish(all.m, all.sums);
    return all.m;
}

ComparisonMetrics compare(const HostTensor& actual, const HostTensor& reference, DType outputDtype,
                          const CompareOptions& options) {
    requireSameCount(actual, reference);
    ComparisonAccumulator whole(actual.shape(), outputDtype, options);
    whole.add(actual, reference);
    return whole.finish();
}

ComparisonMetrics compare(const HostTensor& actual, const HostTensor& reference) {
    const DType d = isFloatingType(actual.dtype()) ? actual.dtype() : DType::Float32;
    return compare(actual, reference, d);
}

}  // namespace opscope::metrics
