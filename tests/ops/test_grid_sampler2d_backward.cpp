// aclnnGridSampler2DBackward through the public C API: all 3 x 3 x 2 mode combinations per dtype
// against the float64 reference, the reference and the float64 operator against finite
// differences of the float64 forward away from kinks, coordinates exactly on pixel centres,
// edges and borders, outside the image, NaN and Inf, output masks, strided and empty tensors,
// the plan's two device chains, and determinism of the inputGrad scatter under threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <unistd.h>

#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "device_tensor.h"
#include "finite_difference.h"
#include "opscope/objects.h"
#include "opscope/parallel.h"
#include "opscope/product.h"
#include "opscope/reference/grid_sampler.h"
#include "opscope/trace.h"

namespace opscope::test {
namespace {

using reference::GridSamplerOptions;
using reference::GridSamplerShape;

struct GsProblem {
    GridSamplerShape s;
    std::vector<double> go, in, grid;

    GsProblem(GridSamplerShape shape, uint32_t seed, double lo = -1.25, double hi = 1.25) : s(shape) {
        go = randomUniform(static_cast<std::size_t>(s.N * s.C * s.Ho * s.Wo), -1.0, 1.0, seed);
        in = randomUniform(static_cast<std::size_t>(s.N * s.C * s.H * s.W), -1.0, 1.0, seed + 1);
        grid = randomUniform(static_cast<std::size_t>(s.N * s.Ho * s.Wo * 2), lo, hi, seed + 2);
    }
    std::vector<int64_t> goShape() const { return {s.N, s.C, s.Ho, s.Wo}; }
    std::vector<int64_t> inShape() const { return {s.N, s.C, s.H, s.W}; }
    std::vector<int64_t> gridShape() const { return {s.N, s.Ho, s.Wo, 2}; }
};

struct GsOptions {
    DType dtype = DType::Float32;
    GridSamplerOptions mode;
    std::vector<bool> mask = {true, true};
    bool strided = false;  // strided inputs (a transposed input, a planar grid) and outputs
};

struct GsRun {
    aclnnStatus status = ACLNN_SUCCESS;
    std::string message;
    std::vector<double> inputGrad, gridGrad;
    reference::GridSamplerBackwardResult expected;  // on the inputs as rounded to the dtype
    std::vector<std::string> steps;
    uint64_t workspace = 0;
};

constexpr double kUntouched = 9.0;

GsRun runGs(const GsProblem& p, const GsOptions& o) {
    const HostTensor hgo = HostTensor::fromDoubles(o.dtype, p.goShape(), p.go);
    const HostTensor hin = HostTensor::fromDoubles(o.dtype, p.inShape(), p.in);
    const HostTensor hgrid = HostTensor::fromDoubles(o.dtype, p.gridShape(), p.grid);
    const auto& s = p.s;
    DeviceTensor go, in, grid, gi, gg;
    HostTensor fill9i(o.dtype, p.inShape()), fill9g(o.dtype, p.gridShape());
    for (int64_t i = 0; i < fill9i.numel(); ++i) fill9i.setFromDouble(i, kUntouched);
    for (int64_t i = 0; i < fill9g.numel(); ++i) fill9g.setFromDouble(i, kUntouched);
    if (o.strided) {
        // input stored as [N, W, H, C] and viewed as NCHW; gradOutput with gaps; grid planar
        // ([N, 2, Ho, Wo] storage, as a conv net would produce it).
        go = DeviceTensor::strided(hgo, {s.C * s.Ho * s.Wo * 2, s.Ho * s.Wo * 2, s.Wo * 2, 2}, 1);
        in = DeviceTensor::strided(hin, {s.C * s.H * s.W, 1, s.C, s.C * s.H}, 0);
        grid = DeviceTensor::strided(hgrid, {2 * s.Ho * s.Wo, s.Wo, 1, s.Ho * s.Wo}, 0);
        gi = DeviceTensor::strided(fill9i, {s.C * s.H * s.W * 2, s.H * s.W * 2, s.W * 2, 2}, 1, -5.0);
        gg = DeviceTensor::strided(fill9g, {2 * s.Ho * s.Wo, s.Wo, 1, s.Ho * s.Wo}, 0, -5.0);
    } else {
        go = DeviceTensor::fromHost(hgo);
        in = DeviceTensor::fromHost(hin);
        grid = DeviceTensor::fromHost(hgrid);
        gi = DeviceTensor::fromHost(fill9i);
        gg = DeviceTensor::fromHost(fill9g);
    }
    BoolArray mask(o.mask);
    aclOpExecutor* exe = nullptr;
    GsRun r;
    r.status = aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, grid, o.mode.interpolation, o.mode.padding,
                                                          o.mode.alignCorners, mask, gi, gg, &r.workspace, &exe);
    if (r.status != ACLNN_SUCCESS) {
        r.message = aclGetRecentErrMsg();
        return r;
    }
    for (const Step& st : exe->plan().steps()) r.steps.push_back(st.name);
    r.status = runWithWorkspace(aclnnGridSampler2DBackward, r.workspace, exe);
    if (r.status != ACLNN_SUCCESS) {
        r.message = aclGetRecentErrMsg();
        return r;
    }
    r.inputGrad = gi.toDoubles();
    r.gridGrad = gg.toDoubles();
    if (o.strided) {
        for (const DeviceTensor* t : {&gi, &gg}) {
            int64_t kept = 0;
            const auto storage = t->storageDoubles();
            for (double v : storage) kept += (v == -5.0);
            EXPECT_EQ(kept, static_cast<int64_t>(storage.size()) - t->toHost().numel()) << "gaps of a strided output";
        }
    }
    r.expected = reference::gridSampler2DBackward(hgo.toDoubles(), hin.toDoubles(), hgrid.toDoubles(), s, o.mode);
    return r;
}

// Elementwise |a - e| <= atol + rtol*|e|, with NaN exactly where the expectation has NaN.
void expectClose(const std::vector<double>& actual, const std::vector<double>& expected, double atol, double rtol,
                 const std::string& what) {
    ASSERT_EQ(actual.size(), expected.size()) << what;
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double a = actual[i], e = expected[i];
        const bool ok = std::isnan(e)   ? std::isnan(a)
                        : std::isinf(e) ? a == e
                                        : std::fabs(a - e) <= atol + rtol * std::fabs(e);
        if (!ok && bad++ == 0) first = i;
    }
    EXPECT_EQ(bad, 0u) << what << ": first mismatch at " << first << ": " << actual[first] << " vs expected "
                       << expected[first];
}

double maxAbs(const std::vector<double>& v) {
    double m = 0;
    for (double x : v)
        if (std::isfinite(x)) m = std::max(m, std::fabs(x));
    return m;
}

// Output rounding of the dtype; compute is float32 (float64 for float64).
double rtolFor(DType t) {
    switch (t) {
        case DType::Float16: return 1e-3;
        case DType::BFloat16: return 8e-3;
        case DType::Float64: return 1e-12;
        default: return 2e-6;
    }
}
double computeTol(DType t) { return t == DType::Float64 ? 1e-12 : 2e-6; }

// Fraction of `actual` equal to `expected` rounded to `dtype`, over the elements of magnitude
// > 1e-3 (the others may be float32 cancellation noise): rounding once to nearest from an
// accurate float32 value matches for nearly every element (truncating would miss half).
double fractionRoundedExactly(const std::vector<double>& actual, const std::vector<double>& expected, DType dtype) {
    const HostTensor rounded = HostTensor::fromDoubles(dtype, {static_cast<int64_t>(expected.size())}, expected);
    std::size_t same = 0, counted = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (!std::isfinite(expected[i]) || std::fabs(expected[i]) <= 1e-3) continue;
        ++counted;
        same += actual[i] == rounded.getAsDouble(static_cast<int64_t>(i));
    }
    return counted == 0 ? 1.0 : static_cast<double>(same) / static_cast<double>(counted);
}

void expectMatchesReference(const GsRun& r, DType t, const std::string& what) {
    const double ai = computeTol(t) * (1 + maxAbs(r.expected.inputGrad));
    const double ag = computeTol(t) * (1 + maxAbs(r.expected.gridGrad));
    expectClose(r.inputGrad, r.expected.inputGrad, ai, rtolFor(t), what + " inputGrad");
    expectClose(r.gridGrad, r.expected.gridGrad, ag, rtolFor(t), what + " gridGrad");
    if (t == DType::Float16 || t == DType::BFloat16) {
        EXPECT_GE(fractionRoundedExactly(r.inputGrad, r.expected.inputGrad, t), 0.9) << what << " inputGrad rounding";
        EXPECT_GE(fractionRoundedExactly(r.gridGrad, r.expected.gridGrad, t), 0.9) << what << " gridGrad rounding";
    }
}

std::string modeName(const GridSamplerOptions& m) {
    static const char* const interp[] = {"bilinear", "nearest", "bicubic"};
    static const char* const pad[] = {"zeros", "border", "reflection"};
    return std::string(interp[m.interpolation]) + "_" + pad[m.padding] + (m.alignCorners ? "_aligned" : "");
}

// One problem in one mode, run in each dtype and held to the reference.
void expectEveryDtypeMatchesReference(const GsProblem& p, const GridSamplerOptions& mode,
                                      std::initializer_list<DType> dtypes) {
    for (DType t : dtypes) {
        GsOptions o;
        o.dtype = t;
        o.mode = mode;
        GsRun r = runGs(p, o);
        ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
        expectMatchesReference(r, t, modeName(mode) + " " + dtypeName(t));
    }
}

std::vector<GridSamplerOptions> allModes() {
    std::vector<GridSamplerOptions> v;
    for (int i = 0; i < 3; ++i)
        for (int p = 0; p < 3; ++p)
            for (bool ac : {false, true}) v.push_back({i, p, ac});
    return v;
}

const GridSamplerShape kShapes[] = {
    {2, 3, 5, 7, 4, 6},   // odd sizes
    {1, 20, 4, 3, 5, 5},  // channels beyond one 16-lane vector, one batch
    {3, 35, 6, 5, 3, 4},  // odd channels: several channel blocks with 2+ threads
    {2, 1, 1, 1, 2, 3},   // 1x1 input: the empty reflection span
};

class GridSamplerDtype : public ::testing::TestWithParam<DType> {};

TEST_P(GridSamplerDtype, AllModesMatchFloat64Reference) {
    const DType dtype = GetParam();
    uint32_t seed = 100;
    for (const GridSamplerOptions& mode : allModes()) {
        for (const GridSamplerShape& s : kShapes) {
            GsProblem p(s, seed += 3);
            GsOptions o;
            o.dtype = dtype;
            o.mode = mode;
            GsRun r = runGs(p, o);
            const std::string what = modeName(mode) + " " + shapeToString({s.N, s.C, s.H, s.W, s.Ho, s.Wo});
            ASSERT_EQ(r.status, ACLNN_SUCCESS) << what << ": " << r.message;
            expectMatchesReference(r, dtype, what);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, GridSamplerDtype,
                         ::testing::Values(DType::Float32, DType::Float16, DType::BFloat16, DType::Float64),
                         [](const auto& info) { return std::string(dtypeName(info.param)); });

// Grid values whose pixel positions are exact in float32 and float64 (power-of-two scales:
// W = 8, H = 4 without alignCorners, W = 9, H = 5 with it): pixel centres, pixel edges, the
// image borders, just outside and far outside. The bilinear gradient jumps at these points, so
// both sides must take the same branch as PyTorch: floor(position), borders count as clipped.
std::vector<double> edgeValues(int64_t size, bool ac) {
    std::vector<double> v = {-1.0, 1.0, 0.0, -1.25, 1.25, -3.0, 3.0, -1.0625, 1.0625};
    for (int64_t k = -2; k <= size + 1; ++k)
        for (double px : {static_cast<double>(k), k - 0.5, k + 0.25})
            v.push_back(ac ? 2 * px / static_cast<double>(size - 1) - 1 : (2 * px + 1) / static_cast<double>(size) - 1);
    return v;
}

TEST(GridSamplerEdges, PixelCentresEdgesAndBordersMatchReference) {
    for (const GridSamplerOptions& mode : allModes()) {
        const GridSamplerShape s =
            mode.alignCorners ? GridSamplerShape{2, 5, 5, 9, 6, 8} : GridSamplerShape{2, 5, 4, 8, 6, 8};
        GsProblem p(s, 7);
        const auto xs = edgeValues(s.W, mode.alignCorners), ys = edgeValues(s.H, mode.alignCorners);
        for (std::size_t i = 0; i < p.grid.size() / 2; ++i) {
            p.grid[2 * i] = xs[(i * 7) % xs.size()];
            p.grid[2 * i + 1] = ys[(i * 5 + i / xs.size()) % ys.size()];
        }
        expectEveryDtypeMatchesReference(p, mode, {DType::Float32, DType::Float64});
    }
}

// NaN, +-Inf and huge coordinates: no crash, no access outside the tensors, and PyTorch's
// results (NaN patterns included) as the reference defines them.
TEST(GridSamplerEdges, NonFiniteAndHugeCoordinates) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (const GridSamplerOptions& mode : allModes()) {
        GsProblem p({2, 17, 5, 6, 4, 5}, 21);
        const std::vector<double> specials = mode.padding == 2 ? std::vector<double>{nan, inf, -inf}
                                                               : std::vector<double>{nan, inf, -inf, 1e10, -1e10, 1e30};
        for (std::size_t i = 0; i < p.grid.size() / 2; i += 2)
            p.grid[2 * i + (i / 2) % 2] = specials[(i / 2) % specials.size()];
        p.grid[2 * 3] = p.grid[2 * 3 + 1] = nan;  // both coordinates of a point
        expectEveryDtypeMatchesReference(p, mode, {DType::Float32, DType::Float64, DType::BFloat16});
    }
}

// True when the sampling position of normalised value g lies within `margin` pixels of a
// point where the interpolation is not differentiable.
bool nearKink(double g, int64_t size, const GridSamplerOptions& o, double margin) {
    if (o.interpolation == 2) return false;  // cubic convolution is C1 everywhere
    double u =
        o.alignCorners ? (g + 1) / 2 * static_cast<double>(size - 1) : ((g + 1) * static_cast<double>(size) - 1) / 2;
    auto near = [&](double a, double b) { return std::fabs(a - b) < margin; };
    if (o.padding == 2) {
        const double lo = o.alignCorners ? 0.0 : -0.5;
        const double span = o.alignCorners ? static_cast<double>(size - 1) : static_cast<double>(size);
        if (span <= 0) return false;
        const double m = std::fmod(std::fabs(u - lo), 2 * span);
        if (m < margin || std::fabs(m - span) < margin || 2 * span - m < margin) return true;
        u = (m <= span ? m : 2 * span - m) + lo;
    }
    if (o.padding != 0) {
        if (near(u, 0) || near(u, static_cast<double>(size - 1))) return true;
        u = std::min(std::max(u, 0.0), static_cast<double>(size - 1));
    }
    const double f = u - std::floor(u);
    return o.interpolation == 0 ? (f < margin || 1 - f < margin) : std::fabs(f - 0.5) < margin;
}

TEST(GridSamplerFiniteDifference, ReferenceAndOperatorMatchForwardDerivative) {
    const GridSamplerShape s{2, 3, 5, 6, 3, 4};
    for (const GridSamplerOptions& mode : allModes()) {
        SCOPED_TRACE(modeName(mode));
        GsProblem p(s, 300);
        // Redraw grid values that sit near a kink of the forward pass.
        uint32_t redraw = 1;
        for (std::size_t i = 0; i < p.grid.size(); ++i)
            while (nearKink(p.grid[i], i % 2 ? s.H : s.W, mode, 0.02))
                p.grid[i] = randomUniform(1, -1.25, 1.25, 1000 + redraw++)[0];
        auto loss = [&](const std::vector<double>& in, const std::vector<double>& grid) {
            const auto out = reference::gridSampler2D(in, grid, s, mode);
            double l = 0;
            for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * p.go[i];
            return l;
        };
        const auto ref = reference::gridSampler2DBackward(p.go, p.in, p.grid, s, mode);
        const double h = 1e-6;
        const std::vector<double> fdGrid =
            centralDifferences(p.grid, h, [&](const std::vector<double>& grid) { return loss(p.in, grid); });
        const std::vector<double> fdIn =
            centralDifferences(p.in, h, [&](const std::vector<double>& in) { return loss(in, p.grid); });
        expectClose(ref.gridGrad, fdGrid, 1e-6, 1e-6, "reference gridGrad vs finite differences");
        expectClose(ref.inputGrad, fdIn, 1e-6, 1e-6, "reference inputGrad vs finite differences");
        GsOptions o;
        o.dtype = DType::Float64;
        o.mode = mode;
        GsRun r = runGs(p, o);
        ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
        expectClose(r.gridGrad, fdGrid, 1e-6, 1e-6, "float64 operator gridGrad vs finite differences");
        expectClose(r.inputGrad, fdIn, 1e-6, 1e-6, "float64 operator inputGrad vs finite differences");
        o.dtype = DType::Float32;
        r = runGs(p, o);
        ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
        expectClose(r.gridGrad, fdGrid, 1e-4, 1e-4, "float32 operator gridGrad vs finite differences");
    }
}

TEST(GridSamplerMask, OutputMaskSelectsOutputsAndLeavesTheOthersUntouched) {
    GsProblem p({2, 4, 5, 6, 3, 4}, 51);
    for (int interp : {0, 2}) {
        for (std::vector<bool> mask : {std::vector<bool>{true, false}, std::vector<bool>{false, true}}) {
            GsOptions o;
            o.mode.interpolation = interp;
            o.mask = mask;
            GsRun r = runGs(p, o);
            ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
            if (mask[0])
                expectClose(r.inputGrad, r.expected.inputGrad, 1e-5, 1e-5, "inputGrad");
            else
                EXPECT_EQ(r.inputGrad, std::vector<double>(r.inputGrad.size(), kUntouched));
            if (mask[1])
                expectClose(r.gridGrad, r.expected.gridGrad, 1e-5, 1e-5, "gridGrad");
            else
                EXPECT_EQ(r.gridGrad, std::vector<double>(r.gridGrad.size(), kUntouched));
        }
    }
    // [false, false]: an executor without work, whatever the tensors.
    GsOptions o;
    o.mask = {false, false};
    GsRun r = runGs(p, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    EXPECT_TRUE(r.steps.empty());
    EXPECT_EQ(r.workspace, 0u);
    EXPECT_EQ(r.inputGrad, std::vector<double>(r.inputGrad.size(), kUntouched));
    EXPECT_EQ(r.gridGrad, std::vector<double>(r.gridGrad.size(), kUntouched));
}

TEST(GridSamplerMask, NullOrAllFalseMaskSucceedsBeforeAnyOtherCheck) {
    uint64_t ws = 1;
    aclOpExecutor* exe = nullptr;
    ASSERT_ACLNN_OK(aclnnGridSampler2DBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 7, 7, false, nullptr, nullptr,
                                                               nullptr, &ws, &exe));
    EXPECT_EQ(ws, 0u);
    EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, exe, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    BoolArray none({false, false});
    ASSERT_ACLNN_OK(aclnnGridSampler2DBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 0, 0, false, none, nullptr,
                                                               nullptr, &ws, &exe));
    EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, exe, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(GridSamplerShapes, StridedInputsAndOutputsGiveTheDenseResult) {
    GsProblem p({2, 5, 4, 6, 3, 5}, 61);
    for (GridSamplerOptions mode : {GridSamplerOptions{0, 0, false}, GridSamplerOptions{2, 2, true}}) {
        for (DType t : {DType::Float32, DType::Float16}) {
            GsOptions o;
            o.dtype = t;
            o.mode = mode;
            GsRun dense = runGs(p, o);
            o.strided = true;
            GsRun strided = runGs(p, o);
            ASSERT_EQ(strided.status, ACLNN_SUCCESS) << strided.message;
            EXPECT_EQ(dense.inputGrad, strided.inputGrad) << modeName(mode);
            EXPECT_EQ(dense.gridGrad, strided.gridGrad) << modeName(mode);
            EXPECT_EQ(std::count(strided.steps.begin(), strided.steps.end(), "Contiguous"), 3) << modeName(mode);
            EXPECT_EQ(std::count(strided.steps.begin(), strided.steps.end(), "ViewCopy"), 2) << modeName(mode);
        }
    }
}

TEST(GridSamplerShapes, EmptyTensorsGiveZeroGradients) {
    struct Case {
        GridSamplerShape s;
        bool inputGradHasElements, gridGradHasElements;
    };
    for (const Case& c : {Case{{0, 3, 4, 4, 2, 2}, false, false}, Case{{2, 0, 4, 4, 2, 3}, false, true},
                          Case{{2, 3, 4, 4, 0, 3}, true, false}, Case{{2, 3, 4, 4, 2, 0}, true, false}}) {
        for (DType t : {DType::Float32, DType::BFloat16}) {
            GsProblem p(c.s, 5);
            GsOptions o;
            o.dtype = t;
            GsRun r = runGs(p, o);
            ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
            EXPECT_EQ(r.workspace, 0u);
            EXPECT_EQ(r.inputGrad, std::vector<double>(r.inputGrad.size(), 0.0));
            EXPECT_EQ(r.gridGrad, std::vector<double>(r.gridGrad.size(), 0.0));
            EXPECT_EQ(r.inputGrad.empty(), !c.inputGradHasElements);
            EXPECT_EQ(r.gridGrad.empty(), !c.gridGradHasElements);
        }
    }
}

TEST(GridSamplerPlan, StepsFollowTheDeviceChains) {
    GsProblem p({2, 4, 5, 6, 3, 4}, 71);
    auto steps = [&](DType t, GridSamplerOptions mode, std::vector<bool> mask = {true, true}) {
        GsOptions o;
        o.dtype = t;
        o.mode = mode;
        o.mask = mask;
        GsRun r = runGs(p, o);
        EXPECT_EQ(r.status, ACLNN_SUCCESS) << r.message;
        return r.steps;
    };
    using V = std::vector<std::string>;
    // A2: bilinear / nearest with zeros / border run on NHWC.
    EXPECT_EQ(steps(DType::Float32, {0, 0, false}), (V{"Transpose", "Transpose", "GridSamplerGrad", "Transpose"}));
    EXPECT_EQ(steps(DType::Float32, {1, 1, true}), (V{"Transpose", "GridSamplerGrad", "Transpose"}));
    EXPECT_EQ(steps(DType::Float32, {0, 1, false}, {false, true}), (V{"Transpose", "Transpose", "GridSamplerGrad"}));
    EXPECT_EQ(steps(DType::BFloat16, {0, 0, false}),
              (V{"Cast", "Transpose", "Transpose", "GridSamplerGrad", "Transpose", "Cast"}));
    // Reflection, bicubic and float64 run on NCHW.
    EXPECT_EQ(steps(DType::Float32, {0, 2, false}), (V{"GridSampler2DGrad"}));
    EXPECT_EQ(steps(DType::Float32, {2, 0, false}), (V{"GridSampler2DGrad"}));
    EXPECT_EQ(steps(DType::Float64, {0, 0, false}), (V{"GridSampler2DGrad"}));
    EXPECT_EQ(steps(DType::Float16, {0, 2, false}), (V{"Cast", "Cast", "Cast", "GridSampler2DGrad", "Cast", "Cast"}));
    // The training series has no NHWC kernel: fp16 is cast to float32 around GridSampler2DGrad.
    setProduct(Product::AtlasTraining);
    EXPECT_EQ(steps(DType::Float16, {0, 0, false}), (V{"Cast", "Cast", "Cast", "GridSampler2DGrad", "Cast", "Cast"}));
    setProduct(Product::AtlasA3);
    EXPECT_EQ(steps(DType::Float32, {0, 0, false}), (V{"Transpose", "Transpose", "GridSamplerGrad", "Transpose"}));
    setProduct(Product::AtlasA2);
    // More than 2048 channels: NCHW.
    GsProblem wide({1, 2049, 2, 2, 1, 2}, 3);
    GsOptions o;
    GsRun r = runGs(wide, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    EXPECT_EQ(r.steps, V{"GridSampler2DGrad"});
    expectMatchesReference(r, DType::Float32, "C = 2049");
}

TEST(GridSamplerPlan, StepsAppearInTraces) {
    GsProblem p({2, 4, 5, 6, 3, 4}, 81);
    const std::string path = ::testing::TempDir() + "opscope_" + std::to_string(::getpid()) + "_grid_trace.h5";
    auto trace = startTrace(path, TraceLevel::Stats);
    GsOptions o;
    o.dtype = DType::Float16;
    GsRun r = runGs(p, o);
    stopTrace(trace);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    const auto traces = readTraceFile(path);
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].op, "aclnnGridSampler2DBackward");
    ASSERT_EQ(traces[0].steps.size(), r.steps.size());
    for (std::size_t i = 0; i < r.steps.size(); ++i) EXPECT_EQ(traces[0].steps[i].name, r.steps[i]);
    std::remove(path.c_str());
}

TEST(GridSamplerProducts, DtypesPerProduct) {
    GsProblem p({1, 3, 4, 4, 2, 2}, 91);
    struct Case {
        Product product;
        DType dtype;
        bool ok;
    };
    for (const Case& c :
         {Case{Product::AtlasTraining, DType::Float16, true}, Case{Product::AtlasTraining, DType::Float32, true},
          Case{Product::AtlasTraining, DType::Float64, true}, Case{Product::AtlasTraining, DType::BFloat16, false},
          Case{Product::AtlasA3, DType::BFloat16, true}, Case{Product::AtlasA3, DType::Float64, true},
          Case{Product::AtlasInference, DType::Float32, false}}) {
        setProduct(c.product);
        GsOptions o;
        o.dtype = c.dtype;
        GsRun r = runGs(p, o);
        EXPECT_EQ(r.status, c.ok ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID)
            << productName(c.product) << " " << dtypeName(c.dtype) << ": " << r.message;
        if (c.ok && r.status == ACLNN_SUCCESS) expectMatchesReference(r, c.dtype, productName(c.product));
    }
    setProduct(Product::AtlasA2);
}

// inputGrad is owned by (batch, channel block): each element is accumulated in raster order of
// the grid whatever the thread count, so it is bitwise identical across thread counts; gridGrad
// is bitwise identical for a given thread count.
TEST(GridSamplerRepeat, BitwiseRepeatableUnderThreads) {
    GsProblem one({1, 40, 9, 11, 13, 12}, 111, -1.1, 1.1);
    GsProblem three({3, 24, 7, 6, 9, 8}, 112, -1.1, 1.1);
    for (const GsProblem* p : {&one, &three}) {
        for (GridSamplerOptions mode : {GridSamplerOptions{0, 0, false}, GridSamplerOptions{2, 2, true}}) {
            std::vector<double> firstInputGrad;
            for (int threads : {1, 2, 3}) {
                setNumThreads(threads);
                GsOptions o;
                o.mode = mode;
                GsRun a = runGs(*p, o), b = runGs(*p, o);
                ASSERT_EQ(a.status, ACLNN_SUCCESS) << a.message;
                EXPECT_EQ(a.inputGrad, b.inputGrad) << threads << " threads";
                EXPECT_EQ(a.gridGrad, b.gridGrad) << threads << " threads";
                if (firstInputGrad.empty()) firstInputGrad = a.inputGrad;
                EXPECT_EQ(a.inputGrad, firstInputGrad) << threads << " threads vs 1";
                expectMatchesReference(a, DType::Float32, modeName(mode));
            }
        }
    }
    setNumThreads(0);
}

}  // namespace
}  // namespace opscope::test
