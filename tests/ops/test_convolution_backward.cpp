// aclnnConvolutionBackward through the public C API: the float64 reference against finite
// differences of the float64 forward pass, the operator against the reference over a shape
// table (1D/2D/3D, stride, symmetric and 4-value padding, dilation, groups 1 / >1 / depthwise,
// transposed with outputPadding, pointwise, odd sizes), every output mask, strided inputs and
// outputs, empty inputs, the plan's stages, and bitwise repeatability under threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "aclnnop/aclnn_convolution_backward.h"
#include "conv_grad_input_call.h"
#include "device_tensor.h"
#include "error_bounds.h"
#include "opscope/objects.h"
#include "opscope/parallel.h"
#include "opscope/product.h"
#include "opscope/reference/convolution.h"
#include "packed_gemm.h"

namespace opscope::test {
namespace {

struct ConvCase {
    std::string name;
    std::vector<int64_t> x, w;  // input and weight shapes
    std::vector<int64_t> stride, padding, dilation, outputPadding;
    int64_t groups = 1;
    bool transposed = false;
};

reference::ConvParams refParams(const ConvCase& c) {
    reference::ConvParams p;
    p.stride = c.stride;
    p.dilation = c.dilation;
    p.outputPadding = c.outputPadding;
    if (c.padding.size() == 4 && c.x.size() == 4) {
        p.padBegin = {c.padding[0], c.padding[2]};
        p.padEnd = {c.padding[1], c.padding[3]};
    } else {
        p.padBegin = p.padEnd = c.padding;
    }
    p.groups = c.groups;
    p.transposed = c.transposed;
    return p;
}

int64_t numel(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t v : s) n *= v;
    return n;
}

aclFormat originFormat(std::size_t rank) {
    return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

// Random values with magnitudes in [0.25, 1] and random signs: no cancellation-free zeros, no
// subnormals in fp16.
std::vector<double> signedValues(std::size_t n, uint32_t seed) {
    std::vector<double> m = randomUniform(n, 0.25, 1.0, seed), s = randomUniform(n, -1.0, 1.0, seed + 1000);
    for (std::size_t i = 0; i < n; ++i) m[i] = s[i] < 0 ? -m[i] : m[i];
    return m;
}

struct Problem {
    ConvCase c;
    std::vector<int64_t> dyShape;
    std::vector<double> x, w, dy;
    Problem(ConvCase cs, uint32_t seed) : c(std::move(cs)) {
        dyShape = reference::convOutputShape(c.x, c.w, refParams(c));
        x = signedValues(static_cast<std::size_t>(numel(c.x)), seed);
        w = signedValues(static_cast<std::size_t>(numel(c.w)), seed + 1);
        dy = signedValues(static_cast<std::size_t>(numel(dyShape)), seed + 2);
    }
};

struct Options {
    DType dtype = DType::Float32;
    int8_t cubeMathType = 0;
    std::vector<bool> mask = {true, true, true};
    bool stridedInputs = false, stridedOutputs = false;
    int runThreads = 0;  // > 0: switch to this thread count between the two phases
};

struct ConvRun {
    aclnnStatus status = ACLNN_SUCCESS;
    std::vector<double> dx, dw, db;
    reference::ConvBackwardResult ref, absRef;  // on the dtype-rounded inputs; absRef: sums of |terms|
    uint64_t workspace = 0;
    std::vector<std::string> steps;
};

// Strides of `shape` inside a storage whose last axis is twice as long (every other element).
std::vector<int64_t> gappedStrides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> s(shape.size());
    int64_t acc = 2 * shape.back();
    s.back() = 2;
    for (std::size_t i = shape.size() - 1; i-- > 0;) {
        s[i] = acc;
        acc *= shape[i];
    }
    return s;
}

ConvRun runConv(const Problem& p, const Options& o) {
    const DType t = o.dtype;
    const HostTensor hx = HostTensor::fromDoubles(t, p.c.x, p.x), hw = HostTensor::fromDoubles(t, p.c.w, p.w);
    const HostTensor hdy = HostTensor::fromDoubles(t, p.dyShape, p.dy);
    auto input = [&](const HostTensor& h) {
        return o.stridedInputs ? DeviceTensor::strided(h, gappedStrides(h.shape()), 1)
                               : DeviceTensor::fromHost(h, originFormat(h.shape().size()));
    };
    DeviceTensor x = input(hx), w = input(hw), dy = input(hdy);
    const int64_t cout = p.dyShape[1];
    DeviceTensor dx = o.stridedOutputs ? DeviceTensor::transposedZeros(t, p.c.x) : DeviceTensor::zeros(t, p.c.x);
    DeviceTensor dw = o.stridedOutputs ? DeviceTensor::transposedZeros(t, p.c.w) : DeviceTensor::zeros(t, p.c.w);
    DeviceTensor db =
        o.stridedOutputs ? DeviceTensor::strided(HostTensor(t, {cout}), {3}, 2) : DeviceTensor::zeros(t, {cout});
    IntArray stride(p.c.stride), padding(p.c.padding), dilation(p.c.dilation), outputPadding(p.c.outputPadding);
    IntArray biasSizes({cout});
    BoolArray mask(o.mask);
    ConvRun r;
    aclOpExecutor* exe = nullptr;
    r.status = aclnnConvolutionBackwardGetWorkspaceSize(
        dy, x, w, biasSizes, stride, padding, dilation, p.c.transposed, outputPadding, static_cast<int>(p.c.groups),
        mask, o.cubeMathType, o.mask[0] ? dx.get() : nullptr, o.mask[1] ? dw.get() : nullptr,
        o.mask[2] ? db.get() : nullptr, &r.workspace, &exe);
    if (r.status != ACLNN_SUCCESS) return r;
    for (const Step& s : exe->plan().steps()) r.steps.push_back(s.name);
    if (o.runThreads > 0) setNumThreads(o.runThreads);
    r.status = runWithWorkspace(aclnnConvolutionBackward, r.workspace, exe);
    if (r.status != ACLNN_SUCCESS) return r;
    r.dx = dx.toDoubles();
    r.dw = dw.toDoubles();
    r.db = db.toDoubles();
    const reference::ConvParams rp = refParams(p.c);
    r.ref = reference::convBackward(hdy.toDoubles(), p.dyShape, hx.toDoubles(), p.c.x, hw.toDoubles(), p.c.w, rp);
    r.absRef = reference::convBackward(absOf(hdy.toDoubles()), p.dyShape, absOf(hx.toDoubles()), p.c.x,
                                       absOf(hw.toDoubles()), p.c.w, rp);
    return r;
}

// float32 accumulation over a few hundred terms (worst-case bound ~ n * 2^-24, typical far less).
constexpr double kF32Tol = 2e-5;

void expectMatchesReference(const ConvRun& r, const std::vector<bool>& mask, double tol = kF32Tol, double uOut = 6e-8) {
    if (mask[0]) {
        EXPECT_LE(boundRatio(r.dx, r.ref.gradInput, r.absRef.gradInput, tol, uOut), 1.0) << "gradInput";
    }
    if (mask[1]) {
        EXPECT_LE(boundRatio(r.dw, r.ref.gradWeight, r.absRef.gradWeight, tol, uOut), 1.0) << "gradWeight";
    }
    if (mask[2]) {
        EXPECT_LE(boundRatio(r.db, r.ref.gradBias, r.absRef.gradBias, 1e-7, uOut), 1.0) << "gradBias";
    }
}

std::vector<int64_t> v(std::initializer_list<int64_t> l) { return l; }

// clang-format off
const ConvCase kCases[] = {
    {"1d_basic",            {2, 3, 9},        {4, 3, 3},        v({1}), v({1}), v({1}), v({0})},
    {"1d_stride2_pad2_dil2", {2, 4, 11},      {6, 4, 3},        v({2}), v({2}), v({2}), v({0})},
    {"1d_groups2",          {1, 4, 10},       {6, 2, 3},        v({1}), v({0}), v({1}), v({0}), 2},
    {"2d_odd",              {2, 3, 7, 5},     {4, 3, 3, 3},     v({1, 1}), v({1, 1}), v({1, 1}), v({0, 0})},
    {"2d_stride_2x3",       {2, 3, 9, 8},     {5, 3, 3, 2},     v({2, 3}), v({0, 1}), v({1, 1}), v({0, 0})},
    {"2d_pad4_asym",        {1, 2, 6, 7},     {3, 2, 3, 3},     v({1, 2}), v({1, 0, 2, 1}), v({1, 1}), v({0, 0})},
    {"2d_dilation",         {1, 3, 9, 9},     {2, 3, 3, 3},     v({1, 1}), v({2, 1}), v({2, 1}), v({0, 0})},
    {"2d_groups3",          {2, 6, 5, 6},     {9, 2, 3, 3},     v({1, 1}), v({1, 1}), v({1, 1}), v({0, 0}), 3},
    {"2d_depthwise_s2",     {2, 4, 6, 6},     {4, 1, 3, 3},     v({2, 2}), v({1, 1}), v({1, 1}), v({0, 0}), 4},
    {"2d_depthwise_mult2",  {1, 3, 5, 5},     {6, 1, 3, 3},     v({1, 1}), v({0, 0}), v({1, 1}), v({0, 0}), 3},
    {"2d_pointwise",        {2, 8, 5, 7},     {6, 8, 1, 1},     v({1, 1}), v({0, 0}), v({1, 1}), v({0, 0})},
    {"2d_1x1_stride2",      {2, 4, 7, 7},     {3, 4, 1, 1},     v({2, 2}), v({0, 0}), v({1, 1}), v({0, 0})},
    {"2d_multi_tile_n1",    {1, 32, 24, 24},  {4, 32, 3, 3},    v({1, 1}), v({1, 1}), v({1, 1}), v({0, 0})},
    {"2d_channel_blocks",   {1, 10, 6, 7},    {4, 10, 3, 3},    v({1, 1}), v({1, 1}), v({1, 1}), v({0, 0})},
    {"2d_kernel_eq_input",  {1, 1, 3, 3},     {1, 1, 3, 3},     v({1, 1}), v({0, 0}), v({1, 1}), v({0, 0})},
    {"2d_stride_gt_kernel", {2, 2, 10, 9},    {3, 2, 2, 2},     v({3, 4}), v({1, 0}), v({1, 1}), v({0, 0})},
    {"3d_basic",            {1, 2, 4, 5, 5},  {3, 2, 2, 3, 3},  v({1, 1, 1}), v({1, 1, 1}), v({1, 1, 1}), v({0, 0, 0})},
    {"3d_mixed_groups2",    {2, 4, 7, 6, 5},  {4, 2, 3, 2, 2},  v({2, 1, 2}), v({1, 0, 1}), v({1, 2, 1}), v({0, 0, 0}), 2},
    {"3d_groups2_cin6_cout4", {2, 6, 4, 5, 3}, {4, 3, 2, 3, 2}, v({1, 2, 1}), v({1, 1, 0}), v({1, 1, 1}), v({0, 0, 0}), 2},
    {"3d_depthwise",        {1, 3, 4, 4, 4},  {3, 1, 3, 3, 3},  v({1, 1, 1}), v({1, 1, 1}), v({1, 1, 1}), v({0, 0, 0}), 3},
    {"t1d_outpad",          {2, 4, 5},        {4, 3, 3},        v({2}), v({1}), v({1}), v({1}), 1, true},
    {"t2d_groups_dil_outpad", {2, 4, 4, 5},   {4, 3, 3, 3},     v({2, 3}), v({1, 0}), v({2, 1}), v({1, 2}), 2, true},
    {"t2d_pad4",            {1, 2, 3, 4},     {2, 2, 3, 3},     v({2, 2}), v({1, 0, 0, 1}), v({1, 1}), v({1, 1}), 1, true},
    {"t2d_pointwise",       {2, 6, 4, 4},     {6, 3, 1, 1},     v({1, 1}), v({0, 0}), v({1, 1}), v({0, 0}), 1, true},
    {"t2d_depthwise",       {1, 4, 5, 5},     {4, 1, 3, 3},     v({2, 2}), v({1, 1}), v({1, 1}), v({1, 1}), 4, true},
    {"t3d_groups_outpad",   {1, 4, 3, 3, 2},  {4, 2, 3, 3, 2},  v({1, 2, 2}), v({0, 1, 1}), v({1, 1, 1}), v({0, 1, 0}), 2, true},
    // The workload families of bench/conv_workloads.h at small sizes (more than one GEMM panel).
    {"wl_today_3x3",        {2, 16, 12, 12},  {16, 16, 3, 3},   v({1, 1}), v({1, 1}), v({1, 1}), v({0, 0})},
    {"wl_resnet_1x1",       {2, 32, 9, 9},    {8, 32, 1, 1},    v({1, 1}), v({0, 0}), v({1, 1}), v({0, 0})},
    {"wl_resnet_3x3_s2",    {2, 16, 11, 11},  {16, 16, 3, 3},   v({2, 2}), v({1, 1}), v({1, 1}), v({0, 0})},
    {"wl_stem_7x7_s2",      {2, 3, 23, 23},   {8, 3, 7, 7},     v({2, 2}), v({3, 3}), v({1, 1}), v({0, 0})},
    {"wl_depthwise_3x3",    {2, 16, 9, 9},    {16, 1, 3, 3},    v({1, 1}), v({1, 1}), v({1, 1}), v({0, 0}), 16},
    {"wl_depthwise_s2_dil2", {1, 5, 10, 9},   {5, 1, 3, 3},     v({2, 2}), v({2, 2}), v({2, 2}), v({0, 0}), 5},
    {"wl_conv1d_k3",        {2, 16, 40},      {16, 16, 3},      v({1}), v({1}), v({1}), v({0})},
    {"wl_conv3d_k3",        {1, 4, 5, 6, 6},  {4, 4, 3, 3, 3},  v({1, 1, 1}), v({1, 1, 1}), v({1, 1, 1}), v({0, 0, 0})},
    {"wl_transposed_4x4_s2", {2, 8, 5, 5},    {8, 4, 4, 4},     v({2, 2}), v({1, 1}), v({1, 1}), v({0, 0}), 1, true},
};
// clang-format on

void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

class ConvolutionBackwardShapes : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvolutionBackwardShapes, MatchesFloat64Reference) {
    Problem p(GetParam(), 17);
    ConvRun r = runConv(p, Options{});
    ASSERT_ACLNN_OK(r.status);
    expectMatchesReference(r, {true, true, true});
}

// bf16 inputs: bf16 operands, float32 sums (the dot-product kernel where the CPU has one), one
// rounding to bf16. Grouped 3D bf16 convolutions need not be depthwise (README, Decisions).
TEST_P(ConvolutionBackwardShapes, Bf16MatchesFloat64Reference) {
    Problem p(GetParam(), 19);
    Options o;
    o.dtype = DType::BFloat16;
    ConvRun r = runConv(p, o);
    ASSERT_ACLNN_OK(r.status);
    expectMatchesReference(r, {true, true, true}, kF32Tol, std::ldexp(1.0, -8));
}

INSTANTIATE_TEST_SUITE_P(Table, ConvolutionBackwardShapes, ::testing::ValuesIn(kCases),
                         [](const auto& p) { return p.param.name; });

// The reference against central differences of the float64 forward pass,
// L(x, w, b) = sum(dy * conv(x, w) + b): L is linear in each argument, so the difference
// quotient is exact up to rounding.
TEST(ConvolutionBackwardFiniteDifference, ReferenceAndOperatorMatchForwardDerivative) {
    const ConvCase cases[] = {
        {"1d", {2, 2, 7}, {3, 2, 3}, v({2}), v({1}), v({2}), v({0})},
        {"2d_groups_pad4", {1, 4, 5, 4}, {4, 2, 3, 2}, v({2, 1}), v({1, 0, 0, 1}), v({1, 2}), v({0, 0}), 2},
        {"3d", {1, 2, 3, 4, 3}, {2, 2, 2, 2, 2}, v({1, 2, 1}), v({1, 0, 1}), v({1, 1, 2}), v({0, 0, 0})},
        {"t2d", {1, 4, 3, 3}, {4, 1, 3, 2}, v({2, 2}), v({1, 0}), v({1, 2}), v({1, 1}), 2, true},
        {"t3d", {1, 2, 2, 3, 2}, {2, 2, 2, 2, 3}, v({2, 1, 2}), v({0, 1, 1}), v({1, 1, 1}), v({1, 0, 1}), 1, true},
    };
    for (const ConvCase& c : cases) {
        SCOPED_TRACE(c.name);
        Problem p(c, 5);
        const reference::ConvParams rp = refParams(c);
        std::vector<double> bias = randomUniform(static_cast<std::size_t>(p.dyShape[1]), -1, 1, 9);
        auto loss = [&](const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& b) {
            const std::vector<double> y = reference::convForward(x, c.x, w, c.w, b, rp);
            double l = 0;
            for (std::size_t i = 0; i < y.size(); ++i) l += y[i] * p.dy[i];
            return l;
        };
        auto fd = [&](int which, std::size_t i) {
            const double h = 0.5;
            std::vector<double> xp = p.x, xm = p.x, wp = p.w, wm = p.w, bp = bias, bm = bias;
            std::vector<double>& a = which == 0 ? xp : which == 1 ? wp : bp;
            std::vector<double>& m = which == 0 ? xm : which == 1 ? wm : bm;
            a[i] += h;
            m[i] -= h;
            return (loss(xp, wp, bp) - loss(xm, wm, bm)) / (2 * h);
        };
        const auto ref = reference::convBackward(p.dy, p.dyShape, p.x, c.x, p.w, c.w, rp);
        for (std::size_t i = 0; i < p.x.size(); ++i) EXPECT_NEAR(ref.gradInput[i], fd(0, i), 1e-12) << "x[" << i << "]";
        for (std::size_t i = 0; i < p.w.size(); ++i)
            EXPECT_NEAR(ref.gradWeight[i], fd(1, i), 1e-12) << "w[" << i << "]";
        for (std::size_t i = 0; i < bias.size(); ++i) EXPECT_NEAR(ref.gradBias[i], fd(2, i), 1e-12) << "b[" << i << "]";
        // The float32 operator against the same derivatives.
        ConvRun r = runConv(p, Options{});
        ASSERT_ACLNN_OK(r.status);
        for (std::size_t i = 0; i < p.x.size(); ++i) EXPECT_NEAR(r.dx[i], fd(0, i), 1e-5) << "x[" << i << "]";
        for (std::size_t i = 0; i < p.w.size(); ++i) EXPECT_NEAR(r.dw[i], fd(1, i), 1e-5) << "w[" << i << "]";
        for (std::size_t i = 0; i < bias.size(); ++i) EXPECT_NEAR(r.db[i], fd(2, i), 1e-5) << "b[" << i << "]";
    }
}

TEST(ConvolutionBackward, EveryOutputMaskLeavesMaskedOutputsNull) {
    for (const ConvCase& c : {kCases[7], kCases[20]}) {
        Problem p(c, 31);
        for (int bits = 0; bits < 8; ++bits) {
            Options o;
            o.mask = {bool(bits & 1), bool(bits & 2), bool(bits & 4)};
            SCOPED_TRACE(c.name + " mask " + std::to_string(bits));
            ConvRun r = runConv(p, o);
            ASSERT_ACLNN_OK(r.status);
            expectMatchesReference(r, o.mask);
            const bool any = bits != 0;
            EXPECT_EQ(!r.steps.empty(), any) << "an all-false mask plans nothing";
        }
    }
}

TEST(ConvolutionBackward, StridedInputsAndOutputsGiveTheDenseBits) {
    for (const ConvCase& c : {kCases[5], kCases[17], kCases[21]}) {
        SCOPED_TRACE(c.name);
        Problem p(c, 41);
        for (DType t : {DType::Float32, DType::Float16}) {
            Options dense;
            dense.dtype = t;
            Options strided = dense;
            strided.stridedInputs = strided.stridedOutputs = true;
            ConvRun a = runConv(p, dense), b = runConv(p, strided);
            ASSERT_ACLNN_OK(b.status);
            EXPECT_EQ(a.dx, b.dx);
            EXPECT_EQ(a.dw, b.dw);
            EXPECT_EQ(a.db, b.db);
            EXPECT_NE(std::find(b.steps.begin(), b.steps.end(), "Contiguous"), b.steps.end());
            EXPECT_NE(std::find(b.steps.begin(), b.steps.end(), "ViewCopy"), b.steps.end());
        }
    }
}

TEST(ConvolutionBackward, StridedOutputGapsAreUntouched) {
    Problem p(kCases[3], 43);
    DeviceTensor x = DeviceTensor::fromDoubles(DType::Float32, p.c.x, p.x);
    DeviceTensor w = DeviceTensor::fromDoubles(DType::Float32, p.c.w, p.w);
    DeviceTensor dy = DeviceTensor::fromDoubles(DType::Float32, p.dyShape, p.dy);
    DeviceTensor dx = DeviceTensor::strided(HostTensor(DType::Float32, p.c.x), gappedStrides(p.c.x), 1, -5.0);
    ConvGradInputCall call;
    ASSERT_ACLNN_OK(call.plan(dy, x, w, 1, dx));
    ASSERT_ACLNN_OK(runWithWorkspace(aclnnConvolutionBackward, call.ws, call.exe));
    const auto ref = reference::convBackward(p.dy, p.dyShape, p.x, p.c.x, p.w, p.c.w, refParams(p.c));
    EXPECT_LE(toleranceRatio(dx.toDoubles(), ref.gradInput, 1e-5, 1e-5), 1.0);
    const auto storage = dx.storageDoubles();
    const auto untouched = std::count(storage.begin(), storage.end(), -5.0);
    EXPECT_EQ(untouched, static_cast<std::ptrdiff_t>(storage.size()) - numel(p.c.x));
}

// Input empty in N or C: gradInput is empty, gradWeight of an empty batch is zero, gradBias
// sums gradOutput (zero for N = 0, the sum of a non-empty gradOutput for C = 0).
TEST(ConvolutionBackward, EmptyInputs) {
    struct EmptyCase {
        const char* name;
        std::vector<int64_t> x, w, dy;
        bool transposed;
    };
    const EmptyCase cases[] = {
        {"n0", {0, 3, 5, 5}, {4, 3, 3, 3}, {0, 4, 5, 5}, false},
        {"c0", {2, 0, 5, 5}, {4, 0, 3, 3}, {2, 4, 5, 5}, false},
        {"c0_1d", {2, 0, 6}, {3, 0, 3}, {2, 3, 6}, false},
        {"transposed_n0", {0, 4, 3, 3}, {4, 2, 3, 3}, {0, 2, 3, 3}, true},
    };
    for (const EmptyCase& c : cases) {
        SCOPED_TRACE(c.name);
        const std::size_t spatial = c.x.size() - 2;
        const HostTensor hdy = HostTensor::fromDoubles(DType::Float16, c.dy,
                                                       randomUniform(static_cast<std::size_t>(numel(c.dy)), -1, 1, 3));
        DeviceTensor x = DeviceTensor::zeros(DType::Float16, c.x), w = DeviceTensor::zeros(DType::Float16, c.w);
        DeviceTensor dy = DeviceTensor::fromHost(hdy);
        DeviceTensor dx = DeviceTensor::zeros(DType::Float16, c.x);
        const int64_t cout = c.dy[1];
        DeviceTensor dw = DeviceTensor::fromDoubles(DType::Float16, c.w,
                                                    std::vector<double>(static_cast<std::size_t>(numel(c.w)), 9.0));
        DeviceTensor db = DeviceTensor::fromHost(
            HostTensor::fromDoubles(DType::Float16, {cout}, std::vector<double>(static_cast<std::size_t>(cout), 9.0)));
        IntArray one(std::vector<int64_t>(spatial, 1)), zero(std::vector<int64_t>(spatial, 0)), bias({cout});
        BoolArray mask({true, true, true});
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        ASSERT_ACLNN_OK(aclnnConvolutionBackwardGetWorkspaceSize(dy, x, w, bias, one, one, one, c.transposed, zero, 1,
                                                                 mask, 0, dx, dw, db, &ws, &exe));
        ASSERT_ACLNN_OK(runWithWorkspace(aclnnConvolutionBackward, ws, exe));
        EXPECT_EQ(dw.toDoubles(), std::vector<double>(static_cast<std::size_t>(numel(c.w)), 0.0));
        std::vector<double> expectBias(static_cast<std::size_t>(cout), 0.0);
        const auto d = hdy.toDoubles();
        const int64_t per = numel(c.dy) / std::max<int64_t>(1, c.dy[0] * cout);
        for (int64_t i = 0; i < numel(c.dy); ++i)
            expectBias[static_cast<std::size_t>((i / per) % cout)] += d[static_cast<std::size_t>(i)];
        EXPECT_LE(toleranceRatio(db.toDoubles(), expectBias, 1e-3, 1e-3), 1.0);
    }
}

bool contains(const std::vector<std::string>& steps, const std::string& s) {
    return std::find(steps.begin(), steps.end(), s) != steps.end();
}

TEST(ConvolutionBackward, PlanMirrorsTheDeviceStages) {
    Problem p2(kCases[3], 3), p3(kCases[16], 3), t2(kCases[20], 3);
    Options o;
    ConvRun r = runConv(p2, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS);
    EXPECT_EQ(r.steps, (std::vector<std::string>{"Conv2DBackpropInput", "Conv2DBackpropFilter", "ReduceSum"}));
    EXPECT_GT(r.workspace, 0u) << "the im2col buffers live in the workspace";
    r = runConv(p3, o);
    EXPECT_EQ(r.steps, (std::vector<std::string>{"Conv3DBackpropInput", "Conv3DBackpropFilter", "ReduceSum"}));
    r = runConv(t2, o);
    EXPECT_EQ(r.steps, (std::vector<std::string>{"Conv2D", "Conv2DBackpropFilter", "ReduceSum"}));
    o.cubeMathType = 1;  // HF32 on A2: each cube operand rounded once, gradBias from the raw gradOutput
    r = runConv(p2, o);
    EXPECT_EQ(r.steps, (std::vector<std::string>{"Cast(HF32)", "Cast(HF32)", "Cast(HF32)", "Conv2DBackpropInput",
                                                 "Conv2DBackpropFilter", "ReduceSum"}));
    o.cubeMathType = 2;
    o.dtype = DType::BFloat16;  // bf16 -> fp16 operands; results rounded once to bf16
    r = runConv(p2, o);
    EXPECT_EQ(r.steps,
              (std::vector<std::string>{"Cast(FP16)", "Cast(FP16)", "Cast(FP16)", "Cast", "Conv2DBackpropInput", "Cast",
                                        "Conv2DBackpropFilter", "Cast", "ReduceSum", "Cast"}));
}

// bf16 inputs on the AVX512-BF16 kernel (depthwise shapes: on any build): the stages and
// ReduceSum read the bf16 inputs themselves (no widening Cast); each float32 result is still
// rounded once by its Cast.
TEST(ConvolutionBackward, Bf16PlanReadsTheBf16InputsWithoutWidening) {
    Problem p2(kCases[3], 3), dw(kCases[19], 3);
    Options o;
    o.dtype = DType::BFloat16;
    ConvRun r = runConv(p2, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    if (kernels::bf16StorageAvailable()) {
        EXPECT_EQ(r.steps, (std::vector<std::string>{"Conv2DBackpropInput", "Cast", "Conv2DBackpropFilter", "Cast",
                                                     "ReduceSum", "Cast"}));
    } else {
        EXPECT_EQ(std::count(r.steps.begin(), r.steps.end(), "Cast"), 6) << "three widened inputs, three results";
    }
    // The depthwise kernels widen bf16 planes as they read them, on any build: no input Cast.
    r = runConv(dw, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(r.steps, (std::vector<std::string>{"Conv3DBackpropInput", "Cast", "Conv3DBackpropFilter", "Cast",
                                                 "ReduceSum", "Cast"}));
    o.cubeMathType = 2;  // bf16 -> fp16 operands: rounded by Cast(FP16) first, as for every shape
    r = runConv(dw, o);
    ASSERT_EQ(r.status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(std::count(r.steps.begin(), r.steps.end(), "Cast(FP16)"), 3);
}

TEST(ConvolutionBackward, BitwiseRepeatableForFixedThreadCount) {
    Problem p({"big", {3, 16, 23, 19}, {24, 8, 3, 3}, v({1, 1}), v({1, 1}), v({1, 1}), v({0, 0}), 2}, 77);
    std::vector<double> dx1;
    for (int threads : {1, 2, 3}) {
        setNumThreads(threads);
        ConvRun a = runConv(p, Options{}), b = runConv(p, Options{});
        ASSERT_EQ(a.status, ACLNN_SUCCESS);
        EXPECT_EQ(a.dx, b.dx) << threads << " threads";
        EXPECT_EQ(a.dw, b.dw) << threads << " threads";
        EXPECT_EQ(a.db, b.db) << threads << " threads";
        // gradInput and gradBias split their work by shape only: the same bits for any thread count.
        if (dx1.empty()) dx1 = a.dx;
        EXPECT_EQ(a.dx, dx1) << threads << " threads";
    }
    setNumThreads(0);
}

// Each workload family, fp32 and bf16, at 2 threads: the same call twice gives the same bits.
TEST(ConvolutionBackward, WorkloadFamiliesBitwiseRepeatable) {
    setNumThreads(2);
    for (const ConvCase& c : kCases) {
        if (c.name.rfind("wl_", 0) != 0) continue;
        for (DType dtype : {DType::Float32, DType::BFloat16}) {
            SCOPED_TRACE(c.name + " " + dtypeName(dtype));
            Problem p(c, 31);
            Options o;
            o.dtype = dtype;
            ConvRun a = runConv(p, o), b = runConv(p, o);
            ASSERT_ACLNN_OK(a.status);
            ASSERT_ACLNN_OK(b.status);
            EXPECT_EQ(a.dx, b.dx);
            EXPECT_EQ(a.dw, b.dw);
            EXPECT_EQ(a.db, b.db);
        }
    }
    setNumThreads(0);
}

// The work split is fixed in phase 1: running with another thread count gives the bits of
// the phase-1 thread count, and more threads than planned never share an im2col buffer.
TEST(ConvolutionBackward, ThreadCountMayChangeBetweenThePhases) {
    for (const ConvCase& c : {kCases[3], kCases[12], kCases[20]}) {
        SCOPED_TRACE(c.name);
        Problem p(c, 12);
        for (int planned : {1, 3}) {
            setNumThreads(planned);
            ConvRun same = runConv(p, Options{});
            Options o;
            o.runThreads = planned == 1 ? 3 : 1;
            setNumThreads(planned);
            ConvRun changed = runConv(p, o);
            ASSERT_ACLNN_OK(changed.status);
            EXPECT_EQ(same.dx, changed.dx) << "planned with " << planned;
            EXPECT_EQ(same.dw, changed.dw) << "planned with " << planned;
            EXPECT_EQ(same.db, changed.db) << "planned with " << planned;
        }
    }
    setNumThreads(0);
}

// A grouped, non-depthwise case: it needs a workspace (im2col), which the last check shrinks.
TEST(ConvolutionBackward, RepeatableExecutorRunsTwiceWithTheSameBits) {
    Problem p(kCases[7], 8);
    DeviceTensor x = DeviceTensor::fromDoubles(DType::Float32, p.c.x, p.x);
    DeviceTensor w = DeviceTensor::fromDoubles(DType::Float32, p.c.w, p.w);
    DeviceTensor dy = DeviceTensor::fromDoubles(DType::Float32, p.dyShape, p.dy);
    DeviceTensor dx = DeviceTensor::zeros(DType::Float32, p.c.x), dw = DeviceTensor::zeros(DType::Float32, p.c.w);
    IntArray stride(p.c.stride), padding(p.c.padding), dilation(p.c.dilation), op(p.c.outputPadding);
    BoolArray mask({true, true, false});
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;
    ASSERT_ACLNN_OK(aclnnConvolutionBackwardGetWorkspaceSize(dy, x, w, nullptr, stride, padding, dilation, false, op, 3,
                                                             mask, 0, dx, dw, nullptr, &ws, &exe));
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(exe), ACLNN_SUCCESS);
    void* buf = nullptr;
    ASSERT_EQ(aclrtMalloc(&buf, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_ACLNN_OK(aclnnConvolutionBackward(buf, ws, exe, nullptr));
    const auto dx1 = dx.toDoubles(), dw1 = dw.toDoubles();
    ASSERT_ACLNN_OK(aclnnConvolutionBackward(buf, ws, exe, nullptr));
    EXPECT_EQ(dx.toDoubles(), dx1);
    EXPECT_EQ(dw.toDoubles(), dw1);
    EXPECT_EQ(aclnnConvolutionBackward(buf, ws - 1, exe, nullptr), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_EQ(aclDestroyAclOpExecutor(exe), ACLNN_SUCCESS);
    aclrtFree(buf);
}

}  // namespace
}  // namespace opscope::test
