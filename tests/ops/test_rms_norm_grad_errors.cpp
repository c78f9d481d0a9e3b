// Expected failures of aclnnRmsNormGradGetWorkspaceSize (and of the run on the inference
// series): the exact status code and a message that names the argument and the values seen.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "aclnnop/aclnn_rms_norm_grad.h"
#include "device_tensor.h"
#include "error_cases.h"
#include "opscope/product.h"

namespace opscope::test {
namespace {

// A valid call (x [2, 3, 16], gamma [16], rstd [2, 3], float32) that each case breaks in one way.
struct RmsCall {
    DType dtype = DType::Float32;
    DType xDtype = DType::Undefined, rstdDtype = DType::Float32, gammaDtype = DType::Undefined;
    DType dxDtype = DType::Undefined, dgammaDtype = DType::Float32;
    std::vector<int64_t> dyShape = {2, 3, 16}, xShape = {2, 3, 16}, rstdShape = {2, 3}, gammaShape = {16};
    std::vector<int64_t> dxShape = {2, 3, 16}, dgammaShape = {16};
    bool nullDy = false, nullX = false, nullRstd = false, nullGamma = false, nullDx = false, nullDgamma = false;
    bool nullWs = false, nullExe = false;
    aclFormat xFormat = ACL_FORMAT_ND;

    struct Tensors {
        DeviceTensor dy, x, rstd, gamma, dx, dgamma;
    };
    Tensors tensors() const {
        auto dt = [&](DType t) { return t == DType::Undefined ? dtype : t; };
        return {
            DeviceTensor::zeros(dtype, dyShape),       DeviceTensor::fromHost(HostTensor(dt(xDtype), xShape), xFormat),
            DeviceTensor::zeros(rstdDtype, rstdShape), DeviceTensor::zeros(dt(gammaDtype), gammaShape),
            DeviceTensor::zeros(dt(dxDtype), dxShape), DeviceTensor::zeros(dgammaDtype, dgammaShape)};
    }
    aclnnStatus getWorkspaceSize(const Tensors& t, uint64_t* ws, aclOpExecutor** exe) const {
        return aclnnRmsNormGradGetWorkspaceSize(nullDy ? nullptr : t.dy.get(), nullX ? nullptr : t.x.get(),
                                                nullRstd ? nullptr : t.rstd.get(), nullGamma ? nullptr : t.gamma.get(),
                                                nullDx ? nullptr : t.dx.get(), nullDgamma ? nullptr : t.dgamma.get(),
                                                ws, exe);
    }
};

using ErrorCase = opscope::test::ErrorCase<RmsCall>;

OPSCOPE_ERROR_SUITE(RmsNormGradErrors, RmsCall)

void setAll(RmsCall& c, std::vector<int64_t> x, std::vector<int64_t> rstd, std::vector<int64_t> gamma) {
    c.dyShape = c.xShape = c.dxShape = std::move(x);
    c.rstdShape = std::move(rstd);
    c.gammaShape = c.dgammaShape = std::move(gamma);
}

const std::vector<ErrorCase> kCases = errorTable<RmsCall>(
    // 1. Null pointers.
    nullPointerCases<RmsCall>({{"dy", &RmsCall::nullDy},
                               {"x", &RmsCall::nullX},
                               {"rstd", &RmsCall::nullRstd},
                               {"gamma", &RmsCall::nullGamma},
                               {"dxOut", &RmsCall::nullDx},
                               {"dgammaOut", &RmsCall::nullDgamma},
                               {"workspaceSize", &RmsCall::nullWs},
                               {"executor", &RmsCall::nullExe}}),
    {
        // 2. Products and dtypes.
        {"TrainingSeriesHasNoRmsNormGrad", [](RmsCall&) {}, ACLNN_ERR_PARAM_INVALID,
         "aclnnRmsNormGrad is not supported on Atlas training series", Product::AtlasTraining},
        {"Float64",
         [](RmsCall& c) {
             c.dtype = DType::Float64;
             c.rstdDtype = DType::Float32;
             c.dgammaDtype = DType::Float32;
         },
         ACLNN_ERR_PARAM_INVALID, "dy dtype float64 is not supported on Atlas A2 training series"},
        {"Int32", [](RmsCall& c) { c.dtype = DType::Int32; }, ACLNN_ERR_PARAM_INVALID, "dy dtype int32"},
        {"Bf16OnInferenceSeries", [](RmsCall& c) { c.dtype = DType::BFloat16; }, ACLNN_ERR_PARAM_INVALID,
         "dy dtype bfloat16 is not supported on Atlas inference series", Product::AtlasInference},
        {"XDtypeDiffers", [](RmsCall& c) { c.xDtype = DType::Float16; }, ACLNN_ERR_PARAM_INVALID,
         "x dtype float16 must equal dy dtype float32"},
        {"RstdNotFloat32", [](RmsCall& c) { c.rstdDtype = DType::Float16; }, ACLNN_ERR_PARAM_INVALID,
         "rstd dtype float16 is not supported: rstd must be float32"},
        {"GammaFp16UnderFp32", [](RmsCall& c) { c.gammaDtype = DType::Float16; }, ACLNN_ERR_PARAM_INVALID,
         "gamma dtype float16 is not supported with dy dtype float32 on Atlas A2 training series"},
        {"GammaBf16UnderFp16",
         [](RmsCall& c) {
             c.dtype = DType::Float16;
             c.gammaDtype = DType::BFloat16;
         },
         ACLNN_ERR_PARAM_INVALID, "expected one of float32, float16"},
        {"GammaFp32UnderFp16OnInference",
         [](RmsCall& c) {
             c.dtype = DType::Float16;
             c.gammaDtype = DType::Float32;
         },
         ACLNN_ERR_PARAM_INVALID,
         "gamma dtype float32 is not supported with dy dtype float16 on Atlas inference series",
         Product::AtlasInference},
        {"DxDtypeDiffers",
         [](RmsCall& c) {
             c.dtype = DType::BFloat16;
             c.gammaDtype = DType::Float32;
             c.dxDtype = DType::Float32;
         },
         ACLNN_ERR_PARAM_INVALID, "dxOut dtype float32 must equal dy dtype bfloat16"},
        {"DgammaNotFloat32",
         [](RmsCall& c) {
             c.dtype = DType::Float16;
             c.dgammaDtype = DType::Float16;
         },
         ACLNN_ERR_PARAM_INVALID, "dgammaOut dtype float16 is not supported: dgammaOut must be float32"},
        // 3. Formats.
        {"PrivateFormat", [](RmsCall& c) { c.xFormat = ACL_FORMAT_FRACTAL_NZ; }, ACLNN_ERR_PARAM_INVALID,
         "x format FRACTAL_NZ is a private device layout"},
        // 4. Shapes.
        // Ranks beyond 8 (op_api's case_9d: 161002), dy first.
        {"Dy9D",
         [](RmsCall& c) {
             setAll(c, {2, 1, 1, 1, 1, 1, 1, 3, 16}, {2, 1, 1, 1, 1, 1, 1, 3}, {16});
         },
         ACLNN_ERR_PARAM_INVALID, "dy rank 9 (shape [2, 1, 1, 1, 1, 1, 1, 3, 16]) is outside [1, 8]"},
        {"Rstd9D", [](RmsCall& c) { c.rstdShape = {2, 3, 1, 1, 1, 1, 1, 1, 1}; }, ACLNN_ERR_PARAM_INVALID,
         "rstd rank 9 (shape [2, 3, 1, 1, 1, 1, 1, 1, 1]) is outside [1, 8]"},
        {"DgammaOut9D", [](RmsCall& c) { c.dgammaShape = {1, 1, 1, 1, 1, 1, 1, 1, 16}; }, ACLNN_ERR_PARAM_INVALID,
         "dgammaOut rank 9"},
        {"RstdRank0",
         [](RmsCall& c) {
             setAll(c, {1, 16}, {}, {16});
         },
         ACLNN_ERR_PARAM_INVALID, "rstd rank 0"},
        {"XShapeDiffers",
         [](RmsCall& c) {
             c.xShape = {2, 3, 15};
         },
         ACLNN_ERR_PARAM_INVALID, "x shape [2, 3, 15] must equal dy shape [2, 3, 16]"},
        {"DxShapeDiffers",
         [](RmsCall& c) {
             c.dxShape = {6, 16};
         },
         ACLNN_ERR_PARAM_INVALID, "dxOut shape [6, 16] must equal dy shape [2, 3, 16]"},
        {"GammaRankExceedsX",
         [](RmsCall& c) {
             c.gammaShape = c.dgammaShape = {1, 2, 3, 16};
         },
         ACLNN_ERR_PARAM_INVALID, "gamma rank 4 (shape [1, 2, 3, 16]) exceeds x rank 3"},
        {"GammaNotTrailing", [](RmsCall& c) { c.gammaShape = c.dgammaShape = {8}; }, ACLNN_ERR_PARAM_INVALID,
         "gamma shape [8] must equal the last 1 axes of x shape [2, 3, 16] ([16])"},
        {"RstdShapeWrong",
         [](RmsCall& c) {
             c.rstdShape = {3, 2};
         },
         ACLNN_ERR_PARAM_INVALID,
         "rstd shape [3, 2] does not match x shape [2, 3, 16] with 1 normalised axes: expected x[0:2] = [2, 3]"},
        {"RstdTrailingNotOne",
         [](RmsCall& c) {
             c.rstdShape = {2, 3, 2};
         },
         ACLNN_ERR_PARAM_INVALID, "rstd shape [2, 3, 2] does not match"},
        {"RstdMissingLeadingOne",
         [](RmsCall& c) {
             setAll(c, {1, 3, 16}, {3}, {16});
         },
         ACLNN_ERR_PARAM_INVALID, "rstd shape [3] does not match x shape [1, 3, 16]"},
        {"RstdExtraLeadingOne",
         [](RmsCall& c) {
             setAll(c, {3, 16}, {1, 3}, {16});
         },
         ACLNN_ERR_PARAM_INVALID, "rstd shape [1, 3] does not match x shape [3, 16]"},
        {"DgammaShapeDiffers",
         [](RmsCall& c) {
             c.dgammaShape = {1, 16};
         },
         ACLNN_ERR_PARAM_INVALID, "dgammaOut shape [1, 16] must equal gamma shape [16]"},
        // 5. Empty tensors.
        {"EmptyRows",
         [](RmsCall& c) {
             setAll(c, {0, 3, 16}, {0, 3}, {16});
         },
         ACLNN_ERR_PARAM_INVALID, "x shape [0, 3, 16] is empty: aclnnRmsNormGrad does not support empty tensors"},
        {"EmptyLastAxis",
         [](RmsCall& c) {
             setAll(c, {2, 0}, {2}, {0});
         },
         ACLNN_ERR_PARAM_INVALID, "x shape [2, 0] is empty"},
        // 6. Product limits.
        {"InferenceTailUnder32Bytes",
         [](RmsCall& c) {
             setAll(c, {2, 3, 7}, {2, 3}, {7});
         },
         ACLNN_ERR_PARAM_INVALID,
         "x last axis has 7 float32 elements (28 bytes); dy, x and gamma need at least 32 bytes on Atlas inference "
         "series",
         Product::AtlasInference},
    });

INSTANTIATE_TEST_SUITE_P(Documented, RmsNormGradErrors, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(RmsNormGradRuntime, WorkspaceTooSmallOrNullIsARuntimeError) {
    RmsCall c;
    c.dtype = DType::BFloat16;
    c.gammaDtype = DType::BFloat16;  // needs the gamma Cast and the partials in the workspace
    expectWorkspaceChecked(c, aclnnRmsNormGrad);
}

}  // namespace
}  // namespace opscope::test
