// aclnnRmsNormGrad through the public C API: every dtype combination of the doc's tables
// against the float64 reference, the float64 forward cascaded into the backward (rstd is
// real) and checked by finite differences, the accepted rstd shapes, strided tensors, the
// products' rules, the plan's steps in a trace, and bitwise repeatability under threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "aclnnop/aclnn_rms_norm_grad.h"
#include "device_tensor.h"
#include "finite_difference.h"
#include "opscope/objects.h"
#include "opscope/parallel.h"
#include "opscope/product.h"
#include "opscope/reference/rms_norm.h"
#include "opscope/trace.h"

namespace opscope::test {
namespace {

constexpr double kEps = 1e-6;

// x of `shape`; gamma covers the last `gammaRank` axes; rstd (float64 forward) the others.
struct RmsProblem {
    std::vector<int64_t> shape, gammaShape, rstdShape;
    int64_t rows = 1, cols = 1;
    std::vector<double> x, dy, gamma, rstd;

    RmsProblem(std::vector<int64_t> s, std::size_t gammaRank, uint32_t seed) : shape(std::move(s)) {
        const std::size_t n = shape.size() - gammaRank;
        rstdShape.assign(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(n));
        gammaShape.assign(shape.begin() + static_cast<std::ptrdiff_t>(n), shape.end());
        if (rstdShape.empty()) rstdShape = {1};
        for (std::size_t i = 0; i < shape.size(); ++i) (i < n ? rows : cols) *= shape[i];
        x = randomUniform(static_cast<std::size_t>(rows * cols), -2.0, 3.0, seed);
        dy = randomUniform(x.size(), -1.0, 1.0, seed + 1);
        gamma = randomUniform(static_cast<std::size_t>(cols), 0.5, 1.5, seed + 2);
        rstd = reference::rmsNormForward(x, gamma, rows, cols, kEps).rstd;
    }
};

struct RmsRun {
    aclnnStatus status = ACLNN_SUCCESS;
    std::string message;
    std::vector<double> dx, dgamma;
    reference::RmsNormBackwardResult expected;  // on the inputs as rounded to their dtypes
    std::vector<double> dxScale, dgammaScale;   // magnitudes of the summed terms, for tolerances
    std::vector<std::string> steps;
};

struct RmsOptions {
    DType dtype = DType::Float32;
    DType gammaDtype = DType::Undefined;  // Undefined = dtype
    std::vector<int64_t> rstdShape;       // empty = the problem's
    bool stridedInputs = false, stridedOutputs = false;
};

std::vector<std::string> stepNames(const aclOpExecutor* exe) {
    std::vector<std::string> names;
    for (const Step& s : exe->plan().steps()) names.push_back(s.name);
    return names;
}

// A strided device copy of `h`: its storage has a gap after every element of the last axis.
DeviceTensor gappy(const HostTensor& h, double fill = -777.0) {
    std::vector<int64_t> strides(h.shape().size(), 1);
    int64_t s = 2;
    for (std::size_t i = h.shape().size(); i-- > 0;) {
        strides[i] = s;
        s *= std::max<int64_t>(h.shape()[i], 1);
    }
    return DeviceTensor::strided(h, strides, 1, fill);
}

RmsRun runRms(const RmsProblem& p, const RmsOptions& o) {
    const DType gdt = o.gammaDtype == DType::Undefined ? o.dtype : o.gammaDtype;
    const HostTensor hx = HostTensor::fromDoubles(o.dtype, p.shape, p.x);
    const HostTensor hdy = HostTensor::fromDoubles(o.dtype, p.shape, p.dy);
    const HostTensor hg = HostTensor::fromDoubles(gdt, p.gammaShape, p.gamma);
    const HostTensor hr =
        HostTensor::fromDoubles(DType::Float32, o.rstdShape.empty() ? p.rstdShape : o.rstdShape, p.rstd);
    DeviceTensor x = o.stridedInputs ? gappy(hx) : DeviceTensor::fromHost(hx);
    DeviceTensor dy = o.stridedInputs ? gappy(hdy) : DeviceTensor::fromHost(hdy);
    DeviceTensor g = o.stridedInputs ? gappy(hg) : DeviceTensor::fromHost(hg);
    DeviceTensor r = o.stridedInputs ? gappy(hr) : DeviceTensor::fromHost(hr);
    DeviceTensor dx =
        o.stridedOutputs ? gappy(HostTensor(o.dtype, p.shape), -5.0) : DeviceTensor::zeros(o.dtype, p.shape);
    DeviceTensor dg = o.stridedOutputs ? gappy(HostTensor(DType::Float32, p.gammaShape), -5.0)
                                       : DeviceTensor::zeros(DType::Float32, p.gammaShape);
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;
    RmsRun run;
    run.status = aclnnRmsNormGradGetWorkspaceSize(dy, x, r, g, dx, dg, &ws, &exe);
    if (run.status != ACLNN_SUCCESS) {
        run.message = aclGetRecentErrMsg();
        return run;
    }
    run.steps = stepNames(exe);
    run.status = runWithWorkspace(aclnnRmsNormGrad, ws, exe);
    if (run.status != ACLNN_SUCCESS) {
        run.message = aclGetRecentErrMsg();
        return run;
    }
    run.dx = dx.toDoubles();
    run.dgamma = dg.toDoubles();
    if (o.stridedOutputs) {  // the gaps of the strided outputs are untouched
        for (const DeviceTensor* t : {&dx, &dg}) {
            int64_t kept = 0;
            const auto storage = t->storageDoubles();
            for (double v : storage) kept += (v == -5.0);
            EXPECT_EQ(kept, static_cast<int64_t>(storage.size()) - t->toHost().numel());
        }
    }
    const auto vx = hx.toDoubles(), vdy = hdy.toDoubles(), vg = hg.toDoubles(), vr = hr.toDoubles();
    run.expected = reference::rmsNormBackward(vdy, vx, vr, vg, p.rows, p.cols);
    run.dxScale.assign(vx.size(), 0.0);
    run.dgammaScale.assign(static_cast<std::size_t>(p.cols), 0.0);
    for (int64_t i = 0; i < p.rows; ++i) {
        double m = 0;
        for (int64_t j = 0; j < p.cols; ++j) {
            const auto k = static_cast<std::size_t>(i * p.cols + j);
            m += std::fabs(vdy[k] * vg[static_cast<std::size_t>(j)] * vx[k]);
        }
        const double rs = vr[static_cast<std::size_t>(i)];
        for (int64_t j = 0; j < p.cols; ++j) {
            const auto k = static_cast<std::size_t>(i * p.cols + j);
            run.dxScale[k] = rs * std::fabs(vdy[k] * vg[static_cast<std::size_t>(j)]) +
                             rs * rs * rs * std::fabs(vx[k]) * m / static_cast<double>(p.cols);
            run.dgammaScale[static_cast<std::size_t>(j)] += std::fabs(vdy[k] * vx[k] * rs);
        }
    }
    return run;
}

// |actual - expected| <= rtol * scale (the magnitude of what was summed), elementwise.
void expectWithin(const std::vector<double>& actual, const std::vector<double>& expected,
                  const std::vector<double>& scale, double rtol, const char* what) {
    ASSERT_EQ(actual.size(), expected.size()) << what;
    std::size_t bad = 0, worst = 0;
    double worstRatio = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double ratio = std::fabs(actual[i] - expected[i]) / (rtol * scale[i] + 1e-30);
        if (!(ratio <= 1.0)) ++bad;
        if (!(ratio <= worstRatio)) worstRatio = ratio, worst = i;
    }
    EXPECT_EQ(bad, 0u) << what << ": worst at " << worst << " actual " << actual[worst] << " expected "
                       << expected[worst] << " (ratio " << worstRatio << ")";
}

// Fraction of `actual` equal to `expected` rounded to `dtype`: rounding once to nearest from an
// accurate float32 value matches for nearly every element (truncating would miss half).
double fractionRoundedExactly(const std::vector<double>& actual, const std::vector<double>& expected, DType dtype) {
    const HostTensor rounded = HostTensor::fromDoubles(dtype, {static_cast<int64_t>(expected.size())}, expected);
    std::size_t same = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) same += actual[i] == rounded.getAsDouble(static_cast<int64_t>(i));
    return actual.empty() ? 1.0 : static_cast<double>(same) / static_cast<double>(actual.size());
}

// Output rounding of the dtype plus float32 compute.
double rtolFor(DType t) {
    switch (t) {
        case DType::Float16: return 1e-3;
        case DType::BFloat16: return 8e-3;
        default: return 1e-5;
    }
}

struct Combo {
    DType dy, gamma;
};

std::string comboName(const Combo& c) { return std::string(dtypeName(c.dy)) + "_gamma_" + dtypeName(c.gamma); }

struct ShapeCase {
    std::vector<int64_t> shape;
    std::size_t gammaRank;
};

const ShapeCase kShapes[] = {
    {{4, 16}, 1},                   // plain 2-D
    {{2, 3, 40}, 1},                // rank 3, a tail after the 32 float lanes
    {{2, 3, 5, 8}, 2},              // gamma covers two axes
    {{7}, 1},                       // rank 1: one row
    {{3, 5}, 2},                    // gamma covers all of x: one row
    {{3, 1029}, 1},                 // rows longer than the 1024-element widening chunk
    {{2, 1, 2, 1, 2, 1, 2, 9}, 3},  // rank 8
    {{72, 1030}, 1},                // several row partitions with 2+ threads
};

class RmsNormGradDtype : public ::testing::TestWithParam<Combo> {};

TEST_P(RmsNormGradDtype, MatchesFloat64Reference) {
    const Combo c = GetParam();
    uint32_t seed = 40;
    for (const ShapeCase& s : kShapes) {
        SCOPED_TRACE("shape " + shapeToString(s.shape) + " gamma rank " + std::to_string(s.gammaRank));
        RmsProblem p(s.shape, s.gammaRank, seed += 11);
        RmsOptions o;
        o.dtype = c.dy;
        o.gammaDtype = c.gamma;
        RmsRun r = runRms(p, o);
        ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
        expectWithin(r.dx, r.expected.dx, r.dxScale, rtolFor(c.dy), "dx");
        if (c.dy != DType::Float32) EXPECT_GE(fractionRoundedExactly(r.dx, r.expected.dx, c.dy), 0.9);
        // dgamma is float32 for every dtype; float partial sums over the rows.
        expectWithin(r.dgamma, r.expected.dgamma, r.dgammaScale, 4e-6, "dgamma");
    }
}

// The A2/A3 table: (dy, x) -> gamma.
INSTANTIATE_TEST_SUITE_P(DocTable, RmsNormGradDtype,
                         ::testing::Values(Combo{DType::Float32, DType::Float32}, Combo{DType::Float16, DType::Float32},
                                           Combo{DType::Float16, DType::Float16},
                                           Combo{DType::BFloat16, DType::Float32},
                                           Combo{DType::BFloat16, DType::BFloat16}),
                         [](const auto& info) { return comboName(info.param); });

// dx of 16 MiB and more is written with streaming stores from the first aligned element of each
// row on; odd row lengths put that element at every offset.
TEST(RmsNormGradShapes, StreamedLargeOutputsMatchReference) {
    for (const auto& [dtype, rows] :
         {std::pair{DType::BFloat16, int64_t{2050}}, std::pair{DType::Float32, int64_t{1026}}}) {
        SCOPED_TRACE(dtypeName(dtype));
        RmsProblem p({rows, 4099}, 1, 77);
        RmsOptions o;
        o.dtype = dtype;
        o.gammaDtype = DType::Float32;
        RmsRun r = runRms(p, o);
        ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
        expectWithin(r.dx, r.expected.dx, r.dxScale, rtolFor(dtype), "dx");
        expectWithin(r.dgamma, r.expected.dgamma, r.dgammaScale, 4e-6, "dgamma");
    }
}

TEST(RmsNormGradProducts, InferenceSeriesTableAndTailRule) {
    setProduct(Product::AtlasInference);
    RmsProblem p({{5, 48}, 1, 3});
    for (DType t : {DType::Float32, DType::Float16}) {
        RmsOptions o;
        o.dtype = t;
        RmsRun r = runRms(p, o);
        ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
        expectWithin(r.dx, r.expected.dx, r.dxScale, rtolFor(t), "dx");
        expectWithin(r.dgamma, r.expected.dgamma, r.dgammaScale, 4e-6, "dgamma");
        EXPECT_EQ(r.steps.front(), "CheckFinite");
    }
    // The last axis must hold at least 32 bytes: 8 float32 or 16 float16 elements.
    for (auto [t, ok, bad] : {std::tuple{DType::Float32, 8, 7}, std::tuple{DType::Float16, 16, 15}}) {
        RmsOptions o;
        o.dtype = t;
        EXPECT_EQ(runRms(RmsProblem({3, ok}, 1, 9), o).status, ACLNN_SUCCESS);
        RmsRun r = runRms(RmsProblem({3, bad}, 1, 9), o);
        EXPECT_EQ(r.status, ACLNN_ERR_PARAM_INVALID);
        EXPECT_NE(r.message.find("at least 32 bytes on Atlas inference series"), std::string::npos) << r.message;
    }
    setProduct(Product::AtlasA2);
}

TEST(RmsNormGradProducts, InferenceSeriesRejectsInfAndNanAtRunTime) {
    setProduct(Product::AtlasInference);
    for (double bad : {INFINITY, NAN}) {
        RmsProblem p({4, 16}, 1, 5);
        p.x[37] = bad;
        RmsRun r = runRms(p, RmsOptions{});
        EXPECT_EQ(r.status, ACLNN_ERR_RUNTIME_ERROR);
        EXPECT_NE(r.message.find("x holds inf or nan at flat index 37"), std::string::npos) << r.message;
    }
    setProduct(Product::AtlasA2);
    // On A2 the values simply propagate: the row holding the inf gets no finite dx, the others
    // are untouched; dgamma of that column is infinite.
    RmsProblem p({4, 16}, 1, 5);
    p.dy[37] = INFINITY;
    RmsRun r = runRms(p, RmsOptions{});
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    EXPECT_FALSE(std::isfinite(r.dx[40]));
    EXPECT_TRUE(std::isfinite(r.dx[0]));
    EXPECT_TRUE(std::isinf(r.dgamma[5]));
}

TEST(RmsNormGradProducts, A3BehavesLikeA2) {
    setProduct(Product::AtlasA3);
    RmsProblem p({6, 32}, 1, 8);
    RmsOptions o;
    o.dtype = DType::BFloat16;
    o.gammaDtype = DType::Float32;
    RmsRun r = runRms(p, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    expectWithin(r.dx, r.expected.dx, r.dxScale, rtolFor(DType::BFloat16), "dx");
    setProduct(Product::AtlasA2);
}

// The reference and the float32 kernel against central differences of the float64 forward,
// L = sum(dy * rmsnorm(x, gamma)) with rstd recomputed from x.
TEST(RmsNormGradFiniteDifference, ReferenceAndKernelMatchForwardDerivative) {
    RmsProblem p({3, 2, 10}, 1, 77);
    auto loss = [&](const std::vector<double>& x, const std::vector<double>& g) {
        const auto f = reference::rmsNormForward(x, g, p.rows, p.cols, kEps);
        double l = 0;
        for (std::size_t i = 0; i < f.y.size(); ++i) l += f.y[i] * p.dy[i];
        return l;
    };
    const auto ref = reference::rmsNormBackward(p.dy, p.x, p.rstd, p.gamma, p.rows, p.cols);
    const double h = 1e-6;
    const std::vector<double> fdX =
        centralDifferences(p.x, h, [&](const std::vector<double>& x) { return loss(x, p.gamma); });
    const std::vector<double> fdG =
        centralDifferences(p.gamma, h, [&](const std::vector<double>& g) { return loss(p.x, g); });
    for (std::size_t i = 0; i < p.x.size(); ++i)
        EXPECT_NEAR(ref.dx[i], fdX[i], 1e-7 * (1 + std::fabs(fdX[i]))) << "x[" << i << "]";
    for (std::size_t j = 0; j < p.gamma.size(); ++j)
        EXPECT_NEAR(ref.dgamma[j], fdG[j], 1e-7 * (1 + std::fabs(fdG[j]))) << "gamma[" << j << "]";
    // The operator (float32, rstd rounded to float32) against the same derivatives.
    RmsRun r = runRms(p, RmsOptions{});
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    EXPECT_LE(toleranceRatio(r.dx, fdX, 1e-5, 1e-4), 1.0);
    EXPECT_LE(toleranceRatio(r.dgamma, fdG, 1e-5, 1e-4), 1.0);
}

// rstd shapes the device accepts (its tiling compares rstd with x from the first axis).
TEST(RmsNormGradShapes, AcceptedRstdShapesGiveTheSameResult) {
    RmsProblem p({3, 4, 16}, 1, 12);
    RmsRun exact = runRms(p, RmsOptions{});
    ASSERT_EQ(exact.status, ACLNN_SUCCESS) << exact.message;
    for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 4, 1}, std::vector<int64_t>{3, 4, 1, 1}}) {
        RmsOptions o;
        o.rstdShape = shape;  // keepdim form, as RmsNorm forward returns it
        RmsRun r = runRms(p, o);
        ASSERT_EQ(r.status, ACLNN_SUCCESS) << shapeToString(shape) << ": " << r.message;
        EXPECT_EQ(r.dx, exact.dx);
        EXPECT_EQ(r.dgamma, exact.dgamma);
    }
    // A prefix of x[0:n] when the rest of the leading axes are 1: x [3, 1, 16], rstd [3].
    RmsProblem q({3, 1, 16}, 1, 13);
    RmsOptions o;
    o.rstdShape = {3};
    RmsRun r = runRms(q, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    expectWithin(r.dx, r.expected.dx, r.dxScale, 1e-5, "dx");
    // A missing or extra leading size-1 axis is rejected (see the error suite for the messages).
    RmsProblem b({1, 4, 16}, 1, 14);
    o.rstdShape = {4};
    EXPECT_EQ(runRms(b, o).status, ACLNN_ERR_PARAM_INVALID);
    RmsProblem c({4, 16}, 1, 15);
    o.rstdShape = {1, 4};
    EXPECT_EQ(runRms(c, o).status, ACLNN_ERR_PARAM_INVALID);
}

// Strided tensors are an OpScope leniency (the device documents them as unsupported): they
// go through Contiguous / ViewCopy steps and give the dense result bit for bit.
TEST(RmsNormGradShapes, StridedInputsAndOutputsGiveTheDenseResult) {
    RmsProblem p({5, 3, 24}, 1, 31);
    for (Combo c : {Combo{DType::Float32, DType::Float32}, Combo{DType::BFloat16, DType::Float32},
                    Combo{DType::Float16, DType::Float16}}) {
        SCOPED_TRACE(comboName(c));
        RmsOptions o;
        o.dtype = c.dy;
        o.gammaDtype = c.gamma;
        RmsRun dense = runRms(p, o);
        ASSERT_EQ(dense.status, ACLNN_SUCCESS) << dense.message;
        o.stridedInputs = o.stridedOutputs = true;
        RmsRun strided = runRms(p, o);
        ASSERT_EQ(strided.status, ACLNN_SUCCESS) << strided.message;
        EXPECT_EQ(dense.dx, strided.dx);
        EXPECT_EQ(dense.dgamma, strided.dgamma);
        EXPECT_EQ(std::count(strided.steps.begin(), strided.steps.end(), "Contiguous"), 4);  // dy, x, rstd, gamma
        EXPECT_EQ(std::count(strided.steps.begin(), strided.steps.end(), "ViewCopy"), 2);
    }
}

TEST(RmsNormGradPlan, StepsMirrorTheDeviceAndAppearInTraces) {
    RmsProblem p({4, 32}, 1, 3);
    RmsOptions o;
    o.dtype = DType::BFloat16;
    o.gammaDtype = DType::BFloat16;
    const std::string path = ::testing::TempDir() + "opscope_" + std::to_string(::getpid()) + "_rms_trace.h5";
    auto trace = startTrace(path, TraceLevel::Stats);
    RmsRun r = runRms(p, o);
    stopTrace(trace);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << r.message;
    const std::vector<std::string> expected = {"Cast", "RmsNormGrad.DxAndGammaPartials", "RmsNormGrad.GammaReduce"};
    EXPECT_EQ(r.steps, expected);
    const auto traces = readTraceFile(path);
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].op, "aclnnRmsNormGrad");
    ASSERT_EQ(traces[0].steps.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(traces[0].steps[i].name, expected[i]);
    EXPECT_TRUE(traces[0].completed);
    std::remove(path.c_str());
}

TEST(RmsNormGradRepeat, BitwiseRepeatableForFixedThreadCount) {
    RmsProblem p({96, 1100}, 1, 55);
    for (int threads : {1, 2, 3}) {
        setNumThreads(threads);
        for (DType t : {DType::Float32, DType::BFloat16}) {
            RmsOptions o;
            o.dtype = t;
            o.gammaDtype = DType::Float32;
            RmsRun a = runRms(p, o), b = runRms(p, o);
            ASSERT_EQ(a.status, ACLNN_SUCCESS) << a.message;
            EXPECT_EQ(a.dx, b.dx) << threads << " threads";
            EXPECT_EQ(a.dgamma, b.dgamma) << threads << " threads";
        }
    }
    setNumThreads(0);
}

}  // namespace
}  // namespace opscope::test
