// aclnnGroupNormBackward through the public C API: against the float64 reference per dtype,
// against finite differences of the float64 forward, every documented error with its exact
// code, strided and empty tensors, output masks, and bitwise repeatability under threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "aclnnop/aclnn_group_norm_backward.h"
#include "device_tensor.h"
#include "finite_difference.h"
#include "opscope/parallel.h"
#include "opscope/product.h"
#include "opscope/reference/group_norm.h"

namespace opscope::test {
namespace {

struct GnShape {
    std::vector<int64_t> shape;  // input shape; N = shape[0], C = shape[1], HxW = rest
    int64_t group;
};

int64_t hxwOf(const std::vector<int64_t>& s) {
    int64_t h = 1;
    for (std::size_t i = 2; i < s.size(); ++i) h *= s[i];
    return h;
}

// A consistent problem: x, gamma, beta random; mean/rstd from the float64 forward (cascade).
struct GnProblem {
    std::vector<int64_t> shape;
    int64_t N, C, HxW, G;
    std::vector<double> x, dy, gamma, beta, mean, rstd;

    GnProblem(const GnShape& s, uint32_t seed) : shape(s.shape), G(s.group) {
        N = shape[0];
        C = shape[1];
        HxW = hxwOf(shape);
        const auto n = static_cast<std::size_t>(N * C * HxW);
        x = randomUniform(n, -2.0, 3.0, seed);
        dy = randomUniform(n, -1.0, 1.0, seed + 1);
        gamma = randomUniform(static_cast<std::size_t>(C), 0.5, 1.5, seed + 2);
        beta = randomUniform(static_cast<std::size_t>(C), -0.5, 0.5, seed + 3);
        auto f = reference::groupNormForward(x, gamma, beta, N, C, HxW, G, 1e-5);
        mean = f.mean;
        rstd = f.rstd;
    }
};

// Runs the operator with all tensors in `dtype`. Values are rounded to the dtype first, and
// the reference is computed from the rounded values, so only the kernel's error is measured.
struct GnRun {
    aclnnStatus status = ACLNN_SUCCESS;
    std::vector<double> dx, dgamma, dbeta;        // operator outputs
    reference::GroupNormBackwardResult expected;  // float64 reference on the rounded inputs
};

GnRun runGroupNorm(const GnProblem& p, DType dtype, std::vector<bool> mask = {true, true, true},
                   bool stridedOutputs = false) {
    auto rounded = [&](const std::vector<double>& v, std::vector<int64_t> shape) {
        return HostTensor::fromDoubles(dtype, std::move(shape), v);
    };
    const HostTensor hx = rounded(p.x, p.shape), hdy = rounded(p.dy, p.shape);
    const HostTensor hmean = rounded(p.mean, {p.N, p.G}), hrstd = rounded(p.rstd, {p.N, p.G});
    const HostTensor hgamma = rounded(p.gamma, {p.C});
    DeviceTensor x = DeviceTensor::fromHost(hx), dy = DeviceTensor::fromHost(hdy);
    DeviceTensor mean = DeviceTensor::fromHost(hmean), rstd = DeviceTensor::fromHost(hrstd);
    DeviceTensor gamma = DeviceTensor::fromHost(hgamma);
    DeviceTensor dx =
        stridedOutputs ? DeviceTensor::transposedZeros(dtype, p.shape) : DeviceTensor::zeros(dtype, p.shape);
    DeviceTensor dgamma =
        stridedOutputs ? DeviceTensor::strided(HostTensor(dtype, {p.C}), {2}, 1) : DeviceTensor::zeros(dtype, {p.C});
    DeviceTensor dbeta = DeviceTensor::zeros(dtype, {p.C});
    BoolArray m(mask);
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;
    GnRun r;
    r.status = aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, gamma, p.N, p.C, p.HxW, p.G, m,
                                                      mask[0] ? dx.get() : nullptr, mask[1] ? dgamma.get() : nullptr,
                                                      mask[2] ? dbeta.get() : nullptr, &ws, &exe);
    if (r.status != ACLNN_SUCCESS) return r;
    r.status = runWithWorkspace(aclnnGroupNormBackward, ws, exe);
    if (r.status != ACLNN_SUCCESS) return r;
    r.dx = dx.toDoubles();
    r.dgamma = dgamma.toDoubles();
    r.dbeta = dbeta.toDoubles();
    r.expected = reference::groupNormBackward(hdy.toDoubles(), hx.toDoubles(), hmean.toDoubles(), hrstd.toDoubles(),
                                              hgamma.toDoubles(), p.N, p.C, p.HxW, p.G);
    return r;
}

// Tolerance: float32 compute then one rounding to the output dtype.
double rtolFor(DType t) {
    switch (t) {
        case DType::Float16: return 2e-3;
        case DType::BFloat16: return 1.6e-2;
        default: return 2e-5;
    }
}

const GnShape kShapes[] = {
    {{2, 4, 3, 5}, 2},      // odd spatial sizes
    {{3, 6, 7}, 3},         // rank 3
    {{1, 8, 4, 4}, 1},      // group = 1 (LayerNorm-like)
    {{2, 8, 5, 3}, 8},      // group = C (InstanceNorm-like)
    {{2, 12, 2, 3, 3}, 4},  // rank 5
    {{4, 3}, 3},            // no spatial axes
    {{2, 64, 33, 17}, 8},   // tails in the vector loop
    {{2, 4, 47, 49}, 2},    // rows over one 2048-element summation block, with a tail
};

class GroupNormBackwardDtype : public ::testing::TestWithParam<DType> {};

TEST_P(GroupNormBackwardDtype, MatchesFloat64Reference) {
    const DType dtype = GetParam();
    uint32_t seed = 10;
    for (const GnShape& s : kShapes) {
        SCOPED_TRACE("shape " + shapeToString(s.shape) + " group " + std::to_string(s.group));
        GnProblem p(s, seed += 7);
        GnRun r = runGroupNorm(p, dtype);
        ASSERT_ACLNN_OK(r.status);
        // Outputs are rounded once to dtype. Cancellation errors grow with rstd (a group of
        // one element has rstd = 1/sqrt(eps)), so the absolute floor scales with it.
        const double rtol = rtolFor(dtype);
        const double cond = std::max(1.0, *std::max_element(p.rstd.begin(), p.rstd.end()));
        EXPECT_LE(toleranceRatio(r.dx, r.expected.gradInput, rtol * 0.05 * cond, rtol), 1.0);
        EXPECT_LE(toleranceRatio(r.dgamma, r.expected.gradGamma, rtol * 0.5 * cond, rtol), 1.0);
        EXPECT_LE(toleranceRatio(r.dbeta, r.expected.gradBeta, rtol * 0.5, rtol), 1.0);
    }
}

INSTANTIATE_TEST_SUITE_P(AllDtypes, GroupNormBackwardDtype,
                         ::testing::Values(DType::Float32, DType::Float16, DType::BFloat16),
                         [](const auto& info) { return std::string(dtypeName(info.param)); });

// The reference itself against central differences of the float64 forward pass:
// L = sum(dy * y(x, gamma, beta)); dL/dx, dL/dgamma, dL/dbeta.
TEST(GroupNormBackwardFiniteDifference, ReferenceAndKernelMatchForwardDerivative) {
    GnProblem p({{2, 6, 3, 2}, 3}, 99);
    const double eps = 1e-5, h = 1e-6;
    auto loss = [&](const std::vector<double>& x, const std::vector<double>& g, const std::vector<double>& b) {
        auto f = reference::groupNormForward(x, g, b, p.N, p.C, p.HxW, p.G, eps);
        double l = 0;
        for (std::size_t i = 0; i < f.y.size(); ++i) l += f.y[i] * p.dy[i];
        return l;
    };
    auto ref = reference::groupNormBackward(p.dy, p.x, p.mean, p.rstd, p.gamma, p.N, p.C, p.HxW, p.G);
    using V = std::vector<double>;
    const V fdX = centralDifferences(p.x, h, [&](const V& x) { return loss(x, p.gamma, p.beta); });
    const V fdGamma = centralDifferences(p.gamma, h, [&](const V& g) { return loss(p.x, g, p.beta); });
    const V fdBeta = centralDifferences(p.beta, h, [&](const V& b) { return loss(p.x, p.gamma, b); });
    for (std::size_t i = 0; i < p.x.size(); ++i)
        EXPECT_NEAR(ref.gradInput[i], fdX[i], 1e-6 * (1 + std::fabs(fdX[i]))) << "x[" << i << "]";
    for (std::size_t c = 0; c < p.gamma.size(); ++c) {
        EXPECT_NEAR(ref.gradGamma[c], fdGamma[c], 1e-6);
        EXPECT_NEAR(ref.gradBeta[c], fdBeta[c], 1e-6);
    }
    // And the float32 kernel against the same derivative, through the operator.
    GnRun r = runGroupNorm(p, DType::Float32);
    ASSERT_EQ(r.status, ACLNN_SUCCESS);
    EXPECT_LE(toleranceRatio(r.dx, ref.gradInput, 1e-5, 1e-4), 1.0);
}

TEST(GroupNormBackward, OutputMaskCombinationsLeaveMaskedOutputsNull) {
    GnProblem p({{2, 4, 3, 3}, 2}, 5);
    for (int bits = 0; bits < 8; ++bits) {
        std::vector<bool> mask = {bool(bits & 1), bool(bits & 2), bool(bits & 4)};
        SCOPED_TRACE("mask " + std::to_string(bits));
        GnRun r = runGroupNorm(p, DType::Float32, mask);
        ASSERT_ACLNN_OK(r.status);
        if (mask[0]) EXPECT_LE(toleranceRatio(r.dx, r.expected.gradInput, 1e-6, 2e-5), 1.0);
        if (mask[1]) EXPECT_LE(toleranceRatio(r.dgamma, r.expected.gradGamma, 1e-5, 2e-5), 1.0);
        if (mask[2]) EXPECT_LE(toleranceRatio(r.dbeta, r.expected.gradBeta, 1e-5, 2e-5), 1.0);
    }
}

TEST(GroupNormBackward, StridedInputsAndOutputs) {
    GnProblem p({{2, 4, 5, 3}, 2}, 21);
    for (DType dtype : {DType::Float32, DType::BFloat16}) {
        GnRun dense = runGroupNorm(p, dtype);
        GnRun strided = runGroupNorm(p, dtype, {true, true, true}, /*stridedOutputs=*/true);
        ASSERT_ACLNN_OK(strided.status);
        EXPECT_EQ(dense.dx, strided.dx);
        EXPECT_EQ(dense.dgamma, strided.dgamma);
    }
    // Strided inputs: x as a transposed view of its storage, gradOut with an offset and gaps.
    const HostTensor hx = HostTensor::fromDoubles(DType::Float32, p.shape, p.x);
    const HostTensor hdy = HostTensor::fromDoubles(DType::Float32, p.shape, p.dy);
    DeviceTensor x = DeviceTensor::strided(hx, {60, 15, 1, 5}, 0);
    DeviceTensor dy = DeviceTensor::strided(hdy, {120, 30, 6, 2}, 3);
    DeviceTensor mean = DeviceTensor::fromDoubles(DType::Float32, {2, 2}, p.mean);
    DeviceTensor rstd = DeviceTensor::fromDoubles(DType::Float32, {2, 2}, p.rstd);
    DeviceTensor gamma = DeviceTensor::fromDoubles(DType::Float32, {4}, p.gamma);
    DeviceTensor dx = DeviceTensor::strided(HostTensor(DType::Float32, p.shape), {120, 30, 6, 2}, 1, -5.0);
    DeviceTensor dgamma = DeviceTensor::zeros(DType::Float32, {4});
    DeviceTensor dbeta = DeviceTensor::zeros(DType::Float32, {4});
    BoolArray mask({true, true, true});
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;
    ASSERT_ACLNN_OK(aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, gamma, 2, 4, 15, 2, mask, dx, dgamma,
                                                           dbeta, &ws, &exe));
    EXPECT_GT(ws, 0u);  // Contiguous copies live in the workspace
    ASSERT_ACLNN_OK(runWithWorkspace(aclnnGroupNormBackward, ws, exe));
    auto ref = reference::groupNormBackward(p.dy, p.x, p.mean, p.rstd, p.gamma, 2, 4, 15, 2);
    EXPECT_LE(toleranceRatio(dx.toDoubles(), ref.gradInput, 1e-6, 2e-5), 1.0);
    // The gaps of the strided output are untouched.
    const auto storage = dx.storageDoubles();
    int64_t untouched = 0;
    for (double v : storage) untouched += (v == -5.0);
    EXPECT_EQ(untouched, static_cast<int64_t>(storage.size()) - 120);
}

TEST(GroupNormBackward, EmptyBatchGivesZeroGammaBetaGradients) {
    DeviceTensor x = DeviceTensor::zeros(DType::Float32, {0, 4, 3});
    DeviceTensor dy = DeviceTensor::zeros(DType::Float32, {0, 4, 3});
    DeviceTensor mean = DeviceTensor::zeros(DType::Float32, {0, 2});
    DeviceTensor rstd = DeviceTensor::zeros(DType::Float32, {0, 2});
    DeviceTensor gamma = DeviceTensor::zeros(DType::Float32, {4});
    DeviceTensor dx = DeviceTensor::zeros(DType::Float32, {0, 4, 3});
    DeviceTensor dgamma = DeviceTensor::fromDoubles(DType::Float32, {4}, {9, 9, 9, 9});
    DeviceTensor dbeta = DeviceTensor::fromDoubles(DType::Float32, {4}, {9, 9, 9, 9});
    BoolArray mask({true, true, true});
    uint64_t ws = 1;
    aclOpExecutor* exe = nullptr;
    ASSERT_ACLNN_OK(aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, gamma, 0, 4, 3, 2, mask, dx, dgamma,
                                                           dbeta, &ws, &exe));
    EXPECT_EQ(ws, 0u);
    ASSERT_ACLNN_OK(aclnnGroupNormBackward(nullptr, 0, exe, nullptr));
    EXPECT_EQ(dgamma.toDoubles(), std::vector<double>(4, 0.0));
    EXPECT_EQ(dbeta.toDoubles(), std::vector<double>(4, 0.0));
}

TEST(GroupNormBackward, NullGammaMeansOnes) {
    GnProblem p({{2, 4, 6}, 2}, 3);
    const auto h = [&](const std::vector<double>& v, std::vector<int64_t> s) {
        return DeviceTensor::fromDoubles(DType::Float32, std::move(s), v);
    };
    DeviceTensor x = h(p.x, p.shape), dy = h(p.dy, p.shape), mean = h(p.mean, {2, 2}), rstd = h(p.rstd, {2, 2});
    DeviceTensor dx = DeviceTensor::zeros(DType::Float32, p.shape), dgamma = DeviceTensor::zeros(DType::Float32, {4}),
                 dbeta = DeviceTensor::zeros(DType::Float32, {4});
    BoolArray mask({true, true, true});
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;
    ASSERT_ACLNN_OK(aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, nullptr, 2, 4, 6, 2, mask, dx, dgamma,
                                                           dbeta, &ws, &exe));
    ASSERT_EQ(runWithWorkspace(aclnnGroupNormBackward, ws, exe), ACLNN_SUCCESS);
    auto ref = reference::groupNormBackward(p.dy, p.x, p.mean, p.rstd, {}, 2, 4, 6, 2);
    EXPECT_LE(toleranceRatio(dx.toDoubles(), ref.gradInput, 1e-6, 2e-5), 1.0);
    EXPECT_LE(toleranceRatio(dgamma.toDoubles(), ref.gradGamma, 1e-5, 2e-5), 1.0);
}

TEST(GroupNormBackward, BitwiseRepeatableForFixedThreadCount) {
    GnProblem p({{4, 32, 17, 19}, 8}, 77);
    for (int threads : {1, 2, 3}) {
        setNumThreads(threads);
        for (DType t : {DType::Float32, DType::BFloat16}) {
            GnRun a = runGroupNorm(p, t);
            GnRun b = runGroupNorm(p, t);
            ASSERT_EQ(a.status, ACLNN_SUCCESS);
            EXPECT_EQ(a.dx, b.dx) << threads << " threads";
            EXPECT_EQ(a.dgamma, b.dgamma) << threads << " threads";
            EXPECT_EQ(a.dbeta, b.dbeta) << threads << " threads";
        }
    }
    setNumThreads(0);
}

}  // namespace
}  // namespace opscope::test
