// The charts' error data in one streaming pass (summarizeErrors, ErrorSummaryAccumulator in
// metrics.h): memory is the histograms, one counter per tolerance and per index of each axis,
// and the samples; never an element-sized buffer.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "element_access.h"
#include "opscope/error.h"
#include "opscope/metrics.h"
#include "opscope/parallel.h"
#include "opscope/view/slice.h"

namespace opscope::metrics {
namespace {

// The errors of a block of consecutive pairs, read a block at a time (one call per block, not
// two per element).
constexpr int64_t kBlock = 1024;
struct Block {
    double abs[kBlock], rel[kBlock];
    // Pairs [first, first + n) of the readers into [at, at + n), at + n <= kBlock.
    void read(const detail::Reader& readA, const detail::Reader& readR, int64_t first, int64_t n, DType dtype,
              int64_t at = 0) {
        double a[kBlock], r[kBlock];
        readA.block(first, n, a);
        readR.block(first, n, r);
        for (int64_t j = 0; j < n; ++j) {
            const ElementErrors e = detail::errorsOf(a[j], r[j], dtype, {});
            abs[at + j] = e.abs;
            rel[at + j] = e.rel;
        }
    }
};

// A tile of whole rows read as kTileRows strips of kStrip columns (a Block, row t at t * kStrip).
constexpr int64_t kTileRows = 8, kStrip = kBlock / kTileRows;

// Sums for the means and the maxima of a set of elements: an index of an axis, or the part of a
// run along the innermost axis added so far (what each outer axis gets of it at once).
struct ErrorSums {
    int64_t count = 0;      // finite pairs
    int64_t nonFinite = 0;  // pairs that are not both finite
    long double sumAbs = 0, sumRel = 0;
    double maxAbs = 0, maxRel = 0;

    void add(const ElementErrors& e) {
        if (std::isnan(e.abs)) {
            ++nonFinite;
            return;
        }
        ++count;
        sumAbs += static_cast<long double>(e.abs);
        sumRel += static_cast<long double>(e.rel);
        maxAbs = std::max(maxAbs, e.abs);
        maxRel = std::max(maxRel, e.rel);
    }
    // Elements abs[i * stride], rel[i * stride] for i in [0, n), in order (a run of a row, or a
    // column of a tile's rows): the two sums in locals, which stay on the x87 stack (added to in
    // memory, every element paid an 80-bit store and reload); the adds and their order are
    // those of add(e) per element.
    void add(const double* abs, const double* rel, int64_t n, int64_t stride = 1) {
        int64_t finite = 0;
        double hiAbs = maxAbs, hiRel = maxRel;  // locals: the arrays might alias members
        long double a = sumAbs, r = sumRel;
        for (int64_t i = 0; i < n; ++i) {
            const double ea = abs[i * stride], er = rel[i * stride];
            if (std::isnan(ea)) continue;
            ++finite;
            a += static_cast<long double>(ea);
            r += static_cast<long double>(er);
            hiAbs = std::max(hiAbs, ea);
            hiRel = std::max(hiRel, er);
        }
        count += finite;
        nonFinite += n - finite;
        sumAbs = a;
        sumRel = r;
        maxAbs = hiAbs;
        maxRel = hiRel;
    }
    void add(const ErrorSums& o) {
        count += o.count;
        nonFinite += o.nonFinite;
        sumAbs += o.sumAbs;
        sumRel += o.sumRel;
        maxAbs = std::max(maxAbs, o.maxAbs);
        maxRel = std::max(maxRel, o.maxRel);
    }
};

// Elements [0, n) of a block, which are indices col.. of the innermost axis, into that axis's
// entries (`run` indices each): each entry gets its elements in order.
void addToBins(ErrorSums* entries, int64_t col, int64_t run, const Block& b, int64_t n) {
    if (run == 1) {
        for (int64_t j = 0; j < n; ++j) entries[col + j].add(ElementErrors{b.abs[j], b.rel[j]});
        return;
    }
    for (int64_t j = 0; j < n;) {
        const int64_t entry = (col + j) / run, end = std::min(n, (entry + 1) * run - col);
        ErrorSums& s = entries[entry];
        for (; j < end; ++j) s.add(ElementErrors{b.abs[j], b.rel[j]});
    }
}

// How many consecutive indices of an axis share an entry: 1 unless it is longer than
// kMaxAxisPoints.
int64_t runOf(int64_t extent) { return std::max<int64_t>(1, (extent + kMaxAxisPoints - 1) / kMaxAxisPoints); }

std::vector<AxisErrorStats> statsOf(const std::vector<ErrorSums>& sums, int64_t extent) {
    std::vector<AxisErrorStats> out(sums.size());
    const int64_t run = runOf(extent);
    for (std::size_t k = 0; k < sums.size(); ++k) {
        const ErrorSums& s = sums[k];
        AxisErrorStats& o = out[k];
        o.index = static_cast<int64_t>(k) * run;
        o.indices = std::min(run, extent - o.index);
        o.count = s.count;
        o.nonFinite = s.nonFinite;
        o.maxAbs = s.maxAbs;
        o.maxRel = s.maxRel;
        if (s.count == 0) continue;
        o.meanAbs = static_cast<double>(s.sumAbs / static_cast<long double>(s.count));
        o.meanRel = static_cast<double>(s.sumRel / static_cast<long double>(s.count));
    }
    return out;
}

// The share below each tolerance, from how many elements had each first tolerance above them.
std::vector<ToleranceShare> sharesOf(const std::vector<double>& tolerances, const std::vector<int64_t>& firstAbove,
                                     int64_t n) {
    std::vector<ToleranceShare> out;
    int64_t within = 0;
    for (std::size_t t = 0; t < tolerances.size(); ++t) {
        within += firstAbove[t];
        out.push_back({tolerances[t], n > 0 ? static_cast<double>(within) / static_cast<double>(n) : 1.0});
    }
    return out;
}

}  // namespace

// The pass goes along runs of the innermost axis: each element adds to its index of that axis,
// and a run's sums go to the outer axes' indices once it ends (the same sums however the runs
// are cut into blocks: a run split between two adds goes on from where it stopped).
struct ErrorSummaryAccumulator::State {
    std::vector<int64_t> shape;
    DType outputDtype;
    std::unique_ptr<detail::EdgeIndex> tolerances;  // increasing
    int64_t numel = 0, next = 0;                    // elements in all, and the index of the next one added
    ErrorSummary summary;
    std::unique_ptr<detail::HistogramBinner> bins;
    std::vector<std::vector<ErrorSums>> axes;           // [axis][index / runs[axis]]
    std::vector<int64_t> runs;                          // runOf each axis's extent
    ErrorSums run;                                      // the innermost run added so far
    std::vector<int64_t> absFirstAbove, relFirstAbove;  // per detail::firstToleranceAbove
    std::vector<int64_t> samples;                       // the indices sampled, increasing
    std::size_t nextSample = 0;
    std::vector<int64_t> coords;  // of element `next`

    // The two halves of add() below run on two threads at once: each works on local copies of
    // what it writes per element, so that neither writes a cache line the other reads. Each
    // computes the elements' errors itself, so the halves share nothing either writes.

    // The relative errors' histogram and tolerance counts, and the samples, of elements
    // [next, next + n).
    void countRelative(const detail::Reader& readA, const detail::Reader& readR, int64_t n) {
        LogHistogram relH = std::move(summary.relHistogram);
        std::vector<int64_t> relAbove = std::move(relFirstAbove);
        Block b;
        for (int64_t k = 0; k < n; k += kBlock) {
            const int64_t m = std::min(kBlock, n - k);
            b.read(readA, readR, k, m, outputDtype);
            for (int64_t j = 0; j < m; ++j) {
                bins->add(relH, b.rel[j]);
                if (!std::isnan(b.abs[j])) ++relAbove[detail::firstToleranceAbove(*tolerances, b.rel[j])];
            }
            for (; nextSample < samples.size() && samples[nextSample] < next + k + m; ++nextSample) {
                const auto j = static_cast<std::size_t>(samples[nextSample] - next - k);
                if (!std::isfinite(b.abs[j])) continue;
                summary.sampleRef.push_back(std::fabs(detail::roundTo(readR(k + int64_t(j)), outputDtype)));
                summary.sampleAbs.push_back(b.abs[j]);
                summary.sampleRel.push_back(b.rel[j]);
            }
        }
        summary.relHistogram = std::move(relH);
        relFirstAbove = std::move(relAbove);
    }

    // The per-axis sums of the same elements, along the runs of the innermost axis, and the
    // absolute errors' histogram and tolerance counts.
    void sumAlongAxes(const detail::Reader& readA, const detail::Reader& readR, int64_t n) {
        const int64_t inner = shape.empty() ? 1 : shape.back();
        ErrorSums* innerAxis = axes.empty() ? nullptr : axes.back().data();
        const int64_t innerRun = runs.empty() ? 1 : runs.back();
        LogHistogram absH = std::move(summary.absHistogram);
        std::vector<int64_t> absAbove = std::move(absFirstAbove);
        Block b;
        for (int64_t k = 0; k < n;) {
            // Whole rows from here and an entry per column: kTileRows of them at a time.
            if (innerAxis && innerRun == 1 && coords.back() == 0 && inner >= kStrip && n - k >= kTileRows * inner) {
                sumRowTile(readA, readR, k, innerAxis, absH, absAbove);
                k += kTileRows * inner;
                continue;
            }
            const int64_t col = shape.empty() ? 0 : coords.back(), len = std::min({inner - col, n - k, kBlock});
            b.read(readA, readR, k, len, outputDtype);
            for (int64_t j = 0; j < len; ++j) {
                bins->add(absH, b.abs[j]);
                if (!std::isnan(b.abs[j])) ++absAbove[detail::firstToleranceAbove(*tolerances, b.abs[j])];
            }
            if (innerAxis) addToBins(innerAxis, col, innerRun, b, len);
            run.add(b.abs, b.rel, len);
            k += len;
            if (shape.empty()) continue;
            if (col + len < inner)
                coords.back() = col + len;  // the run goes on in the next block or add
            else
                endRun();
        }
        summary.absHistogram = std::move(absH);
        absFirstAbove = std::move(absAbove);
    }

    // kTileRows whole rows from element k (a run's first column), a strip of kStrip columns of
    // all of them at a time: each column's entry takes the rows' errors in row order with one
    // load and store of its long-double sums (not one an element), each row's run its strips in
    // column order, then the runs end in row order. The same adds in the same order as
    // element by element.
    void sumRowTile(const detail::Reader& readA, const detail::Reader& readR, int64_t k, ErrorSums* columns,
                    LogHistogram& absH, std::vector<int64_t>& absAbove) {
        const int64_t inner = shape.back();
        ErrorSums rows[kTileRows];
        Block b;
        for (int64_t c0 = 0; c0 < inner; c0 += kStrip) {
            const int64_t w = std::min(kStrip, inner - c0);
            for (int64_t t = 0; t < kTileRows; ++t)
                b.read(readA, readR, k + t * inner + c0, w, outputDtype, t * kStrip);
            for (int64_t t = 0; t < kTileRows; ++t)
                for (int64_t j = t * kStrip; j < t * kStrip + w; ++j) {
                    bins->add(absH, b.abs[j]);
                    if (!std::isnan(b.abs[j])) ++absAbove[detail::firstToleranceAbove(*tolerances, b.abs[j])];
                }
            for (int64_t j = 0; j < w; ++j) columns[c0 + j].add(b.abs + j, b.rel + j, kTileRows, kStrip);
            for (int64_t t = 0; t < kTileRows; ++t) rows[t].add(b.abs + t * kStrip, b.rel + t * kStrip, w);
        }
        for (const ErrorSums& r : rows) {
            run = r;
            endRun();
        }
    }

    // The innermost run ended: the outer axes get its sums; the odometer moves to the next one.
    void endRun() {
        for (std::size_t a = 0; a + 1 < axes.size(); ++a)
            axes[a][static_cast<std::size_t>(coords[a] / runs[a])].add(run);
        run = {};
        coords.back() = 0;
        for (std::size_t a = shape.size() - 1; a-- > 0;) {
            if (++coords[a] < shape[a]) break;
            coords[a] = 0;
        }
    }
};

ErrorSummaryAccumulator::ErrorSummaryAccumulator(std::vector<int64_t> shape, DType outputDtype,
                                                 std::vector<double> tolerances, int64_t maxSamples)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.shape = std::move(shape);
    s.outputDtype = outputDtype;
    s.tolerances = std::make_unique<detail::EdgeIndex>(std::move(tolerances), "the tolerances of an error summary");
    s.numel = shapeNumel(s.shape);
    s.summary.absHistogram = s.summary.relHistogram = detail::emptyLogHistogram(-10, 2, 4);
    s.bins = std::make_unique<detail::HistogramBinner>(s.summary.absHistogram);
    for (int64_t extent : s.shape) {
        s.runs.push_back(runOf(extent));
        s.axes.emplace_back(static_cast<std::size_t>((extent + s.runs.back() - 1) / s.runs.back()));
    }
    s.absFirstAbove.assign(s.tolerances->edges().size() + 1, 0);
    s.relFirstAbove.assign(s.tolerances->edges().size() + 1, 0);
    s.samples = view::sampleIndices(s.numel, maxSamples);
    s.coords.assign(s.shape.size(), 0);
}

ErrorSummaryAccumulator::~ErrorSummaryAccumulator() = default;

void ErrorSummaryAccumulator::add(const HostTensor& actual, const HostTensor& reference) {
    State& s = *state_;
    if (actual.numel() != reference.numel())
        throw UsageError("cannot summarize errors between " + shapeToString(actual.shape()) + " and " +
                         shapeToString(reference.shape()) + ": the element counts differ");
    if (actual.numel() > s.numel - s.next)
        throw UsageError("cannot summarize " + std::to_string(actual.numel()) + " more elements: " +
                         std::to_string(s.next) + " of " + std::to_string(s.numel) + " were added already");
    const detail::Reader readA(actual, "actual");
    const detail::Reader readR(reference, "reference");
    // Two independent halves of the pass, each with its own state: on two threads when there
    // are (the same sums either way).
    const int64_t n = actual.numel();
    parallelChunks(2, 1, [&](int, int64_t begin, int64_t end) {
        for (int64_t half = begin; half < end; ++half) {
            if (half == 0)
                s.countRelative(readA, readR, n);
            else
                s.sumAlongAxes(readA, readR, n);
        }
    });
    s.next += n;
}

ErrorSummary ErrorSummaryAccumulator::finish() {
    State& s = *state_;
    if (s.next != s.numel)
        throw UsageError("the error summary of " + shapeToString(s.shape) + " was given " + std::to_string(s.next) +
                         " of its " + std::to_string(s.numel) + " elements");
    for (std::size_t a = 0; a < s.axes.size(); ++a) s.summary.perAxis.push_back(statsOf(s.axes[a], s.shape[a]));
    s.summary.absShares = sharesOf(s.tolerances->edges(), s.absFirstAbove, s.numel);
    s.summary.relShares = sharesOf(s.tolerances->edges(), s.relFirstAbove, s.numel);
    return std::move(s.summary);
}

ErrorSummary summarizeErrors(const HostTensor& actual, const HostTensor& reference, DType outputDtype,
                             const std::vector<double>& tolerances, int64_t maxSamples) {
    ErrorSummaryAccumulator whole(actual.shape(), outputDtype, tolerances, maxSamples);
    whole.add(actual, reference);
    return whole.finish();
}

}  // namespace opscope::metrics
