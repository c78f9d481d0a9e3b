// Display math of the debugger's tensor view (no Qt): slicing, downsampling that keeps
// extremes, colormaps, scales, ranges and histograms.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "opscope/error.h"
#include "opscope/float16.h"
#include "opscope/host_tensor.h"
#include "opscope/parallel.h"
#include "opscope/view/colormap.h"
#include "opscope/view/downsample.h"
#include "opscope/view/histogram.h"
#include "opscope/view/masks.h"
#include "opscope/view/render.h"
#include "opscope/view/scale.h"
#include "opscope/view/slice.h"

namespace opscope::view {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

HostTensor iota(DType dt, std::vector<int64_t> shape) {
    std::vector<double> v(static_cast<std::size_t>(shapeNumel(shape)));
    std::iota(v.begin(), v.end(), 0.0);
    return HostTensor::fromDoubles(dt, std::move(shape), v);
}

TEST(ViewSlice, DefaultShowsLastTwoAxes) {
    const SliceSpec s = defaultSlice({2, 3, 4});
    EXPECT_EQ(s.rowAxis, 1);
    EXPECT_EQ(s.colAxis, 2);
    EXPECT_EQ(s.index, (std::vector<int64_t>{0, 0, 0}));
    // Axes of size one are skipped: [5, 8, 1] shows 5 x 8.
    EXPECT_EQ(defaultSlice({5, 8, 1}).rowAxis, 0);
    EXPECT_EQ(defaultSlice({5, 8, 1}).colAxis, 1);
    EXPECT_EQ(defaultSlice({2, 1, 3, 1}).rowAxis, 0);
    EXPECT_EQ(defaultSlice({2, 1, 3, 1}).colAxis, 2);
    EXPECT_EQ(defaultSlice({1, 1, 7}).colAxis, 2);
    EXPECT_EQ(defaultSlice({1, 1}).rowAxis, 0);
    EXPECT_EQ(defaultSlice({5}).rowAxis, -1);
    EXPECT_EQ(defaultSlice({5}).colAxis, 0);
    EXPECT_EQ(defaultSlice({}).colAxis, -1);
}

TEST(ViewSlice, AnyAxisPairWithFixedIndices) {
    const HostTensor t = iota(DType::Float32, {2, 3, 4});
    // Rows = axis 2 (4), columns = axis 0 (2), axis 1 fixed at 2: value = a*12 + 2*4 + c.
    const SliceSpec s{2, 0, {0, 2, 0}};
    const Plane p = extractPlane(t.view(), s);
    ASSERT_EQ(p.rows, 4);
    ASSERT_EQ(p.cols, 2);
    for (int64_t r = 0; r < 4; ++r)
        for (int64_t c = 0; c < 2; ++c) EXPECT_EQ(p.at(r, c), double(c * 12 + 8 + r));
    const std::vector<int64_t> idx = elementIndex(s, 3, 1);
    EXPECT_EQ(idx, (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(flatIndex(t.shape(), idx), 1 * 12 + 2 * 4 + 3);
    EXPECT_EQ(elementValue(t.view(), idx), 23.0);
}

TEST(ViewSlice, StridedViewsAndEveryDtype) {
    for (DType dt : {DType::Float16, DType::BFloat16, DType::Float64, DType::Int32, DType::UInt8}) {
        const HostTensor t = iota(dt, {3, 4});
        TensorView v = t.view();  // transposed view: shape [4, 3], strides [1, 4]
        v.shape = {4, 3};
        v.strides = {1, 4};
        const Plane p = extractPlane(v, defaultSlice(v.shape));
        ASSERT_EQ(p.rows, 4);
        for (int64_t r = 0; r < 4; ++r)
            for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(p.at(r, c), double(c * 4 + r)) << dtypeName(dt);
    }
}

TEST(ViewSlice, NormalizeClampsAndRepairs) {
    // The same axis for rows and columns: back to the default.
    const SliceSpec s{1, 1, {9, -3}};
    const SliceSpec n = normalizeSlice({2, 3, 4}, s);
    EXPECT_EQ(n.rowAxis, 1);
    EXPECT_EQ(n.colAxis, 2);
    EXPECT_EQ(n.index, (std::vector<int64_t>{1, 0, 0}));
    const HostTensor scalar = HostTensor::fromDoubles(DType::Float32, {}, {7});
    const Plane p = extractPlane(scalar.view(), defaultSlice({}));
    EXPECT_EQ(p.rows, 1);
    EXPECT_EQ(p.cols, 1);
    EXPECT_EQ(p.at(0, 0), 7);
    const HostTensor empty(DType::Float32, {0, 5});
    EXPECT_EQ(extractPlane(empty.view(), defaultSlice({0, 5})).size(), 0);
}

TEST(ViewSlice, SampleIndicesAreEvenAndIncreasing) {
    EXPECT_EQ(sampleIndices(5, 10), (std::vector<int64_t>{0, 1, 2, 3, 4}));
    const auto s = sampleIndices(1000000, 1000);
    ASSERT_EQ(s.size(), 1000u);
    EXPECT_EQ(s.front(), 0);
    EXPECT_EQ(s[1], 1000);
    for (std::size_t i = 1; i < s.size(); ++i) EXPECT_LT(s[i - 1], s[i]);
    EXPECT_TRUE(sampleIndices(0, 10).empty());
}

TEST(ViewDownsample, KeepsSingleExtremesAndNonFinite) {
    Plane p;
    p.rows = 1000;
    p.cols = 1000;
    p.values.assign(1000000, 0.5);
    p.values[123456] = -40;   // one negative spike
    p.values[654321] = kNaN;  // one NaN
    p.values[999999] = kInf;  // one +Inf in the last cell
    const Downsampled d = downsample(p, 100, 100);
    EXPECT_EQ(d.rows, 100);
    EXPECT_EQ(d.cols, 100);
    EXPECT_EQ(d.blockRows, 10);
    double lowest = 0;
    int nanCells = 0, infCells = 0;
    for (const Cell& c : d.cells) {
        lowest = std::min(lowest, c.min);
        nanCells += (c.flags & kCellNaN) ? 1 : 0;
        infCells += (c.flags & kCellPosInf) ? 1 : 0;
    }
    EXPECT_EQ(lowest, -40);
    EXPECT_EQ(nanCells, 1);
    EXPECT_EQ(infCells, 1);
    EXPECT_TRUE(d.at(99, 99).flags & kCellPosInf);
    const Cell& spike = d.at(123456 / 1000 / 10, (123456 % 1000) / 10);
    EXPECT_EQ(cellDisplayValue(spike, 0.0), -40);
}

TEST(ViewDownsample, NoLossWhenThePlaneFitsAndRaggedBlocks) {
    Plane p;
    p.rows = 3;
    p.cols = 5;
    p.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const Downsampled same = downsample(p, 10, 10);
    EXPECT_EQ(same.blockRows, 1);
    EXPECT_EQ(same.at(2, 4).max, 15);
    const Downsampled half = downsample(p, 2, 2);  // blocks 2x3: a 2x2 grid, the last ones partial
    EXPECT_EQ(half.rows, 2);
    EXPECT_EQ(half.cols, 2);
    EXPECT_EQ(half.at(0, 0).min, 1);
    EXPECT_EQ(half.at(0, 0).max, 8);
    EXPECT_EQ(half.at(1, 1).min, 14);
    EXPECT_EQ(half.at(1, 1).max, 15);
}

TEST(ViewColormap, DivergingIsWhiteAtCentreAndSequentialGrows) {
    const Rgb mid = mapColor(Colormap::CoolWarm, 0.5);
    EXPECT_GT(mid.r, 240);
    EXPECT_GT(mid.g, 240);
    EXPECT_GT(mid.b, 240);
    EXPECT_GT(mapColor(Colormap::CoolWarm, 0).b, mapColor(Colormap::CoolWarm, 0).r);  // blue for negative
    EXPECT_GT(mapColor(Colormap::CoolWarm, 1).r, mapColor(Colormap::CoolWarm, 1).b);  // red for positive
    EXPECT_TRUE(isDiverging(Colormap::CoolWarm));
    EXPECT_FALSE(isDiverging(Colormap::Viridis));
    for (Colormap c : {Colormap::Viridis, Colormap::Magma, Colormap::Gray}) {
        auto lum = [&](double t) {
            const Rgb x = mapColor(c, t);
            return 0.2126 * x.r + 0.7152 * x.g + 0.0722 * x.b;
        };
        for (double t = 0.1; t <= 1.0; t += 0.1) EXPECT_GT(lum(t), lum(t - 0.1)) << colormapName(c);
    }
    EXPECT_EQ(mapColor(Colormap::Gray, -5), (Rgb{0, 0, 0}));
    EXPECT_EQ(mapColor(Colormap::Gray, 7), (Rgb{255, 255, 255}));
    Colormap parsed;
    ASSERT_TRUE(parseColormap("magma", &parsed));
    EXPECT_EQ(parsed, Colormap::Magma);
    EXPECT_FALSE(parseColormap("jet", &parsed));
}

TEST(ViewScale, LinearLogAndSymlogRoundTrip) {
    const ValueScale lin(ScaleKind::Linear, {-2, 2});
    EXPECT_DOUBLE_EQ(lin.normalize(0), 0.5);
    EXPECT_DOUBLE_EQ(lin.normalize(5), 1.0);
    EXPECT_DOUBLE_EQ(lin.centre(), 0);
    const ValueScale log(ScaleKind::Log, {1e-6, 1});
    EXPECT_NEAR(log.normalize(1e-3), 0.5, 1e-12);
    EXPECT_EQ(log.normalize(-1), 0.0);  // non-positive values sit at the bottom
    EXPECT_NEAR(log.denormalize(0.5), 1e-3, 1e-15);
    const ValueScale sym(ScaleKind::SymLog, {-1000, 1000}, 1);
    EXPECT_DOUBLE_EQ(sym.normalize(0), 0.5);
    EXPECT_NEAR(sym.normalize(-sym.denormalize(0.8)), 0.2, 1e-12);
    for (double t : {0.0, 0.1, 0.37, 0.5, 0.9, 1.0}) EXPECT_NEAR(sym.normalize(sym.denormalize(t)), t, 1e-12);
    EXPECT_TRUE(std::isnan(lin.normalize(kNaN)));
    ScaleKind k;
    ASSERT_TRUE(parseScale("symlog", &k));
    EXPECT_EQ(k, ScaleKind::SymLog);
}

TEST(ViewScale, RangeModes) {
    std::vector<double> v;
    for (int i = 1; i <= 100; ++i) v.push_back(i);
    v.push_back(1e6);   // an outlier
    v.push_back(kNaN);  // ignored
    v.push_back(-kInf);
    EXPECT_EQ(computeRange(v, {RangeMode::Autofit}), (ValueRange{1, 1e6}));
    EXPECT_EQ(computeRange(v, {RangeMode::Symmetric}), (ValueRange{-1e6, 1e6}));
    const ValueRange pr = computeRange(v, {RangeMode::Percentile, 98.0});
    EXPECT_LE(pr.hi, 100);
    EXPECT_GE(pr.lo, 1);
    RangeRequest manual{RangeMode::Manual, 99, -3, 4};
    EXPECT_EQ(computeRange(v, manual), (ValueRange{-3, 4}));
    // Constant and empty tensors still get a usable window; log ranges stay positive.
    const ValueRange c = computeRange({5, 5, 5}, {RangeMode::Autofit});
    EXPECT_LT(c.lo, 5);
    EXPECT_GT(c.hi, 5);
    EXPECT_EQ(computeRange({}, {RangeMode::Autofit}), (ValueRange{0, 1}));
    const ValueRange lr = computeRange({-4, 0, 1e-3, 10}, {RangeMode::Autofit}, ScaleKind::Log);
    EXPECT_EQ(lr, (ValueRange{1e-3, 10}));
    EXPECT_GT(computeRange(v, manual, ScaleKind::Log).lo, 0);
}

TEST(ViewHistogram, CountsBinsOutsideAndNonFinite) {
    const ValueScale lin(ScaleKind::Linear, {0, 10});
    const ValueHistogram h = valueHistogram({0, 1, 2.5, 9.99, 10, -1, 11, kNaN, kInf}, lin, 10);
    ASSERT_EQ(h.counts.size(), 10u);
    EXPECT_EQ(h.counts[0], 1);
    EXPECT_EQ(h.counts[1], 1);
    EXPECT_EQ(h.counts[2], 1);
    EXPECT_EQ(h.counts[9], 2);  // 9.99 and the upper edge itself
    EXPECT_EQ(h.below, 1);
    EXPECT_EQ(h.above, 1);
    EXPECT_EQ(h.nonFinite, 2);
    EXPECT_EQ(h.maxCount(), 2);
    const ValueHistogram lh = valueHistogram({3e-6, 2e-3, 0.1, 0}, ValueScale(ScaleKind::Log, {1e-6, 1}), 6);
    EXPECT_NEAR(lh.edges[3], 1e-3, 1e-15);  // decades
    EXPECT_EQ(lh.counts[0], 1);
    EXPECT_EQ(lh.counts[3], 1);
    EXPECT_EQ(lh.counts[5], 1);
    EXPECT_EQ(lh.below, 1);  // zero is below a log range
}

TEST(ViewRender, OverlaysWinOverColoursAndMaskBlends) {
    Plane p;
    p.rows = 1;
    p.cols = 5;
    p.values = {-1, 0, 1, kNaN, -kInf};
    DisplaySettings s;
    s.colormap = Colormap::CoolWarm;
    s.scale = ValueScale(ScaleKind::Linear, {-1, 1});
    const Downsampled d = downsample(p, 10, 10);
    Plane maskPlane{1, 5, {0, 0, 1, 1, 0}};
    const Downsampled mask = downsample(maskPlane, 10, 10);
    const std::vector<uint32_t> px = renderCells(d, s, nullptr);
    EXPECT_EQ(px[0], mapColor(Colormap::CoolWarm, 0).argb());
    EXPECT_EQ(px[1], mapColor(Colormap::CoolWarm, 0.5).argb());
    EXPECT_EQ(px[3], kNaNColor.argb());
    EXPECT_EQ(px[4], kNegInfColor.argb());
    const std::vector<uint32_t> masked = renderCells(d, s, &mask);
    EXPECT_EQ(masked[2], beyondToleranceColor(Colormap::CoolWarm).argb());  // beyond tolerance: green
    EXPECT_EQ(masked[3], kNaNColor.argb());                                 // NaN still shows as NaN
    EXPECT_EQ(masked[0], px[0]);
    s.showNonFinite = false;
    EXPECT_NE(renderCells(d, s)[3], kNaNColor.argb());
    EXPECT_EQ(colorFor(kInf, DisplaySettings{}), kPosInfColor);
    // The overlay colour is never one the colormap itself produces.
    for (Colormap c : allColormaps())
        for (double t = 0; t <= 1.0; t += 0.01) EXPECT_NE(mapColor(c, t), beyondToleranceColor(c)) << colormapName(c);
}

// Rendering is parallel: 3 threads give pixel for pixel what one gives, each pixel its cell's
// colour (overlays, mask and all).
TEST(ViewRender, ThreadCountsGiveTheSameImage) {
    Plane p{300, 400, std::vector<double>(300 * 400)};
    for (std::size_t i = 0; i < p.values.size(); ++i) p.values[i] = std::sin(0.001 * double(i)) * 5;
    p.values[299 * 400 + 7] = kNaN;
    Plane maskPlane{300, 400, std::vector<double>(300 * 400)};
    maskPlane.values[250 * 400 + 3] = 1;
    const Downsampled d = downsample(p, 1000, 1000), mask = downsample(maskPlane, 1000, 1000);
    DisplaySettings s;
    s.scale = ValueScale(ScaleKind::Log, {1e-3, 5});
    setNumThreads(1);
    const std::vector<uint32_t> one = renderCells(d, s, &mask);
    setNumThreads(3);
    const std::vector<uint32_t> three = renderCells(d, s, &mask);
    setNumThreads(0);
    EXPECT_EQ(three, one);
    EXPECT_EQ(one[299 * 400 + 7], kNaNColor.argb());
    EXPECT_EQ(one[250 * 400 + 3], beyondToleranceColor(s.colormap).argb());
    EXPECT_EQ(one[1000], colorFor(p.values[1000], s).argb());
}

TEST(ViewMasks, FirstNonFiniteIsRowMajorFirst) {
    std::vector<float> v(2 * 3 * 4, 1.0f);
    const TensorView t = TensorView::contiguous(DType::Float32, {2, 3, 4}, v.data());
    EXPECT_TRUE(firstNonFinite(t).empty());
    v[1 * 12 + 2 * 4 + 3] = std::numeric_limits<float>::infinity();
    v[1 * 12 + 2 * 4 + 1] = std::nanf("");
    EXPECT_EQ(firstNonFinite(t), (std::vector<int64_t>{1, 2, 1}));
    // Strided: a transposed view meets the Inf first.
    TensorView tr = t;
    tr.shape = {4, 3, 2};
    tr.strides = {1, 4, 12};
    EXPECT_EQ(firstNonFinite(tr), (std::vector<int64_t>{1, 2, 1}));
}

TEST(ViewMasks, BeyondToleranceNeedsBothErrorsOrANaN) {
    const Plane abs{1, 4, {1e-3, 1e-1, 1e-1, std::nan("")}};
    const Plane rel{1, 4, {1e-1, 1e-4, 1e-1, std::nan("")}};
    const ToleranceMask m = beyondTolerance(abs, rel, 1e-2, 1e-3);
    EXPECT_EQ(m.count, 2);
    EXPECT_EQ(m.mask.values, (std::vector<double>{0, 0, 1, 1}));
    EXPECT_THROW(beyondTolerance(abs, Plane{2, 2, rel.values}, 1e-2, 1e-3), UsageError);
}

}  // namespace
}  // namespace opscope::view
