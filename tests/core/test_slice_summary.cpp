// The heatmap's streaming pass over a slice (view/slice_summary.h) and the analysis' streamed
// error data (metrics::summarizeErrors): both must equal the whole-tensor computations they
// replace, on small tensors where those are cheap.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "opscope/error.h"
#include "opscope/metrics.h"
#include "opscope/row_major_blocks.h"
#include "opscope/stats.h"
#include "opscope/view/downsample.h"
#include "opscope/view/masks.h"
#include "opscope/view/scale.h"
#include "opscope/view/slice_summary.h"
#include "slice_test_data.h"

namespace opscope::view {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor randomTensor(DType dt, std::vector<int64_t> shape, unsigned seed, double scale = 1.0) {
    return test::randomNormal(dt, std::move(shape), seed, 0.0, scale);
}

// Cell by cell over each block: the obvious computation the streaming one must match.
Downsampled naiveDownsample(const Plane& p, int64_t maxRows, int64_t maxCols) {
    Downsampled d;
    d.blockRows = (p.rows + maxRows - 1) / maxRows;
    d.blockCols = (p.cols + maxCols - 1) / maxCols;
    d.rows = (p.rows + d.blockRows - 1) / d.blockRows;
    d.cols = (p.cols + d.blockCols - 1) / d.blockCols;
    for (int64_t br = 0; br < d.rows; ++br)
        for (int64_t bc = 0; bc < d.cols; ++bc) {
            Cell cell{0, 0, 0};
            bool any = false;
            for (int64_t r = br * d.blockRows; r < std::min(p.rows, (br + 1) * d.blockRows); ++r)
                for (int64_t c = bc * d.blockCols; c < std::min(p.cols, (bc + 1) * d.blockCols); ++c) {
                    const double x = p.at(r, c);
                    if (std::isnan(x)) cell.flags |= kCellNaN;
                    if (std::isinf(x)) cell.flags |= x > 0 ? kCellPosInf : kCellNegInf;
                    if (!std::isfinite(x)) continue;
                    cell.min = any ? std::min(cell.min, x) : x;
                    cell.max = any ? std::max(cell.max, x) : x;
                    any = true;
                }
            if (!any) cell.flags |= kCellEmpty;
            d.cells.push_back(cell);
        }
    return d;
}

void expectSameCells(const Downsampled& a, const Downsampled& b) {
    ASSERT_EQ(a.rows, b.rows);
    ASSERT_EQ(a.cols, b.cols);
    ASSERT_EQ(a.blockRows, b.blockRows);
    ASSERT_EQ(a.blockCols, b.blockCols);
    for (std::size_t i = 0; i < a.cells.size(); ++i) {
        EXPECT_EQ(a.cells[i].min, b.cells[i].min) << "cell " << i;
        EXPECT_EQ(a.cells[i].max, b.cells[i].max) << "cell " << i;
        EXPECT_EQ(a.cells[i].flags, b.cells[i].flags) << "cell " << i;
    }
}

TEST(SliceSummary, StreamingCellsMatchTheNaiveComputationAndKeepExtremes) {
    HostTensor t = randomTensor(DType::Float32, {3, 97, 61}, 7);
    const int64_t base = 1 * 97 * 61;  // slice index 1 of axis 0
    t.setFromDouble(base + 5 * 61 + 7, kNaN);
    t.setFromDouble(base + 50 * 61 + 60, kInf);
    t.setFromDouble(base + 96 * 61 + 0, -kInf);
    t.setFromDouble(base + 33 * 61 + 33, -1000);  // one spike in 5917 elements
    SliceSource src;
    src.tensor = t.view();
    SliceRequest req;
    req.spec = defaultSlice(t.shape());
    req.spec.index = {1, 0, 0};
    req.maxCells = 10;
    const SliceSummary s = summarizeSlice(src, req);
    const Plane plane = extractPlane(t.view(), req.spec);
    expectSameCells(s.cells, naiveDownsample(plane, 10, 10));
    expectSameCells(downsample(plane, 10, 10), s.cells);
    // The spike and every non-finite value are visible in the 10 x 10 cells.
    const Cell& spike = s.cells.at(33 / s.cells.blockRows, 33 / s.cells.blockCols);
    EXPECT_EQ(cellDisplayValue(spike, 0.0), -1000);
    EXPECT_TRUE(s.cells.at(5 / s.cells.blockRows, 7 / s.cells.blockCols).flags & kCellNaN);
    EXPECT_TRUE(s.cells.at(50 / s.cells.blockRows, 60 / s.cells.blockCols).flags & kCellPosInf);
    EXPECT_TRUE(s.cells.at(96 / s.cells.blockRows, 0).flags & kCellNegInf);
    // Statistics equal the whole plane's.
    const TensorStats whole = computeStats(sliceView(t.view(), req.spec));
    EXPECT_EQ(s.stats.count, whole.count);
    EXPECT_EQ(s.stats.nanCount, 1);
    EXPECT_EQ(s.stats.infCount, 2);
    EXPECT_EQ(s.stats.min, -1000);
    EXPECT_EQ(s.stats.max, whole.max);
    EXPECT_NEAR(s.stats.mean, whole.mean, 1e-12);
    // Small enough to keep every value: the sample is the plane.
    EXPECT_FALSE(s.sampled);
    ASSERT_EQ(s.sample.size(), plane.values.size());
}

TEST(SliceSummary, RowsInAnyOrderGiveTheSameCells) {
    const HostTensor t = randomTensor(DType::Float64, {40, 30}, 3);
    const Plane p = extractPlane(t.view(), defaultSlice(t.shape()));
    Downsampler d(p.rows, p.cols, 7, 4);
    for (int64_t r = p.rows; r-- > 0;) d.addRow(r, &p.values[static_cast<std::size_t>(r * p.cols)]);
    expectSameCells(d.take(), naiveDownsample(p, 7, 4));
}

TEST(SliceSummary, TransposedSliceOfAStridedView) {
    const HostTensor t = randomTensor(DType::Float16, {6, 5, 4}, 11);
    const SliceSpec spec{2, 0, {0, 3, 0}};
    SliceSource src;
    src.tensor = t.view();
    SliceRequest req;
    req.spec = spec;
    req.maxCells = 3;
    const SliceSummary s = summarizeSlice(src, req);
    EXPECT_EQ(s.rows, 4);
    EXPECT_EQ(s.cols, 6);
    expectSameCells(s.cells, naiveDownsample(extractPlane(t.view(), spec), 3, 3));
}

void expectSameStats(const TensorStats& a, const TensorStats& b) {
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.finiteCount, b.finiteCount);
    EXPECT_EQ(a.nanCount, b.nanCount);
    EXPECT_EQ(a.infCount, b.infCount);
    EXPECT_EQ(a.zeroCount, b.zeroCount);
    EXPECT_EQ(a.min, b.min);
    EXPECT_EQ(a.max, b.max);
    EXPECT_DOUBLE_EQ(a.mean, b.mean);
    EXPECT_DOUBLE_EQ(a.meanAbs, b.meanAbs);
    EXPECT_DOUBLE_EQ(a.stddev, b.stddev);
}

// The default slice of t (all of a 2-D tensor) summarised in at most maxCells per axis.
SliceRequest wholeSliceRequest(const HostTensor& t, int64_t maxCells) {
    SliceRequest req;
    req.spec = defaultSlice(t.shape());
    req.maxCells = maxCells;
    return req;
}
SliceSummary summaryOf(const HostTensor& t, const SliceRequest& req) {
    SliceSource src;
    src.tensor = t.view();
    return summarizeSlice(src, req);
}

// The pass's statistics are computeStats' (standard deviation and zeros included), and it
// finds the first NaN/Inf in row-major order.
TEST(SliceSummary, StatisticsAreComputeStatsAndTheFirstNonFiniteIsFound) {
    HostTensor t = randomTensor(DType::Float32, {37, 53}, 9, 3.0);
    t.setFromDouble(5, 0.0);
    t.setFromDouble(20 * 53 + 7, kInf);
    t.setFromDouble(31 * 53 + 2, kNaN);
    const SliceSummary s = summaryOf(t, wholeSliceRequest(t, 8));
    expectSameStats(s.stats, computeStats(t.view()));
    EXPECT_EQ(s.firstNonFiniteRow, 20);
    EXPECT_EQ(s.firstNonFiniteCol, 7);
}

// Fed from outside in row bands, bands in any order (as the dataset view streams a big
// dataset), the summarizer gives summarizeSlice's cells, statistics and first NaN.
TEST(SliceSummary, RowBandsFedFromOutsideEqualTheWholePass) {
    HostTensor t = randomTensor(DType::Float32, {101, 64}, 11);
    t.setFromDouble(77 * 64 + 40, kNaN);
    t.setFromDouble(90 * 64 + 1, -kInf);
    const SliceRequest req = wholeSliceRequest(t, 16);
    const SliceSummary whole = summaryOf(t, req);
    SliceSummarizer pass(101, 64, req);
    std::vector<double> row(64);
    for (int64_t band : {3, 0, 2, 1})  // bands of 32 rows (the last one 5)
        for (int64_t r = band * 32; r < std::min<int64_t>(101, band * 32 + 32); ++r) {
            for (int64_t c = 0; c < 64; ++c) row[std::size_t(c)] = t.getAsDouble(r * 64 + c);
            pass.addRow(r, row.data());
        }
    const SliceSummary banded = pass.take();
    expectSameCells(banded.cells, whole.cells);
    EXPECT_EQ(banded.stats.count, whole.stats.count);
    EXPECT_EQ(banded.stats.nanCount, 1);
    EXPECT_EQ(banded.stats.infCount, 1);
    EXPECT_EQ(banded.stats.min, whole.stats.min);
    EXPECT_EQ(banded.stats.max, whole.stats.max);
    EXPECT_NEAR(banded.stats.mean, whole.stats.mean, 1e-12);
    EXPECT_NEAR(banded.stats.stddev, whole.stats.stddev, 1e-12);
    EXPECT_EQ(banded.firstNonFiniteRow, 77);
    EXPECT_EQ(banded.firstNonFiniteCol, 40);
}

// One long row (a rank-1 tensor) fed in parts of any size, cells cut mid-part: the cells, the
// sample, the counts, extremes and the first NaN of the whole row; the means to rounding.
TEST(SliceSummary, ARowFedInPartsEqualsTheWholeRow) {
    HostTensor t = randomTensor(DType::Float32, {1, 5000}, 12);
    t.setFromDouble(3210, kNaN);
    t.setFromDouble(4444, kInf);
    SliceRequest req = wholeSliceRequest(t, 64);
    req.maxSamples = 700;  // sampled every 8th value
    const SliceSummary whole = summaryOf(t, req);
    const std::vector<double> values = t.toDoubles();
    for (int64_t part : {int64_t{1}, int64_t{7}, int64_t{79}, int64_t{1000}, int64_t{4999}}) {
        SliceSummarizer pass(1, 5000, req);
        for (int64_t c = 0; c < 5000; c += part)
            pass.addRowPart(0, c, values.data() + c, std::min<int64_t>(part, 5000 - c));
        const SliceSummary parts = pass.take();
        expectSameCells(parts.cells, whole.cells);
        EXPECT_EQ(parts.sample, whole.sample) << part;
        EXPECT_EQ(parts.stats.count, whole.stats.count);
        EXPECT_EQ(parts.stats.infCount, 1);
        EXPECT_EQ(parts.stats.min, whole.stats.min);
        EXPECT_EQ(parts.stats.max, whole.stats.max);
        EXPECT_NEAR(parts.stats.mean, whole.stats.mean, 1e-12);
        EXPECT_EQ(parts.firstNonFiniteRow, 0);
        EXPECT_EQ(parts.firstNonFiniteCol, 3210);
    }
}

TEST(SliceSummary, LargeSlicesAreSampledWithExactExtremes) {
    HostTensor t = randomTensor(DType::Float32, {300, 200}, 5);
    t.setFromDouble(12345, 77.0);  // not on the sampling grid (step 60)
    t.setFromDouble(54321, -55.0);
    SliceSource src;
    src.tensor = t.view();
    SliceRequest req;
    req.spec = defaultSlice(t.shape());
    req.maxSamples = 1000;
    const SliceSummary s = summarizeSlice(src, req);
    EXPECT_TRUE(s.sampled);
    EXPECT_LE(s.sample.size(), 1003u);
    EXPECT_GE(s.sample.size(), 1000u);
    const ValueRange autofit = computeRange(s.sample, RangeRequest{});
    EXPECT_EQ(autofit.lo, -55.0);
    EXPECT_EQ(autofit.hi, 77.0);
}

// An error map's slice, computed from the output and the reference row by row, equals the
// same slice of the whole-tensor maps (metrics::errorMaps), and so does the tolerance mask.
TEST(SliceSummary, PerSliceErrorMapsEqualTheWholeTensorMaps) {
    HostTensor ref = randomTensor(DType::Float64, {4, 33, 21}, 1);
    HostTensor out = test::perturbedFloat16(ref);
    out.setFromDouble(2 * 33 * 21 + 40, kNaN);  // a NaN the reference lacks: error NaN, beyond
    const metrics::ErrorMaps maps = metrics::errorMaps(out, ref, DType::Float16);
    for (SliceContent content : {SliceContent::AbsError, SliceContent::RelError}) {
        const SliceSource src = test::float16ErrorSource(out, ref, content);
        SliceRequest req;
        req.spec = defaultSlice(out.shape());
        req.spec.index = {2, 0, 0};
        req.maxCells = 8;
        req.tolerance = true;
        req.absTolerance = 1e-4;
        req.relTolerance = 1e-4;
        const SliceSummary s = summarizeSlice(src, req);
        const HostTensor& map = content == SliceContent::AbsError ? maps.absError : maps.relError;
        const Plane expected = extractPlane(map.view(), req.spec);
        expectSameCells(s.cells, naiveDownsample(expected, 8, 8));
        ASSERT_EQ(s.sample.size(), expected.values.size());
        for (std::size_t i = 0; i < s.sample.size(); ++i)
            if (!std::isnan(expected.values[i])) EXPECT_EQ(s.sample[i], expected.values[i]);
        const ToleranceMask mask = beyondTolerance(extractPlane(maps.absError.view(), req.spec),
                                                   extractPlane(maps.relError.view(), req.spec), 1e-4, 1e-4);
        EXPECT_EQ(s.beyondCount, mask.count);
        EXPECT_GT(s.beyondCount, 0);
        expectSameCells(*s.beyond, naiveDownsample(mask.mask, 8, 8));
    }
}

TEST(SliceSummary, AnErrorMapWithoutAReferenceIsAnError) {
    const HostTensor t = randomTensor(DType::Float32, {4, 4}, 2);
    SliceSource src;
    src.tensor = t.view();
    src.content = SliceContent::RelError;
    EXPECT_THROW(summarizeSlice(src, SliceRequest{}), UsageError);
    const HostTensor other = randomTensor(DType::Float32, {2, 8}, 2);
    src.reference = other.view();
    EXPECT_THROW(summarizeSlice(src, SliceRequest{}), UsageError);
}

TEST(SliceSummary, FirstNonFiniteOfAStridedView) {
    HostTensor t = randomTensor(DType::Float32, {5, 6}, 9);
    t.setFromDouble(4 * 6 + 1, kNaN);  // [4, 1], which the transposed view meets at [1, 4]
    t.setFromDouble(2 * 6 + 3, kInf);  // [2, 3] -> [3, 2], earlier in the transposed order
    TensorView tr = t.view();
    std::swap(tr.shape[0], tr.shape[1]);
    std::swap(tr.strides[0], tr.strides[1]);
    EXPECT_EQ(firstNonFinite(t.view()), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(firstNonFinite(tr), (std::vector<int64_t>{1, 4}));
}

}  // namespace
}  // namespace opscope::view

namespace opscope::metrics {
namespace {

TEST(ErrorSummary, EqualsTheMapBasedChartData) {
    const HostTensor ref = view::randomTensor(DType::Float64, {3, 5, 7}, 21);
    HostTensor out(DType::Float32, ref.shape());
    for (int64_t i = 0; i < ref.numel(); ++i) out.setFromDouble(i, ref.getAsDouble(i) + 1e-5 * std::cos(i));
    out.setFromDouble(17, std::numeric_limits<double>::infinity());
    const std::vector<double> tol = logTolerances(-8, 0, 4);
    const ErrorSummary s = summarizeErrors(out, ref, DType::Float32, tol, 10);
    const ErrorMaps maps = errorMaps(out, ref, DType::Float32);
    EXPECT_EQ(s.absHistogram.counts, logHistogram(maps.absError).counts);
    EXPECT_EQ(s.relHistogram.counts, logHistogram(maps.relError).counts);
    EXPECT_EQ(s.relHistogram.nonFinite, 1);
    const std::vector<ToleranceShare> shares = cumulativeShare(maps.relError, tol);
    ASSERT_EQ(s.relShares.size(), shares.size());
    for (std::size_t i = 0; i < shares.size(); ++i) EXPECT_EQ(s.relShares[i].share, shares[i].share);
    const std::vector<ToleranceShare> absShares = cumulativeShare(maps.absError, tol);
    ASSERT_EQ(s.absShares.size(), absShares.size());
    for (std::size_t i = 0; i < absShares.size(); ++i) EXPECT_EQ(s.absShares[i].share, absShares[i].share);
    ASSERT_EQ(s.perAxis.size(), 3u);
    for (int axis = 0; axis < 3; ++axis) {
        const std::vector<AxisErrorStats> expected = perAxisErrors(maps, axis);
        ASSERT_EQ(s.perAxis[static_cast<std::size_t>(axis)].size(), expected.size());
        for (std::size_t k = 0; k < expected.size(); ++k) {
            const AxisErrorStats& got = s.perAxis[static_cast<std::size_t>(axis)][k];
            EXPECT_EQ(got.count, expected[k].count);
            EXPECT_EQ(got.nonFinite, expected[k].nonFinite);
            EXPECT_EQ(got.maxRel, expected[k].maxRel);
            EXPECT_NEAR(got.meanAbs, expected[k].meanAbs, 1e-18);
        }
    }
    // Samples at evenly spaced finite elements (index 17 is the Inf and is skipped if drawn).
    EXPECT_LE(s.sampleAbs.size(), 10u);
    EXPECT_GE(s.sampleAbs.size(), 9u);
    EXPECT_EQ(s.sampleAbs.front(), maps.absError.getAsDouble(0));
    EXPECT_THROW(summarizeErrors(out, HostTensor(DType::Float64, {4}), DType::Float32, tol, 10), UsageError);
}

// An axis longer than kMaxAxisPoints is summarized in runs of consecutive indices: each entry
// holds its run's counts and maxima (a flat buffer of 10^9 elements needs 4096 entries, not 10^9).
TEST(ErrorSummary, ALongAxisIsSummarizedInRunsOfIndices) {
    const int64_t cols = 3 * kMaxAxisPoints - 5;  // runs of 3, the last of 1
    const HostTensor ref = view::randomTensor(DType::Float64, {2, cols}, 8);
    HostTensor out(DType::Float32, ref.shape());
    for (int64_t i = 0; i < ref.numel(); ++i) out.setFromDouble(i, ref.getAsDouble(i) * (1 + 1e-4 * std::cos(i)));
    out.setFromDouble(cols + 7, std::numeric_limits<double>::quiet_NaN());
    const ErrorSummary s = summarizeErrors(out, ref, DType::Float32, logTolerances(-8, 0, 4), 10);
    const std::vector<AxisErrorStats> each = perAxisErrors(errorMaps(out, ref, DType::Float32), 1);
    const std::vector<AxisErrorStats>& runs = s.perAxis[1];
    ASSERT_EQ(runs.size(), static_cast<std::size_t>((cols + 2) / 3));  // at most kMaxAxisPoints
    EXPECT_EQ(s.perAxis[0].size(), 2u);                                // a short axis keeps an entry per index
    EXPECT_EQ(s.perAxis[0][1].indices, 1);
    int64_t counted = 0;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const AxisErrorStats& r = runs[k];
        ASSERT_EQ(r.index, static_cast<int64_t>(3 * k));
        ASSERT_EQ(r.indices, k + 1 < runs.size() ? 3 : 1);
        int64_t count = 0, nonFinite = 0;
        double maxRel = 0;
        for (int64_t i = r.index; i < r.index + r.indices; ++i) {
            count += each[std::size_t(i)].count;
            nonFinite += each[std::size_t(i)].nonFinite;
            maxRel = std::max(maxRel, each[std::size_t(i)].maxRel);
        }
        EXPECT_EQ(r.count, count);
        EXPECT_EQ(r.nonFinite, nonFinite);
        EXPECT_EQ(r.maxRel, maxRel);
        counted += r.count + r.nonFinite;
    }
    EXPECT_EQ(counted, out.numel());
    EXPECT_EQ(runs[2].nonFinite, 1);  // index 7 of row 1
}

// Fed in blocks of any size (a band of each side at a time), the summary is the whole pass's to
// the bit: the per-axis means are running sums in element order.
// Rows at least 128 wide with an entry per column are summed a tile of rows at a time: each
// index of both axes of a matrix gets the same bits as summing its elements one by one in
// element order (perAxisErrors), whole, in bands that start mid-row, and with rows left over.
TEST(ErrorSummary, TilesOfRowsSumEachIndexInElementOrder) {
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{21, 300}, std::vector<int64_t>{16, 128}, std::vector<int64_t>{9, 4096}}) {
        // Magnitudes from 1e-20 to 1e20: a long-double sum of them rounds, so any other order of
        // the adds shows in the last bits.
        HostTensor ref = view::randomTensor(DType::Float64, shape, 9);
        for (int64_t i = 0; i < ref.numel(); ++i)
            ref.setFromDouble(i, ref.getAsDouble(i) * std::pow(10.0, double((i * 7919) % 41 - 20)));
        HostTensor out(DType::Float32, ref.shape());
        for (int64_t i = 0; i < ref.numel(); ++i) out.setFromDouble(i, ref.getAsDouble(i) * (1 + 1e-3 * std::cos(i)));
        out.setFromDouble(shape[1] + 5, std::numeric_limits<double>::quiet_NaN());
        out.setFromDouble(3 * shape[1] + 7, std::numeric_limits<double>::infinity());
        const ErrorMaps maps = errorMaps(out, ref, DType::Float32);
        const std::vector<double> tol = logTolerances(-8, 0, 4);
        for (const int64_t band : {ref.numel(), int64_t{1000}, 9 * shape[1] + 17}) {
            ErrorSummaryAccumulator pass(shape, DType::Float32, tol, 50);
            for (int64_t at = 0; at < ref.numel(); at += band) {
                const int64_t n = std::min(band, ref.numel() - at);
                HostTensor a(DType::Float32, {n}), r(DType::Float64, {n});
                for (int64_t j = 0; j < n; ++j) {
                    a.setFromDouble(j, out.getAsDouble(at + j));
                    r.setFromDouble(j, ref.getAsDouble(at + j));
                }
                pass.add(a, r);
            }
            const ErrorSummary got = pass.finish();
            for (int axis = 0; axis < 2; ++axis) {
                const std::vector<AxisErrorStats> want = perAxisErrors(maps, axis);
                const std::vector<AxisErrorStats>& have = got.perAxis[static_cast<std::size_t>(axis)];
                ASSERT_EQ(have.size(), want.size());
                for (std::size_t k = 0; k < want.size(); ++k) {
                    SCOPED_TRACE(testing::Message()
                                 << shapeToString(shape) << " band " << band << " axis " << axis << " index " << k);
                    EXPECT_EQ(have[k].count, want[k].count);
                    EXPECT_EQ(have[k].nonFinite, want[k].nonFinite);
                    EXPECT_EQ(have[k].meanAbs, want[k].meanAbs);
                    EXPECT_EQ(have[k].meanRel, want[k].meanRel);
                    EXPECT_EQ(have[k].maxAbs, want[k].maxAbs);
                    EXPECT_EQ(have[k].maxRel, want[k].maxRel);
                }
            }
            EXPECT_EQ(got.absHistogram.counts, logHistogram(maps.absError).counts);
        }
    }
}

TEST(ErrorSummary, AccumulatedInBlocksEqualsTheWholePass) {
    const HostTensor ref = view::randomTensor(DType::Float64, {4, 6, 9}, 5);
    HostTensor out(DType::Float32, ref.shape());
    for (int64_t i = 0; i < ref.numel(); ++i) out.setFromDouble(i, ref.getAsDouble(i) * (1 + 3e-4 * std::sin(i)));
    out.setFromDouble(100, std::numeric_limits<double>::quiet_NaN());
    const std::vector<double> tol = logTolerances(-8, 0, 4);
    const ErrorSummary whole = summarizeErrors(out, ref, DType::Float32, tol, 50);
    for (const uint64_t bandBytes : {uint64_t{8}, uint64_t{9 * 8}, uint64_t{7 * 9 * 8}, uint64_t{1} << 20}) {
        ErrorSummaryAccumulator pass(out.shape(), DType::Float32, tol, 50);
        for (const TensorBlock& b : rowMajorBlocks(out.shape(), 8, bandBytes)) {
            TensorView vo = out.view(), vr = ref.view();
            for (std::size_t a = 0; a < b.start.size(); ++a) {
                vo.offset += b.start[a] * vo.strides[a];
                vr.offset += b.start[a] * vr.strides[a];
            }
            vo.shape = vr.shape = b.count;
            pass.add(HostTensor::copyOf(vo), HostTensor::copyOf(vr));
        }
        const ErrorSummary got = pass.finish();
        EXPECT_EQ(got.relHistogram.counts, whole.relHistogram.counts) << bandBytes;
        EXPECT_EQ(got.absHistogram.nonFinite, whole.absHistogram.nonFinite);
        EXPECT_EQ(got.sampleRef, whole.sampleRef);
        EXPECT_EQ(got.sampleRel, whole.sampleRel);
        for (std::size_t i = 0; i < tol.size(); ++i) EXPECT_EQ(got.absShares[i].share, whole.absShares[i].share);
        for (std::size_t axis = 0; axis < 3; ++axis)
            for (std::size_t k = 0; k < whole.perAxis[axis].size(); ++k) {
                EXPECT_EQ(got.perAxis[axis][k].meanRel, whole.perAxis[axis][k].meanRel);
                EXPECT_EQ(got.perAxis[axis][k].nonFinite, whole.perAxis[axis][k].nonFinite);
            }
    }
    ErrorSummaryAccumulator shortOne(out.shape(), DType::Float32, tol, 50);
    shortOne.add(HostTensor(DType::Float32, {10}), HostTensor(DType::Float64, {10}));
    EXPECT_THROW(shortOne.finish(), UsageError);       // 10 of 216 elements
    EXPECT_THROW(shortOne.add(out, ref), UsageError);  // past the end
}

}  // namespace
}  // namespace opscope::metrics
