// The heatmap's pass over a slice in parallel (view::SliceSummarizer::addRows): 1, 2 and 3
// threads give the same bits, and those equal the sequential computation exactly for the
// cells, the counts, min, max, the sample and the first NaN/Inf, and to rounding for the sums.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "opscope/metrics.h"
#include "opscope/parallel.h"
#include "opscope/stats.h"
#include "opscope/view/masks.h"
#include "opscope/view/slice_summary.h"
#include "slice_test_data.h"

namespace opscope::view {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor randomTensor(DType dt, std::vector<int64_t> shape, unsigned seed) {
    return test::randomNormal(dt, std::move(shape), seed, 0.5, 2.0);
}

// The pass with n threads.
SliceSummary summarizeWith(int threads, const SliceSource& source, const SliceRequest& request) {
    setNumThreads(threads);
    SliceSummary s = summarizeSlice(source, request);
    setNumThreads(0);
    return s;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expectSameCellBits(const Downsampled& a, const Downsampled& b) {
    ASSERT_EQ(a.rows, b.rows);
    ASSERT_EQ(a.cols, b.cols);
    ASSERT_EQ(a.blockRows, b.blockRows);
    for (std::size_t i = 0; i < a.cells.size(); ++i) {
        ASSERT_TRUE(sameBits(a.cells[i].min, b.cells[i].min)) << "cell " << i;
        ASSERT_TRUE(sameBits(a.cells[i].max, b.cells[i].max)) << "cell " << i;
        ASSERT_EQ(a.cells[i].flags, b.cells[i].flags) << "cell " << i;
    }
}

// Everything of two summaries, bit for bit.
void expectSameBits(const SliceSummary& a, const SliceSummary& b) {
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.cols, b.cols);
    expectSameCellBits(a.cells, b.cells);
    EXPECT_EQ(a.stats.count, b.stats.count);
    EXPECT_EQ(a.stats.finiteCount, b.stats.finiteCount);
    EXPECT_EQ(a.stats.nanCount, b.stats.nanCount);
    EXPECT_EQ(a.stats.infCount, b.stats.infCount);
    EXPECT_EQ(a.stats.zeroCount, b.stats.zeroCount);
    for (auto field :
         {&TensorStats::min, &TensorStats::max, &TensorStats::mean, &TensorStats::meanAbs, &TensorStats::stddev})
        EXPECT_TRUE(sameBits(a.stats.*field, b.stats.*field)) << a.stats.*field << " vs " << b.stats.*field;
    EXPECT_EQ(a.sampled, b.sampled);
    ASSERT_EQ(a.sample.size(), b.sample.size());
    EXPECT_EQ(std::memcmp(a.sample.data(), b.sample.data(), a.sample.size() * sizeof(double)), 0);
    EXPECT_EQ(a.beyondCount, b.beyondCount);
    ASSERT_EQ(a.beyond.has_value(), b.beyond.has_value());
    if (a.beyond) expectSameCellBits(*a.beyond, *b.beyond);
    EXPECT_EQ(a.firstNonFiniteRow, b.firstNonFiniteRow);
    EXPECT_EQ(a.firstNonFiniteCol, b.firstNonFiniteCol);
}

// What one sequential loop over the plane gives: the sample (every k-th value, then the
// extremes), the first NaN/Inf, and the statistics of computeStats.
void expectSequentialValues(const SliceSummary& s, const Plane& p, int64_t maxSamples) {
    const auto n = static_cast<int64_t>(p.values.size());
    const int64_t step = n > maxSamples ? (n + maxSamples - 1) / maxSamples : 1;
    std::vector<double> sample;
    for (int64_t i = 0; i < n; i += step) sample.push_back(p.values[static_cast<std::size_t>(i)]);
    ASSERT_GE(s.sample.size(), sample.size());
    EXPECT_EQ(std::memcmp(s.sample.data(), sample.data(), sample.size() * sizeof(double)), 0);
    int64_t first = -1;
    for (int64_t i = 0; i < n && first < 0; ++i)
        if (!std::isfinite(p.values[static_cast<std::size_t>(i)])) first = i;
    EXPECT_EQ(s.firstNonFiniteRow, first < 0 ? -1 : first / p.cols);
    EXPECT_EQ(s.firstNonFiniteCol, first < 0 ? -1 : first % p.cols);
    HostTensor whole = HostTensor::fromDoubles(DType::Float64, {p.rows, p.cols}, p.values);
    const TensorStats want = computeStats(whole.view());
    EXPECT_EQ(s.stats.count, want.count);
    EXPECT_EQ(s.stats.nanCount, want.nanCount);
    EXPECT_EQ(s.stats.infCount, want.infCount);
    EXPECT_EQ(s.stats.zeroCount, want.zeroCount);
    EXPECT_EQ(s.stats.min, want.min);
    EXPECT_EQ(s.stats.max, want.max);
    EXPECT_NEAR(s.stats.mean, want.mean, 1e-12 * std::fabs(want.meanAbs));
    EXPECT_NEAR(s.stats.meanAbs, want.meanAbs, 1e-12 * want.meanAbs);
    EXPECT_NEAR(s.stats.stddev, want.stddev, 1e-12 * want.stddev);
}

// 2049 rows in cells of 33 rows (the last cell row holds 3), NaN and Inf in the last thread's
// rows, sampled: every thread count gives the sequential cells, sample and first NaN/Inf.
TEST(SliceSummaryParallel, ThreadCountsGiveTheSameBitsAsOneThread) {
    HostTensor t = randomTensor(DType::Float32, {2049, 131}, 3);
    t.setFromDouble(2040 * 131 + 7, kNaN);
    t.setFromDouble(1800 * 131 + 100, -kInf);
    t.setFromDouble(2048 * 131 + 130, kInf);
    t.setFromDouble(12, 0.0);
    SliceSource src;
    src.tensor = t.view();
    SliceRequest req;
    req.spec = defaultSlice(t.shape());
    req.maxCells = 64;
    req.maxSamples = 10000;
    const SliceSummary one = summarizeWith(1, src, req);
    ASSERT_EQ(one.cells.blockRows, 33);
    EXPECT_TRUE(one.sampled);
    const Plane plane = extractPlane(t.view(), req.spec);
    expectSequentialValues(one, plane, req.maxSamples);
    for (int threads : {2, 3}) {
        SCOPED_TRACE(threads);
        expectSameBits(summarizeWith(threads, src, req), one);
    }
    EXPECT_EQ(one.firstNonFiniteRow, 1800);
    EXPECT_EQ(one.firstNonFiniteCol, 100);
    EXPECT_EQ(one.stats.nanCount, 1);
    EXPECT_EQ(one.stats.infCount, 2);
}

// Fewer rows than threads, and rows of cells of one row each.
TEST(SliceSummaryParallel, FewerRowsThanThreads) {
    HostTensor t = randomTensor(DType::Float64, {2, 70001}, 4);
    t.setFromDouble(70001 + 69999, kNaN);
    SliceSource src;
    src.tensor = t.view();
    SliceRequest req;
    req.spec = defaultSlice(t.shape());
    req.maxSamples = 1000;
    const SliceSummary one = summarizeWith(1, src, req);
    expectSequentialValues(one, extractPlane(t.view(), req.spec), req.maxSamples);
    for (int threads : {2, 3}) expectSameBits(summarizeWith(threads, src, req), one);
    EXPECT_EQ(one.firstNonFiniteRow, 1);
}

// An error map with the tolerance mask (and the values with it), on a slice of a 3-D tensor.
TEST(SliceSummaryParallel, ErrorMapsWithTheToleranceMask) {
    const HostTensor ref = randomTensor(DType::Float64, {3, 1500, 97}, 5);
    HostTensor out = test::perturbedFloat16(ref);
    out.setFromDouble(1 * 1500 * 97 + 1400 * 97 + 3, kNaN);  // late in the slice: errors NaN, beyond
    const metrics::ErrorMaps maps = metrics::errorMaps(out, ref, DType::Float16);
    for (SliceContent content : {SliceContent::RelError, SliceContent::AbsError, SliceContent::Values}) {
        SCOPED_TRACE(static_cast<int>(content));
        const SliceSource src = test::float16ErrorSource(out, ref, content);
        SliceRequest req;
        req.spec = SliceSpec{1, 2, {1, 0, 0}};
        req.maxCells = 100;
        req.maxSamples = 5000;
        req.tolerance = true;
        req.absTolerance = 1e-4;
        req.relTolerance = 1e-4;
        const SliceSummary one = summarizeWith(1, src, req);
        const HostTensor& map = content == SliceContent::AbsError   ? maps.absError
                                : content == SliceContent::RelError ? maps.relError
                                                                    : out;
        expectSequentialValues(one, extractPlane(map.view(), req.spec), req.maxSamples);
        const ToleranceMask mask = beyondTolerance(extractPlane(maps.absError.view(), req.spec),
                                                   extractPlane(maps.relError.view(), req.spec), 1e-4, 1e-4);
        EXPECT_EQ(one.beyondCount, mask.count);
        EXPECT_GT(one.beyondCount, 0);
        EXPECT_EQ(one.firstNonFiniteRow, 1400);
        for (int threads : {2, 3}) expectSameBits(summarizeWith(threads, src, req), one);
    }
}

// Bands that cut rows of cells (as a dataset is streamed) give the whole pass's bits.
TEST(SliceSummaryParallel, BandsAcrossRowsOfCellsGiveTheWholePassBits) {
    HostTensor t = randomTensor(DType::Float32, {1000, 300}, 6);
    t.setFromDouble(777 * 300 + 5, kInf);
    SliceSource src;
    src.tensor = t.view();
    SliceRequest req;
    req.spec = defaultSlice(t.shape());
    req.maxCells = 30;  // cells of 34 rows; bands of 50 rows cut them
    req.maxSamples = 20000;
    setNumThreads(2);
    const SliceSummary whole = summarizeSlice(src, req);
    SliceSummarizer pass(1000, 300, req);
    for (int64_t r = 0; r < 1000; r += 50) {
        TensorView rows = t.view();  // rows r .. r + 49
        rows.shape[0] = 50;
        rows.offset = r * 300;
        const HostTensor band = HostTensor::copyOf(rows);
        SliceSource bandSource;
        bandSource.tensor = band.view();
        ASSERT_TRUE(pass.addRows(bandSource, defaultSlice(band.shape()), r));
    }
    setNumThreads(0);
    expectSameBits(pass.take(), whole);
}

// A cancelled pass stops within rows in every thread: each asks once more at most.
TEST(SliceSummaryParallel, CancellationStopsEveryThread) {
    const HostTensor t = randomTensor(DType::Float32, {4096, 64}, 7);
    SliceSource src;
    src.tensor = t.view();
    SliceRequest req;
    req.spec = defaultSlice(t.shape());
    std::atomic<int> asked{0};
    req.cancelled = [&] { return ++asked > 1; };
    const SliceSummary s = summarizeWith(3, src, req);
    EXPECT_EQ(s.rows, 0);
    EXPECT_LE(asked.load(), 1 + 3);  // uncancelled, each thread would ask 4096 / 3 / 64 times
}

}  // namespace
}  // namespace opscope::view
