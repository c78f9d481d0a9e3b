// cubeMathType x dtype x product for aclnnConvolutionBackward: the documented status, the Cast
// steps of the plan, and errors that match the emulated precision. For each allowed mode the
// result must (a) equal a float64 computation on operands rounded the way the mode says (HF32:
// 11 explicit mantissa bits, round to nearest even; fp16) up to float32 accumulation, and
// (b) stay within what that rounding can cost against the exact float64 result; and HF32 and
// fp16 must be visibly worse than KEEP_DTYPE float32. gradBias never goes through the cube.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "aclnnop/aclnn_convolution_backward.h"
#include "cube_precision.h"
#include "device_tensor.h"
#include "error_bounds.h"
#include "opscope/metrics.h"
#include "opscope/objects.h"
#include "opscope/ops/operator.h"
#include "opscope/product.h"
#include "opscope/reference/convolution.h"

namespace opscope::test {
namespace {

enum class Kind { Error, FP32, HF32, FP16, BF16 };

const char* kindName(Kind k) {
    switch (k) {
        case Kind::Error: return "error";
        case Kind::FP32: return "fp32";
        case Kind::HF32: return "hf32";
        case Kind::FP16: return "fp16";
        case Kind::BF16: return "bf16";
    }
    return "?";
}

struct Row {
    Product product;
    DType dtype;
    int8_t mode;
    Kind kind;
};

constexpr Product kTr = Product::AtlasTraining, kA2 = Product::AtlasA2, kA3 = Product::AtlasA3,
                  kInf = Product::AtlasInference;
constexpr DType kF32 = DType::Float32, kF16 = DType::Float16, kBF16 = DType::BFloat16;

// The documentation's table (the inference series follows the training series).
// clang-format off
const Row kTable[] = {
    {kA2, kF32, 0, Kind::FP32}, {kA2, kF32, 1, Kind::HF32}, {kA2, kF32, 2, Kind::FP16}, {kA2, kF32, 3, Kind::HF32},
    {kA2, kF16, 0, Kind::FP16}, {kA2, kF16, 1, Kind::FP16}, {kA2, kF16, 2, Kind::FP16}, {kA2, kF16, 3, Kind::FP16},
    {kA2, kBF16, 0, Kind::BF16}, {kA2, kBF16, 1, Kind::BF16}, {kA2, kBF16, 2, Kind::FP16}, {kA2, kBF16, 3, Kind::BF16},
    {kA3, kF32, 0, Kind::FP32}, {kA3, kF32, 1, Kind::HF32}, {kA3, kF32, 2, Kind::FP16}, {kA3, kF32, 3, Kind::HF32},
    {kA3, kF16, 0, Kind::FP16}, {kA3, kF16, 1, Kind::FP16}, {kA3, kF16, 2, Kind::FP16}, {kA3, kF16, 3, Kind::FP16},
    {kA3, kBF16, 0, Kind::BF16}, {kA3, kBF16, 1, Kind::BF16}, {kA3, kBF16, 2, Kind::FP16}, {kA3, kBF16, 3, Kind::BF16},
    {kTr, kF32, 0, Kind::Error}, {kTr, kF32, 1, Kind::FP16}, {kTr, kF32, 2, Kind::FP16}, {kTr, kF32, 3, Kind::Error},
    {kTr, kF16, 0, Kind::FP16}, {kTr, kF16, 1, Kind::FP16}, {kTr, kF16, 2, Kind::FP16}, {kTr, kF16, 3, Kind::FP16},
    {kTr, kBF16, 0, Kind::Error}, {kTr, kBF16, 1, Kind::Error}, {kTr, kBF16, 2, Kind::Error}, {kTr, kBF16, 3, Kind::Error},
    {kInf, kF32, 0, Kind::Error}, {kInf, kF32, 1, Kind::FP16}, {kInf, kF32, 2, Kind::FP16}, {kInf, kF32, 3, Kind::Error},
    {kInf, kF16, 0, Kind::FP16}, {kInf, kF16, 1, Kind::FP16}, {kInf, kF16, 2, Kind::FP16}, {kInf, kF16, 3, Kind::FP16},
    {kInf, kBF16, 0, Kind::Error}, {kInf, kBF16, 1, Kind::Error}, {kInf, kBF16, 2, Kind::Error}, {kInf, kBF16, 3, Kind::Error},
};
// clang-format on

// HF32 written independently of the kernel: 12 significant bits, ties to even (the default
// rounding mode of nearbyint). Test values are normal floats.
double roundHF32(double v) {
    if (v == 0 || !std::isfinite(v)) return v;
    int e = 0;
    const double m = std::frexp(v, &e);
    return std::ldexp(std::nearbyint(std::ldexp(m, 12)), e - 12);
}

std::vector<double> roundTo(Kind k, DType stored, const std::vector<double>& v, const std::vector<int64_t>& shape) {
    if (k == Kind::HF32) {
        std::vector<double> r = v;
        for (double& e : r) e = roundHF32(e);
        return r;
    }
    if (k == Kind::FP16 && stored != kF16) return HostTensor::fromDoubles(kF16, shape, v).toDoubles();
    return v;
}

// Unit roundoff of an operand precision (0: the stored values reach the cube unchanged) and
// of an output dtype.
double operandUnit(Kind k, DType stored) {
    if (k == Kind::HF32) return std::ldexp(1.0, -12);
    if (k == Kind::FP16 && stored == kF32) return std::ldexp(1.0, -11);
    return 0;  // fp16 stays fp16; bf16 values are exact in fp16 (no subnormals in these tests)
}
double outputUnit(DType t) {
    return t == kF32 ? std::ldexp(1.0, -24) : t == kF16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}

std::vector<double> signedValues(std::size_t n, uint32_t seed) {
    std::vector<double> m = randomUniform(n, 0.25, 1.0, seed), s = randomUniform(n, -1.0, 1.0, seed + 1000);
    for (std::size_t i = 0; i < n; ++i) m[i] = s[i] < 0 ? -m[i] : m[i];
    return m;
}

// 2D, stride 1, padding 1, groups 2: dx sums 4*9 = 36 products, dw 2*10*10 = 200.
const std::vector<int64_t> kX = {2, 8, 10, 10}, kW = {8, 4, 3, 3}, kDy = {2, 8, 10, 10};
const reference::ConvParams kParams = reference::convParams(2, 1, 1, 1, 2);

struct Outcome {
    aclnnStatus status = ACLNN_SUCCESS;
    std::string message;
    std::vector<std::string> steps;
    std::vector<double> dx, dw, db;
    std::vector<double> x, w, dy;  // the dtype-rounded inputs
};

Outcome runMode(DType t, int8_t mode) {
    Outcome o;
    const HostTensor hx = HostTensor::fromDoubles(t, kX, signedValues(200 * 8, 1));
    const HostTensor hw = HostTensor::fromDoubles(t, kW, signedValues(8 * 4 * 9, 2));
    const HostTensor hdy = HostTensor::fromDoubles(t, kDy, signedValues(200 * 8, 3));
    o.x = hx.toDoubles();
    o.w = hw.toDoubles();
    o.dy = hdy.toDoubles();
    DeviceTensor x = DeviceTensor::fromHost(hx, ACL_FORMAT_NCHW), w = DeviceTensor::fromHost(hw, ACL_FORMAT_NCHW);
    DeviceTensor dy = DeviceTensor::fromHost(hdy, ACL_FORMAT_NCHW);
    DeviceTensor dx = DeviceTensor::zeros(t, kX), dw = DeviceTensor::zeros(t, kW), db = DeviceTensor::zeros(t, {8});
    IntArray one({1, 1}), zero({0, 0}), bias({8});
    BoolArray mask({true, true, true});
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;
    o.status = aclnnConvolutionBackwardGetWorkspaceSize(dy, x, w, bias, one, one, one, false, zero, 2, mask, mode, dx,
                                                        dw, db, &ws, &exe);
    o.message = aclGetRecentErrMsg();
    if (o.status != ACLNN_SUCCESS) return o;
    for (const Step& s : exe->plan().steps()) o.steps.push_back(s.name);
    o.status = runWithWorkspace(aclnnConvolutionBackward, ws, exe);
    o.dx = dx.toDoubles();
    o.dw = dw.toDoubles();
    o.db = db.toDoubles();
    return o;
}

// mean |a - e| / absSum: the error in units of the size of the terms summed.
double meanRelative(const std::vector<double>& a, const std::vector<double>& e, const std::vector<double>& absSum) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += std::fabs(a[i] - e[i]) / absSum[i];
    return s / static_cast<double>(a.size());
}

constexpr double kF32Sum = 2e-5;  // float32 accumulation of up to a few hundred products

void PrintTo(const Row& r, std::ostream* os) {
    *os << productId(r.product) << " " << dtypeName(r.dtype) << " mode " << int{r.mode} << " -> " << kindName(r.kind);
}

class ConvolutionBackwardCubeMathType : public ::testing::TestWithParam<Row> {
protected:
    void TearDown() override { setProduct(Product::AtlasA2); }
};

TEST_P(ConvolutionBackwardCubeMathType, StatusPlanAndPrecision) {
    const Row row = GetParam();
    setProduct(row.product);
    Outcome o = runMode(row.dtype, row.mode);
    if (row.kind == Kind::Error) {
        EXPECT_EQ(o.status, ACLNN_ERR_PARAM_INVALID);
        const bool named = o.message.find("cubeMathType " + std::to_string(row.mode)) != std::string::npos ||
                           o.message.find("bfloat16 is not supported") != std::string::npos;
        EXPECT_TRUE(named) << o.message;
        return;
    }
    ASSERT_EQ(o.status, ACLNN_SUCCESS) << o.message;

    // The plan shows the operand rounding as Cast steps (one per cube operand).
    const auto casts = [&](const char* name) { return std::count(o.steps.begin(), o.steps.end(), name); };
    EXPECT_EQ(casts("Cast(HF32)"), row.kind == Kind::HF32 ? 3 : 0);
    EXPECT_EQ(casts("Cast(FP16)"), row.kind == Kind::FP16 && row.dtype != kF16 ? 3 : 0);

    // (a) Exactly the emulated arithmetic: float64 on the rounded operands, up to float32 sums.
    const auto dyR = roundTo(row.kind, row.dtype, o.dy, kDy), xR = roundTo(row.kind, row.dtype, o.x, kX),
               wR = roundTo(row.kind, row.dtype, o.w, kW);
    const auto emul = reference::convBackward(dyR, kDy, xR, kX, wR, kW, kParams);
    const auto absSum = reference::convBackward(absOf(o.dy), kDy, absOf(o.x), kX, absOf(o.w), kW, kParams);
    const double uOut = outputUnit(row.dtype);
    EXPECT_LE(boundRatio(o.dx, emul.gradInput, absSum.gradInput, kF32Sum, uOut), 1.0) << "gradInput, emulated";
    EXPECT_LE(boundRatio(o.dw, emul.gradWeight, absSum.gradWeight, kF32Sum, uOut), 1.0) << "gradWeight, emulated";

    // (b) Within what the operand rounding can cost against the exact result: each product
    // a*b becomes a(1+e1)*b(1+e2) with |e| <= u.
    const auto exact = reference::convBackward(o.dy, kDy, o.x, kX, o.w, kW, kParams);
    const double u = operandUnit(row.kind, row.dtype);
    EXPECT_LE(boundRatio(o.dx, exact.gradInput, absSum.gradInput, 2 * u + u * u + kF32Sum, uOut), 1.0);
    EXPECT_LE(boundRatio(o.dw, exact.gradWeight, absSum.gradWeight, 2 * u + u * u + kF32Sum, uOut), 1.0);
    // gradBias is a vector-unit reduction of the raw gradOutput: only the output rounding.
    EXPECT_LE(boundRatio(o.db, exact.gradBias, absSum.gradBias, 1e-9, uOut), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Table, ConvolutionBackwardCubeMathType, ::testing::ValuesIn(kTable), [](const auto& p) {
    return std::string(productId(p.param.product)) + "_" + dtypeName(p.param.dtype) + "_mode" +
           std::to_string(p.param.mode) + "_" + kindName(p.param.kind);
});

// What each mode costs on float32 inputs (A2): HF32 and fp16 operands are visibly worse than
// KEEP_DTYPE, fp16 worse than HF32, and modes that mean the same precision give the same bits.
TEST(ConvolutionBackwardPrecisionCost, Hf32AndFp16AreVisiblyWorseThanFloat32) {
    setProduct(Product::AtlasA2);
    Outcome keep = runMode(kF32, 0), allow = runMode(kF32, 1), fp16 = runMode(kF32, 2), hf32 = runMode(kF32, 3);
    ASSERT_EQ(keep.status, ACLNN_SUCCESS);
    const auto exact = reference::convBackward(keep.dy, kDy, keep.x, kX, keep.w, kW, kParams);
    const auto absSum = reference::convBackward(absOf(keep.dy), kDy, absOf(keep.x), kX, absOf(keep.w), kW, kParams);
    const double eKeep = meanRelative(keep.dx, exact.gradInput, absSum.gradInput);
    const double eHf32 = meanRelative(hf32.dx, exact.gradInput, absSum.gradInput);
    const double eFp16 = meanRelative(fp16.dx, exact.gradInput, absSum.gradInput);
    const double wKeep = meanRelative(keep.dw, exact.gradWeight, absSum.gradWeight);
    const double wHf32 = meanRelative(hf32.dw, exact.gradWeight, absSum.gradWeight);
    const double wFp16 = meanRelative(fp16.dw, exact.gradWeight, absSum.gradWeight);
    RecordProperty("gradInput_mean_rel_keep", std::to_string(eKeep));
    RecordProperty("gradInput_mean_rel_hf32", std::to_string(eHf32));
    RecordProperty("gradInput_mean_rel_fp16", std::to_string(eFp16));
    std::printf(
        "mean |err|/sum|terms|  gradInput: fp32 %.3g  hf32 %.3g  fp16 %.3g   gradWeight: fp32 %.3g  hf32 %.3g  fp16 "
        "%.3g\n",
        eKeep, eHf32, eFp16, wKeep, wHf32, wFp16);
    EXPECT_GT(eHf32, 50 * eKeep);
    EXPECT_GT(eFp16, 50 * eKeep);
    EXPECT_GT(wHf32, 50 * wKeep);
    EXPECT_GT(wFp16, 50 * wKeep);
    EXPECT_GT(eFp16, 1.3 * eHf32);
    EXPECT_GT(wFp16, 1.3 * wHf32);
    // And of the size the rounding implies: below the bound, but not vanishingly small.
    const double uHf = std::ldexp(1.0, -12), uHalf = std::ldexp(1.0, -11);
    EXPECT_LT(eHf32, 2 * uHf);
    EXPECT_LT(eFp16, 2 * uHalf);
    EXPECT_GT(eHf32, uHf / 100);
    EXPECT_GT(eFp16, uHalf / 100);
    EXPECT_EQ(allow.dx, hf32.dx) << "ALLOW_FP32_DOWN_PRECISION is HF32 on A2";
    EXPECT_EQ(allow.dw, hf32.dw);
    EXPECT_EQ(keep.db, hf32.db) << "gradBias does not depend on cubeMathType";
    EXPECT_EQ(keep.db, fp16.db);

    setProduct(Product::AtlasTraining);
    Outcome trAllow = runMode(kF32, 1), trFp16 = runMode(kF32, 2);
    EXPECT_EQ(trAllow.dx, fp16.dx) << "ALLOW_FP32_DOWN_PRECISION is fp16 on the training series";
    EXPECT_EQ(trFp16.dw, fp16.dw);
    setProduct(Product::AtlasA2);
    Outcome b0 = runMode(kBF16, 0), b1 = runMode(kBF16, 1), b3 = runMode(kBF16, 3);
    EXPECT_EQ(b0.dx, b1.dx) << "bfloat16 stays bfloat16 under ALLOW_FP32_DOWN_PRECISION";
    EXPECT_EQ(b0.dw, b3.dw) << "bfloat16 stays bfloat16 under USE_HF32";
}

// Cast(HF32) and Cast(FP16) round to nearest, ties to even, at 11 and 10 explicit mantissa bits:
// a 1x1x1 convolution makes gradInput = dy * w and gradWeight = dy * x exactly visible.
TEST(ConvolutionBackwardPrecisionCost, OperandRoundingIsNearestEven) {
    setProduct(Product::AtlasA2);
    auto run = [](float dyValue, int8_t mode) {
        DeviceTensor x = DeviceTensor::fromDoubles(kF32, {1, 1, 1}, {1.0});
        DeviceTensor w = DeviceTensor::fromDoubles(kF32, {1, 1, 1}, {1.0});
        DeviceTensor dy = DeviceTensor::fromDoubles(kF32, {1, 1, 1}, {dyValue});
        DeviceTensor dx = DeviceTensor::zeros(kF32, {1, 1, 1}), db = DeviceTensor::zeros(kF32, {1});
        IntArray one({1}), zero({0});
        BoolArray mask({true, false, true});
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        EXPECT_EQ(aclnnConvolutionBackwardGetWorkspaceSize(dy, x, w, nullptr, one, zero, one, false, zero, 1, mask,
                                                           mode, dx, nullptr, db, &ws, &exe),
                  ACLNN_SUCCESS);
        EXPECT_EQ(runWithWorkspace(aclnnConvolutionBackward, ws, exe), ACLNN_SUCCESS);
        EXPECT_EQ(db.toDoubles()[0], static_cast<double>(dyValue)) << "gradBias is never rounded";
        return dx.toDoubles()[0];
    };
    const double h = std::ldexp(1.0, -12), q = std::ldexp(1.0, -11);                 // half an HF32 / an fp16 ulp at 1
    EXPECT_EQ(run(static_cast<float>(1 + h), 1), 1.0);                               // tie -> even
    EXPECT_EQ(run(static_cast<float>(1 + 3 * h), 1), 1 + 4 * h);                     // tie -> even (up)
    EXPECT_EQ(run(static_cast<float>(1 + h + std::ldexp(1.0, -20)), 3), 1 + 2 * h);  // above the tie
    EXPECT_EQ(run(static_cast<float>(1 + h - std::ldexp(1.0, -20)), 3), 1.0);        // below the tie
    EXPECT_EQ(run(static_cast<float>(1 + h), 0), static_cast<double>(static_cast<float>(1 + h)));  // KEEP_DTYPE
    EXPECT_EQ(run(static_cast<float>(1 + q), 2), 1.0);                                             // fp16 tie -> even
    EXPECT_EQ(run(static_cast<float>(1 + 3 * q), 2), 1 + 4 * q);
    EXPECT_EQ(run(70000.0f, 2), INFINITY) << "beyond fp16's range";
}

// The reference's HF32 rounding (on the value) and the kernels' Cast(HF32) (on the bits) agree on
// every kind of float32: random patterns, exact ties either way, subnormals, the largest finite.
TEST(ConvolutionBackwardPrecisionCost, ReferenceHf32RoundingAgreesWithTheCastStep) {
    auto check = [](uint32_t bits) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        if (std::isnan(f)) return;
        const double expected = kernels::roundToHF32(f), got = reference::roundToHFloat32(f);
        ASSERT_EQ(got, expected) << std::hex << "bits 0x" << bits << std::dec << " (" << f << ")";
    };
    std::mt19937 rng(7);
    for (int i = 0; i < 200000; ++i) check(static_cast<uint32_t>(rng()));
    for (uint32_t high : {0x3F800000u, 0x3F801000u, 0x00000000u, 0x00001000u, 0x7F7FF000u, 0xBF800000u})
        for (uint32_t low : {0x000u, 0x7FFu, 0x800u, 0x801u, 0xFFFu}) check(high | low);  // 0x800: the tie
    check(0x7F7FFFFFu);  // rounds up past the largest finite: Inf
    check(0x00000800u);  // a subnormal tie
}

// The golden multiplies the operands the cube multiplies: HF32 ones under USE_HF32 and
// ALLOW_FP32_DOWN_PRECISION on A2, fp16 ones under ALLOW_FP32_DOWN_PRECISION on the training
// series, the stored ones under KEEP_DTYPE; gradBias always sums gradOutput as given. So the
// emulated HF32 kernel passes the golden by its float32 accumulation (and failed before: 91% of
// elements within 1e-3 of the exact result on a ResNet layer, docs/MSPROBE.md).
TEST(ConvolutionBackwardPrecisionCost, GoldenMultipliesWhatTheCubeMultiplies) {
    setProduct(Product::AtlasA2);
    const Outcome hf32 = runMode(kF32, 3);
    ASSERT_EQ(hf32.status, ACLNN_SUCCESS) << hf32.message;
    ops::OpArguments a;
    a.tensors["gradOutput"] = HostTensor::fromDoubles(kF32, kDy, hf32.dy);
    a.tensors["input"] = HostTensor::fromDoubles(kF32, kX, hf32.x);
    a.tensors["weight"] = HostTensor::fromDoubles(kF32, kW, hf32.w);
    a.attributes["padding"] = std::vector<int64_t>{1, 1};
    a.attributes["groups"] = int64_t{2};
    a.attributes["biasSizes"] = std::vector<int64_t>{8};
    const ops::Operator* op = ops::findOperator("convolution_backward");
    ASSERT_NE(op, nullptr);
    auto golden = [&](int64_t mode, Product product) {
        a.attributes["cubeMathType"] = mode;
        return op->reference(a, product);
    };
    auto rounded = [](const std::vector<double>& v, double (*round)(double)) {
        std::vector<double> out(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) out[i] = round(v[i]);
        return out;
    };
    const auto toHalf = [](double v) { return metrics::roundToDtype(v, DType::Float16); };
    const auto exact = reference::convBackward(hf32.dy, kDy, hf32.x, kX, hf32.w, kW, kParams);
    const auto onHf32 = reference::convBackward(rounded(hf32.dy, reference::roundToHFloat32), kDy,
                                                rounded(hf32.x, reference::roundToHFloat32), kX,
                                                rounded(hf32.w, reference::roundToHFloat32), kW, kParams);
    const auto onHalf = reference::convBackward(rounded(hf32.dy, toHalf), kDy, rounded(hf32.x, toHalf), kX,
                                                rounded(hf32.w, toHalf), kW, kParams);
    for (int64_t mode : {1, 3}) {
        const auto g = golden(mode, Product::AtlasA2);
        EXPECT_EQ(g.at("gradInput").toDoubles(), onHf32.gradInput) << "mode " << mode;
        EXPECT_EQ(g.at("gradWeight").toDoubles(), onHf32.gradWeight) << "mode " << mode;
        EXPECT_EQ(g.at("gradBias").toDoubles(), exact.gradBias) << "gradBias sums dy as given";
    }
    EXPECT_EQ(golden(0, Product::AtlasA2).at("gradInput").toDoubles(), exact.gradInput);
    EXPECT_EQ(golden(1, Product::AtlasTraining).at("gradWeight").toDoubles(), onHalf.gradWeight);
    EXPECT_EQ(golden(2, Product::AtlasA2).at("gradInput").toDoubles(), onHalf.gradInput);

    const auto absSum = reference::convBackward(absOf(hf32.dy), kDy, absOf(hf32.x), kX, absOf(hf32.w), kW, kParams);
    const auto g3 = golden(3, Product::AtlasA2);
    const double toGolden = meanRelative(hf32.dx, g3.at("gradInput").toDoubles(), absSum.gradInput);
    EXPECT_LT(toGolden, kF32Sum / 10);
    EXPECT_LT(meanRelative(hf32.dw, g3.at("gradWeight").toDoubles(), absSum.gradWeight), kF32Sum / 10);
    EXPECT_GT(meanRelative(hf32.dx, exact.gradInput, absSum.gradInput), 50 * toGolden) << "HF32 is not float32";
}

}  // namespace
}  // namespace opscope::test
