// Expected failures of aclnnGroupNormBackwardGetWorkspaceSize: the exact status code and a
// message that names the argument, for every condition the documentation lists.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "aclnnop/aclnn_group_norm_backward.h"
#include "device_tensor.h"
#include "error_cases.h"
#include "opscope/product.h"

namespace opscope::test {
namespace {

// A valid call (N=2, C=4, HxW=6, group=2, float32) that each case breaks in one way.
struct GnCall {
    DType dtype = DType::Float32;
    std::vector<int64_t> xShape = {2, 4, 6}, statShape = {2, 2}, gammaShape = {4};
    std::vector<int64_t> dxShape = {2, 4, 6}, dgShape = {4}, dbShape = {4};
    DType meanDtype = DType::Undefined, dxDtype = DType::Undefined;  // Undefined = same as dtype
    int64_t N = 2, C = 4, HxW = 6, group = 2;
    std::vector<bool> mask = {true, true, true};
    bool nullGradOut = false, nullInput = false, nullMean = false, nullRstd = false, nullMask = false;
    bool nullDx = false, nullDg = false, nullDb = false, nullWs = false, nullExe = false;
    bool nullGamma = false;  // gamma is optional: still a valid call
    aclFormat xFormat = ACL_FORMAT_ND;

    struct Tensors {
        DeviceTensor dy, x, mean, rstd, gamma, dx, dg, db;
        BoolArray mask;
    };
    Tensors tensors() const {
        auto dt = [&](DType t) { return t == DType::Undefined ? dtype : t; };
        return {DeviceTensor::zeros(dtype, xShape),
                DeviceTensor::fromHost(HostTensor(dtype, xShape), xFormat),
                DeviceTensor::zeros(dt(meanDtype), statShape),
                DeviceTensor::zeros(dtype, statShape),
                DeviceTensor::zeros(dtype, gammaShape),
                DeviceTensor::zeros(dt(dxDtype), dxShape),
                DeviceTensor::zeros(dtype, dgShape),
                DeviceTensor::zeros(dtype, dbShape),
                BoolArray(mask)};
    }
    aclnnStatus getWorkspaceSize(const Tensors& t, uint64_t* ws, aclOpExecutor** exe) const {
        return aclnnGroupNormBackwardGetWorkspaceSize(
            nullGradOut ? nullptr : t.dy.get(), nullInput ? nullptr : t.x.get(), nullMean ? nullptr : t.mean.get(),
            nullRstd ? nullptr : t.rstd.get(), nullGamma ? nullptr : t.gamma.get(), N, C, HxW, group,
            nullMask ? nullptr : t.mask.get(), nullDx ? nullptr : t.dx.get(), nullDg ? nullptr : t.dg.get(),
            nullDb ? nullptr : t.db.get(), ws, exe);
    }
};

using ErrorCase = opscope::test::ErrorCase<GnCall>;

OPSCOPE_ERROR_SUITE(GroupNormBackwardErrors, GnCall)

// One group of 8001 channels, just beyond the 8000 channels per group the device takes.
void oneGroupOf8001Channels(GnCall& c) {
    c.C = 8001;
    c.group = 1;
    c.xShape = c.dxShape = {1, 8001, 1};
    c.N = 1;
    c.HxW = 1;
    c.statShape = {1, 1};
    c.gammaShape = c.dgShape = c.dbShape = {8001};
}

const std::vector<ErrorCase> kCases = errorTable<GnCall>(
    nullPointerCases<GnCall>({{"gradOut", &GnCall::nullGradOut},
                              {"input", &GnCall::nullInput},
                              {"mean", &GnCall::nullMean},
                              {"rstd", &GnCall::nullRstd},
                              {"outputMask", &GnCall::nullMask},
                              {"workspaceSize", &GnCall::nullWs},
                              {"executor", &GnCall::nullExe}}),
    {
        {"NullGradInputWhenMasked", [](GnCall& c) { c.nullDx = true; }, ACLNN_ERR_PARAM_NULLPTR, "gradInput is null"},
        {"NullGradGammaWhenMasked", [](GnCall& c) { c.nullDg = true; }, ACLNN_ERR_PARAM_NULLPTR,
         "gradGammaOut is null"},
        {"NullGradBetaWhenMasked", [](GnCall& c) { c.nullDb = true; }, ACLNN_ERR_PARAM_NULLPTR, "gradBetaOut is null"},
        {"MaskWrongLength",
         [](GnCall& c) {
             c.mask = {true, true};
         },
         ACLNN_ERR_PARAM_INVALID, "outputMask has 2"},
        {"UnsupportedDtype", [](GnCall& c) { c.dtype = DType::Float64; }, ACLNN_ERR_PARAM_INVALID,
         "gradOut dtype float64 is not supported"},
        {"IntDtype", [](GnCall& c) { c.dtype = DType::Int32; }, ACLNN_ERR_PARAM_INVALID, "gradOut dtype int32"},
        {"MeanDtypeDiffers", [](GnCall& c) { c.meanDtype = DType::Float16; }, ACLNN_ERR_PARAM_INVALID,
         "mean dtype float16 must equal gradOut dtype float32"},
        {"OutputDtypeDiffers", [](GnCall& c) { c.dxDtype = DType::Float16; }, ACLNN_ERR_PARAM_INVALID,
         "gradInput dtype float16"},
        {"GradInputShape",
         [](GnCall& c) {
             c.dxShape = {2, 24};
         },
         ACLNN_ERR_PARAM_INVALID, "gradInput shape [2, 24] must equal input shape [2, 4, 6]"},
        {"GradGammaShape",
         [](GnCall& c) {
             c.dgShape = {1, 4};
         },
         ACLNN_ERR_PARAM_INVALID, "gradGammaOut shape [1, 4]"},
        {"GradBetaShape", [](GnCall& c) { c.dbShape = {5}; }, ACLNN_ERR_PARAM_INVALID, "gradBetaOut shape [5]"},
        {"GroupZero", [](GnCall& c) { c.group = 0; }, ACLNN_ERR_PARAM_INVALID, "group must be greater than 0, got 0"},
        {"GroupNegative", [](GnCall& c) { c.group = -2; }, ACLNN_ERR_PARAM_INVALID, "got -2"},
        {"CNotDivisible",
         [](GnCall& c) {
             c.group = 3;
             c.statShape = {2, 3};
         },
         ACLNN_ERR_PARAM_INVALID, "C (4) must be divisible by group (3)"},
        // 5a. Ranks beyond 8 (op_api's case_9d: 161002), gradOut first as on the device.
        {"GradOut9D", [](GnCall& c) { c.xShape = c.dxShape = {2, 4, 6, 1, 1, 1, 1, 1, 1}; }, ACLNN_ERR_PARAM_INVALID,
         "gradOut rank 9 (shape [2, 4, 6, 1, 1, 1, 1, 1, 1]) is outside [0, 8]"},
        {"Mean9D", [](GnCall& c) { c.statShape = {2, 2, 1, 1, 1, 1, 1, 1, 1}; }, ACLNN_ERR_PARAM_INVALID,
         "mean rank 9 (shape [2, 2, 1, 1, 1, 1, 1, 1, 1]) is outside [0, 8]"},
        {"Gamma9D", [](GnCall& c) { c.gammaShape = c.dgShape = c.dbShape = {4, 1, 1, 1, 1, 1, 1, 1, 1}; },
         ACLNN_ERR_PARAM_INVALID, "gamma rank 9"},
        {"GradInput9D", [](GnCall& c) { c.dxShape = {2, 4, 6, 1, 1, 1, 1, 1, 1}; }, ACLNN_ERR_PARAM_INVALID,
         "gradInput rank 9"},
        {"GradBetaOut12D",
         [](GnCall& c) {
             c.dbShape = std::vector<int64_t>(11, 1);
             c.dbShape.push_back(4);
         },
         ACLNN_ERR_PARAM_INVALID, "gradBetaOut rank 12"},
        {"InputNumel", [](GnCall& c) { c.HxW = 5; }, ACLNN_ERR_PARAM_INVALID, "input has 48 elements"},
        {"MeanNumel",
         [](GnCall& c) {
             c.statShape = {2, 3};
         },
         ACLNN_ERR_PARAM_INVALID, "mean has 6 elements"},
        {"GammaNumel",
         [](GnCall& c) {
             c.gammaShape = {5};
             c.dgShape = {5};
             c.dbShape = {5};
         },
         ACLNN_ERR_PARAM_INVALID, "gamma has 5 elements"},
        {"NegativeN", [](GnCall& c) { c.N = -1; }, ACLNN_ERR_PARAM_INVALID, "N=-1"},
        {"PrivateFormat", [](GnCall& c) { c.xFormat = ACL_FORMAT_NC1HWC0; }, ACLNN_ERR_PARAM_INVALID,
         "input format NC1HWC0"},
        {"ChannelsPerGroupOver8000OnA2", oneGroupOf8001Channels, ACLNN_ERR_PARAM_INVALID,
         "C / group = 8001 exceeds 8000"},
        {"ChannelsPerGroupOver8000OnA3", oneGroupOf8001Channels, ACLNN_ERR_PARAM_INVALID, "exceeds 8000",
         Product::AtlasA3},
        {"Bf16OnTrainingSeries", [](GnCall& c) { c.dtype = DType::BFloat16; }, ACLNN_ERR_PARAM_INVALID,
         "bfloat16 is not supported on Atlas training series", Product::AtlasTraining},
        {"InferenceSeriesHasNoGroupNormBackward", [](GnCall&) {}, ACLNN_ERR_PARAM_INVALID,
         "not supported on Atlas inference series", Product::AtlasInference},
    });

INSTANTIATE_TEST_SUITE_P(Documented, GroupNormBackwardErrors, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GroupNormBackwardProducts, TrainingSeriesAllowsLargeChannelsPerGroup) {
    setProduct(Product::AtlasTraining);
    GnCall c;
    oneGroupOf8001Channels(c);
    EXPECT_EQ(phase1Status(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    setProduct(Product::AtlasA2);
}

TEST(GroupNormBackwardRanks, EightDimensionsAreAccepted) {
    GnCall c;
    c.xShape = c.dxShape = {2, 4, 6, 1, 1, 1, 1, 1};
    c.statShape = {2, 2, 1, 1, 1, 1, 1, 1};
    EXPECT_EQ(phase1Status(c), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

TEST(GroupNormBackwardRuntime, WorkspaceTooSmallOrNullIsARuntimeError) {
    GnCall c;
    c.dtype = DType::Float16;  // needs Cast scratch in the workspace
    c.nullGamma = true;
    expectWorkspaceChecked(c, aclnnGroupNormBackward);
}

TEST(GroupNormBackwardRuntime, SpentExecutorIsAnErrorNotACrash) {
    GnCall c;
    c.nullGamma = true;
    c.mask = {true, false, false};
    c.nullDg = c.nullDb = true;
    const GnCall::Tensors t = c.tensors();
    uint64_t ws = 0;
    aclOpExecutor* exe = nullptr;
    ASSERT_ACLNN_OK(c.getWorkspaceSize(t, &ws, &exe));
    void* buf = nullptr;
    ASSERT_EQ(aclrtMalloc(&buf, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclnnGroupNormBackward(buf, ws, exe, nullptr), ACLNN_SUCCESS);
    EXPECT_EQ(aclnnGroupNormBackward(buf, ws, exe, nullptr), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("already ran"), std::string::npos);
    aclrtStream s = nullptr;
    ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    ASSERT_ACLNN_OK(c.getWorkspaceSize(t, &ws, &exe));
    EXPECT_EQ(aclnnGroupNormBackward(buf, ws, exe, s), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("not a live stream"), std::string::npos);
    EXPECT_EQ(aclDestroyAclOpExecutor(exe), ACLNN_SUCCESS);
    aclrtFree(buf);
}

}  // namespace
}  // namespace opscope::test
