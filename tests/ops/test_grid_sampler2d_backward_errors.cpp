// Expected failures of aclnnGridSampler2DBackwardGetWorkspaceSize: the exact status code and a
// message that names the argument and the values seen, for every condition of the doc's list.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "device_tensor.h"
#include "error_cases.h"
#include "opscope/product.h"

namespace opscope::test {
namespace {

// A valid call (input [2, 3, 4, 5], grid [2, 6, 7, 2], float32, bilinear/zeros) that each case
// breaks in one way.
struct GsCall {
    DType dtype = DType::Float32;
    DType goDtype = DType::Undefined, gridDtype = DType::Undefined, giDtype = DType::Undefined,
          ggDtype = DType::Undefined;
    std::vector<int64_t> goShape = {2, 3, 6, 7}, inShape = {2, 3, 4, 5}, gridShape = {2, 6, 7, 2};
    std::vector<int64_t> giShape = {2, 3, 4, 5}, ggShape = {2, 6, 7, 2};
    int64_t interpolation = 0, padding = 0;
    std::vector<bool> mask = {true, true};
    bool nullGo = false, nullIn = false, nullGrid = false, nullGi = false, nullGg = false;
    bool nullWs = false, nullExe = false;
    aclFormat inFormat = ACL_FORMAT_ND;

    struct Tensors {
        DeviceTensor go, in, grid, gi, gg;
        BoolArray mask;
    };
    Tensors tensors() const {
        auto dt = [&](DType t) { return t == DType::Undefined ? dtype : t; };
        return {
            DeviceTensor::zeros(dt(goDtype), goShape),     DeviceTensor::fromHost(HostTensor(dtype, inShape), inFormat),
            DeviceTensor::zeros(dt(gridDtype), gridShape), DeviceTensor::zeros(dt(giDtype), giShape),
            DeviceTensor::zeros(dt(ggDtype), ggShape),     BoolArray(mask)};
    }
    aclnnStatus getWorkspaceSize(const Tensors& t, uint64_t* ws, aclOpExecutor** exe) const {
        return aclnnGridSampler2DBackwardGetWorkspaceSize(nullGo ? nullptr : t.go.get(), nullIn ? nullptr : t.in.get(),
                                                          nullGrid ? nullptr : t.grid.get(), interpolation, padding,
                                                          false, t.mask, nullGi ? nullptr : t.gi.get(),
                                                          nullGg ? nullptr : t.gg.get(), ws, exe);
    }
};

using ErrorCase = opscope::test::ErrorCase<GsCall>;

OPSCOPE_ERROR_SUITE(GridSamplerErrors, GsCall)

const std::vector<ErrorCase> kCases = errorTable<GsCall>(
    // Null pointers: all five tensors are required, even an output the mask does not select.
    nullPointerCases<GsCall>({{"workspaceSize", &GsCall::nullWs},
                              {"executor", &GsCall::nullExe},
                              {"gradOutput", &GsCall::nullGo},
                              {"input", &GsCall::nullIn},
                              {"grid", &GsCall::nullGrid},
                              {"inputGrad", &GsCall::nullGi},
                              {"gridGrad", &GsCall::nullGg}}),
    {
        {"NullInputGradNotSelected",
         [](GsCall& c) {
             c.nullGi = true;
             c.mask = {false, true};
         },
         ACLNN_ERR_PARAM_NULLPTR, "inputGrad is null"},
        {"NullGridGradNotSelected",
         [](GsCall& c) {
             c.nullGg = true;
             c.mask = {true, false};
         },
         ACLNN_ERR_PARAM_NULLPTR, "gridGrad is null"},
        {"MaskWrongLength",
         [](GsCall& c) {
             c.mask = {true, true, true};
         },
         ACLNN_ERR_PARAM_INVALID, "outputMask has 3 entries; expected 2 (inputGrad, gridGrad)"},
        // Products and dtypes.
        {"InferenceSeriesHasNoGridSampler2DBackward", [](GsCall&) {}, ACLNN_ERR_PARAM_INVALID,
         "aclnnGridSampler2DBackward is not supported on Atlas inference series", Product::AtlasInference},
        {"Bf16OnTrainingSeries", [](GsCall& c) { c.dtype = DType::BFloat16; }, ACLNN_ERR_PARAM_INVALID,
         "input dtype bfloat16 is not supported on Atlas training series", Product::AtlasTraining},
        {"Int32", [](GsCall& c) { c.dtype = DType::Int32; }, ACLNN_ERR_PARAM_INVALID,
         "input dtype int32 is not supported on Atlas A2 training series"},
        {"GradOutputDtypeDiffers", [](GsCall& c) { c.goDtype = DType::Float16; }, ACLNN_ERR_PARAM_INVALID,
         "gradOutput dtype float16 must equal input dtype float32"},
        {"GridDtypeDiffers", [](GsCall& c) { c.gridDtype = DType::Float64; }, ACLNN_ERR_PARAM_INVALID,
         "grid dtype float64 must equal input dtype float32"},
        {"InputGradDtypeDiffers", [](GsCall& c) { c.giDtype = DType::BFloat16; }, ACLNN_ERR_PARAM_INVALID,
         "inputGrad dtype bfloat16 must equal input dtype float32"},
        {"GridGradDtypeDiffers",
         [](GsCall& c) {
             c.ggDtype = DType::Float16;
             c.mask = {true, false};
         },
         ACLNN_ERR_PARAM_INVALID, "gridGrad dtype float16 must equal input dtype float32"},
        {"PrivateFormat", [](GsCall& c) { c.inFormat = ACL_FORMAT_NC1HWC0; }, ACLNN_ERR_PARAM_INVALID,
         "input format NC1HWC0 is a private device layout"},
        // Attributes.
        {"InterpolationMode3", [](GsCall& c) { c.interpolation = 3; }, ACLNN_ERR_PARAM_INVALID,
         "interpolationMode 3 is not supported: expected 0 (bilinear), 1 (nearest) or 2 (bicubic)"},
        {"InterpolationModeNegative", [](GsCall& c) { c.interpolation = -1; }, ACLNN_ERR_PARAM_INVALID,
         "interpolationMode -1 is not supported"},
        {"PaddingMode3", [](GsCall& c) { c.padding = 3; }, ACLNN_ERR_PARAM_INVALID,
         "paddingMode 3 is not supported: expected 0 (zeros), 1 (border) or 2 (reflection)"},
        // Shapes.
        {"Input3D",
         [](GsCall& c) {
             c.inShape = c.giShape = {2, 3, 20};
         },
         ACLNN_ERR_PARAM_INVALID, "input must be 4-D, got rank 3 (shape [2, 3, 20])"},
        {"Grid5D",
         [](GsCall& c) {
             c.gridShape = c.ggShape = {2, 6, 7, 1, 2};
         },
         ACLNN_ERR_PARAM_INVALID, "grid must be 4-D, got rank 5"},
        {"Input9D", [](GsCall& c) { c.inShape = c.giShape = {2, 3, 4, 5, 1, 1, 1, 1, 1}; }, ACLNN_ERR_PARAM_INVALID,
         "input must be 4-D, got rank 9 (shape [2, 3, 4, 5, 1, 1, 1, 1, 1])"},
        {"InputGrad9D", [](GsCall& c) { c.giShape = {2, 3, 4, 5, 1, 1, 1, 1, 1}; }, ACLNN_ERR_PARAM_INVALID,
         "inputGrad must be 4-D, got rank 9"},
        {"GridGrad9DNotSelected",
         [](GsCall& c) {
             c.ggShape = {2, 6, 7, 2, 1, 1, 1, 1, 1};
             c.mask = {true, false};
         },
         ACLNN_ERR_PARAM_INVALID, "gridGrad must be 4-D, got rank 9"},
        {"GradOutput3D",
         [](GsCall& c) {
             c.goShape = {2, 3, 42};
         },
         ACLNN_ERR_PARAM_INVALID, "gradOutput must be 4-D"},
        {"GridBatchDiffers",
         [](GsCall& c) {
             c.gridShape = c.ggShape = {1, 6, 7, 2};
         },
         ACLNN_ERR_PARAM_INVALID,
         "input, grid and gradOutput must have the same batch size, got input [2, 3, 4, 5], grid [1, 6, 7, 2], "
         "gradOutput [2, 3, 6, 7]"},
        {"GradOutputBatchDiffers",
         [](GsCall& c) {
             c.goShape = {3, 3, 6, 7};
         },
         ACLNN_ERR_PARAM_INVALID, "must have the same batch size"},
        {"ChannelsDiffer",
         [](GsCall& c) {
             c.goShape = {2, 4, 6, 7};
         },
         ACLNN_ERR_PARAM_INVALID,
         "input and gradOutput must have the same channel size, got input [2, 3, 4, 5], gradOutput [2, 4, 6, 7]"},
        {"InputHeightZero",
         [](GsCall& c) {
             c.inShape = c.giShape = {2, 3, 0, 5};
         },
         ACLNN_ERR_PARAM_INVALID, "input must have non-empty spatial dimensions, got input [2, 3, 0, 5]"},
        {"InputWidthZero",
         [](GsCall& c) {
             c.inShape = c.giShape = {2, 3, 4, 0};
         },
         ACLNN_ERR_PARAM_INVALID, "non-empty spatial dimensions"},
        {"GridHeightDiffers",
         [](GsCall& c) {
             c.gridShape = c.ggShape = {2, 5, 7, 2};
         },
         ACLNN_ERR_PARAM_INVALID,
         "grid and gradOutput must have the same H and W, got grid [2, 5, 7, 2], gradOutput [2, 3, 6, 7]"},
        {"GridWidthDiffers",
         [](GsCall& c) {
             c.gridShape = c.ggShape = {2, 6, 8, 2};
         },
         ACLNN_ERR_PARAM_INVALID, "must have the same H and W"},
        {"GridLastDim3",
         [](GsCall& c) {
             c.gridShape = c.ggShape = {2, 6, 7, 3};
         },
         ACLNN_ERR_PARAM_INVALID, "grid last dimension must be 2 (x, y), got grid [2, 6, 7, 3]"},
        {"InputGradShape",
         [](GsCall& c) {
             c.giShape = {2, 3, 5, 4};
         },
         ACLNN_ERR_PARAM_INVALID, "inputGrad shape [2, 3, 5, 4] must equal input shape [2, 3, 4, 5]"},
        {"GridGradShape",
         [](GsCall& c) {
             c.ggShape = {2, 7, 6, 2};
             c.mask = {true, false};
         },
         ACLNN_ERR_PARAM_INVALID, "gridGrad shape [2, 7, 6, 2] must equal grid shape [2, 6, 7, 2]"},
    });

INSTANTIATE_TEST_SUITE_P(Documented, GridSamplerErrors, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GridSamplerProducts, Float64IsAcceptedOnEveryProductThatHasTheOperator) {
    for (Product p : {Product::AtlasTraining, Product::AtlasA2, Product::AtlasA3}) {
        setProduct(p);
        GsCall c;
        c.dtype = DType::Float64;
        EXPECT_EQ(phase1Status(c), ACLNN_SUCCESS) << productName(p) << ": " << aclGetRecentErrMsg();
    }
    setProduct(Product::AtlasA2);
}

TEST(GridSamplerRuntime, WorkspaceTooSmallOrNullIsARuntimeError) {
    expectWorkspaceChecked(GsCall{}, aclnnGridSampler2DBackward);  // the NHWC copies live in the workspace
}

}  // namespace
}  // namespace opscope::test
