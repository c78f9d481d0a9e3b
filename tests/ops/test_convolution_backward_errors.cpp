// Expected failures of aclnnConvolutionBackwardGetWorkspaceSize: the exact status code and a
// message naming the argument and the values, for every documented condition, per product;
// and the product limits' boundaries, which must pass.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>

#include "aclnnop/aclnn_convolution_backward.h"
#include "conv_grad_input_call.h"
#include "device_tensor.h"
#include "error_cases.h"
#include "opscope/product.h"

namespace opscope::test {
namespace {

DType promoted(DType a, DType b) { return a == b ? a : DType::Float32; }

// A valid call (2D, float32, groups 2, stride 1, padding 1) that each case breaks in one way.
struct ConvCall {
    std::vector<int64_t> x = {2, 4, 6, 6}, w = {6, 2, 3, 3}, dy = {2, 6, 6, 6};
    std::vector<int64_t> dx, dw, db;  // empty: input, weight, [gradOutput channels]
    DType tx = DType::Float32, tw = DType::Float32, tdy = DType::Float32;
    DType tdx = DType::Undefined, tdw = DType::Undefined, tdb = DType::Undefined;  // Undefined: the rule
    aclFormat fx = ACL_FORMAT_NCHW, fw = ACL_FORMAT_NCHW, fdy = ACL_FORMAT_NCHW, fdb = ACL_FORMAT_ND;
    std::vector<int64_t> stride = {1, 1}, padding = {1, 1}, dilation = {1, 1}, outputPadding = {0, 0};
    std::optional<std::vector<int64_t>> biasSizes;  // empty: [gradOutput channels]
    bool transposed = false;
    int groups = 2;
    std::vector<bool> mask = {true, true, true};
    int8_t cube = 0;
    bool nullDy = false, nullX = false, nullW = false, nullStride = false, nullPadding = false, nullDilation = false;
    bool nullOutputPadding = false, nullMask = false, nullBiasSizes = false, nullDx = false, nullDw = false;
    bool nullDb = false, nullWs = false, nullExe = false;

    void setShapes(std::vector<int64_t> xs, std::vector<int64_t> ws, std::vector<int64_t> dys) {
        x = std::move(xs);
        w = std::move(ws);
        dy = std::move(dys);
        const std::size_t n = x.size() - 2;
        stride.assign(n, 1);
        padding.assign(n, 0);
        dilation.assign(n, 1);
        outputPadding.assign(n, 0);
        const aclFormat f = x.size() == 3 ? ACL_FORMAT_NCL : x.size() == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
        fx = fw = fdy = f;
        groups = 1;
    }

    struct Tensors {
        DeviceTensor x, w, dy, dx, dw, db;
        IntArray stride, padding, dilation, outputPadding, biasSizes;
        BoolArray mask;
    };
    Tensors tensors() const {
        auto dt = [](DType given, DType rule) { return given == DType::Undefined ? rule : given; };
        const std::vector<int64_t> channels = {dy.size() > 1 ? dy[1] : 1};
        return {DeviceTensor::fromHost(HostTensor(tx, x), fx),
                DeviceTensor::fromHost(HostTensor(tw, w), fw),
                DeviceTensor::fromHost(HostTensor(tdy, dy), fdy),
                DeviceTensor::fromHost(HostTensor(dt(tdx, promoted(tx, tdy)), dx.empty() ? x : dx), fx),
                DeviceTensor::fromHost(HostTensor(dt(tdw, promoted(tw, tdy)), dw.empty() ? w : dw), fw),
                DeviceTensor::fromHost(HostTensor(dt(tdb, tdy), db.empty() ? channels : db), fdb),
                IntArray(stride),
                IntArray(padding),
                IntArray(dilation),
                IntArray(outputPadding),
                IntArray(biasSizes ? *biasSizes : channels),
                BoolArray(mask)};
    }
    aclnnStatus getWorkspaceSize(const Tensors& t, uint64_t* ws, aclOpExecutor** exe) const {
        return aclnnConvolutionBackwardGetWorkspaceSize(
            nullDy ? nullptr : t.dy.get(), nullX ? nullptr : t.x.get(), nullW ? nullptr : t.w.get(),
            nullBiasSizes ? nullptr : t.biasSizes.get(), nullStride ? nullptr : t.stride.get(),
            nullPadding ? nullptr : t.padding.get(), nullDilation ? nullptr : t.dilation.get(), transposed,
            nullOutputPadding ? nullptr : t.outputPadding.get(), groups, nullMask ? nullptr : t.mask.get(), cube,
            nullDx ? nullptr : t.dx.get(), nullDw ? nullptr : t.dw.get(), nullDb ? nullptr : t.db.get(), ws, exe);
    }
};

using ErrorCase = opscope::test::ErrorCase<ConvCall>;

OPSCOPE_ERROR_SUITE(ConvolutionBackwardErrors, ConvCall)

constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;
constexpr Product kTraining = Product::AtlasTraining, kInference = Product::AtlasInference, kA3 = Product::AtlasA3;

// 1D, 3D and transposed variants of the valid call.
void make1d(ConvCall& c) { c.setShapes({2, 3, 9}, {4, 3, 3}, {2, 4, 7}); }
void make3d(ConvCall& c) { c.setShapes({1, 2, 4, 5, 5}, {3, 2, 2, 3, 3}, {1, 3, 3, 3, 3}); }
void makeTransposed(ConvCall& c) {  // input [2,4,3,3], weight [4,3,3,3], groups 2 -> gradOutput [2,6,6,6]
    c.setShapes({2, 4, 3, 3}, {4, 3, 3, 3}, {2, 6, 6, 6});
    c.transposed = true;
    c.groups = 2;
    c.stride = {2, 2};
    c.padding = {1, 1};
    c.outputPadding = {1, 1};
}

// clang-format off
const std::vector<ErrorCase> kCases = errorTable<ConvCall>(
    // 1. Null pointers and the mask.
    nullPointerCases<ConvCall>({{"gradOutput", &ConvCall::nullDy}, {"input", &ConvCall::nullX},
                                {"weight", &ConvCall::nullW}, {"stride", &ConvCall::nullStride}, {"padding", &ConvCall::nullPadding},
                                {"dilation", &ConvCall::nullDilation}, {"outputPadding", &ConvCall::nullOutputPadding},
                                {"outputMask", &ConvCall::nullMask}, {"workspaceSize", &ConvCall::nullWs},
                                {"executor", &ConvCall::nullExe}}),
    {
    {"NullGradInputWhenMasked", [](ConvCall& c) { c.nullDx = true; }, kNull, "gradInput is null but outputMask[0] is true"},
    {"NullGradWeightWhenMasked", [](ConvCall& c) { c.nullDw = true; }, kNull, "gradWeight is null but outputMask[1] is true"},
    {"NullGradBiasWhenMasked", [](ConvCall& c) { c.nullDb = true; }, kNull, "gradBias is null but outputMask[2] is true"},
    {"MaskWrongLength", [](ConvCall& c) { c.mask = {true, true}; }, kInvalid, "outputMask has 2 entries; expected 3"},
    // 2. Dtypes.
    {"Float64", [](ConvCall& c) { c.tdy = DType::Float64; }, kInvalid, "gradOutput dtype float64 is not supported on Atlas A2"},
    {"Int32Input", [](ConvCall& c) { c.tx = DType::Int32; }, kInvalid, "input dtype int32 is not supported"},
    {"Int8Weight", [](ConvCall& c) { c.tw = DType::Int8; }, kInvalid, "weight dtype int8 is not supported"},
    {"Bf16OnTrainingSeries", [](ConvCall& c) { c.tdy = c.tx = c.tw = DType::BFloat16; }, kInvalid,
     "gradOutput dtype bfloat16 is not supported on Atlas training series", kTraining},
    {"Bf16OnInferenceSeries", [](ConvCall& c) { c.tx = DType::BFloat16; }, kInvalid,
     "input dtype bfloat16 is not supported on Atlas inference series", kInference},
    {"GradInputNotPromoted", [](ConvCall& c) { c.tdx = DType::Float16; }, kInvalid,
     "gradInput dtype float16 must be the higher-precision dtype of input (float32) and gradOutput (float32): float32"},
    {"GradInputMixedPromotesToFp32", [](ConvCall& c) { c.tx = DType::Float16; c.tdx = DType::Float16; }, kInvalid,
     "gradInput dtype float16 must be the higher-precision dtype of input (float16) and gradOutput (float32): float32"},
    {"GradWeightFp16Bf16PromotesToFp32", [](ConvCall& c) { c.tw = DType::BFloat16; c.tdy = DType::Float16; c.tx = DType::Float16; c.tdw = DType::BFloat16; },
     kInvalid, "gradWeight dtype bfloat16 must be the higher-precision dtype of weight (bfloat16) and gradOutput (float16): float32"},
    {"GradBiasDtype", [](ConvCall& c) { c.tdy = DType::Float16; c.tdb = DType::Float32; }, kInvalid,
     "gradBias dtype float32 must equal gradOutput dtype float16"},
    // 3. Ranks and formats.
    {"Rank2Input", [](ConvCall& c) { c.x = {2, 4}; c.fx = ACL_FORMAT_ND; }, kInvalid, "input rank 2 (shape [2, 4]) is not 3, 4 or 5"},
    {"Rank6Input", [](ConvCall& c) { c.x = {1, 2, 4, 6, 6, 1}; c.fx = ACL_FORMAT_ND; }, kInvalid, "input rank 6"},
    {"Rank9Input", [](ConvCall& c) { c.x = {2, 4, 6, 6, 1, 1, 1, 1, 1}; c.fx = ACL_FORMAT_ND; }, kInvalid,
     "input rank 9 (shape [2, 4, 6, 6, 1, 1, 1, 1, 1]) is not 3, 4 or 5"},
    {"GradInputRank9", [](ConvCall& c) { c.dx = {2, 4, 6, 6, 1, 1, 1, 1, 1}; }, kInvalid,
     "gradInput rank 9 (shape [2, 4, 6, 6, 1, 1, 1, 1, 1]) must equal input rank 4"},
    {"GradWeightRank5", [](ConvCall& c) { c.dw = {6, 2, 3, 3, 1}; }, kInvalid,
     "gradWeight rank 5 (shape [6, 2, 3, 3, 1]) must equal input rank 4"},
    {"GradOutputRank", [](ConvCall& c) { c.dy = {2, 6, 36}; c.fdy = ACL_FORMAT_NCL; }, kInvalid,
     "gradOutput rank 3 (shape [2, 6, 36]) must equal input rank 4"},
    {"WeightRank", [](ConvCall& c) { c.w = {6, 2, 3, 3, 1}; c.fw = ACL_FORMAT_NCDHW; }, kInvalid,
     "weight rank 5 (shape [6, 2, 3, 3, 1]) must equal input rank 4"},
    {"ChannelsLastFormat", [](ConvCall& c) { c.fx = ACL_FORMAT_NHWC; }, kInvalid,
     "input format NHWC is not supported for a rank-4 tensor: expected NCHW (or ND)"},
    {"FormatOfAnotherRank", [](ConvCall& c) { c.fdy = ACL_FORMAT_NCDHW; }, kInvalid, "gradOutput format NCDHW is not supported"},
    {"PrivateFormat", [](ConvCall& c) { c.fw = ACL_FORMAT_FRACTAL_Z; }, kInvalid, "weight format FRACTAL_Z is not supported"},
    {"GradBiasNotND", [](ConvCall& c) { c.fdb = ACL_FORMAT_NCHW; }, kInvalid, "gradBias format NCHW is not supported: expected ND"},
    // 4. Product support.
    {"ThreeDOnTrainingSeries", [](ConvCall& c) { make3d(c); c.cube = 1; }, kInvalid,
     "3D convolution backward (input shape [1, 2, 4, 5, 5]) is not supported on Atlas training series", kTraining},
    {"ThreeDOnInferenceSeries", [](ConvCall& c) { make3d(c); c.cube = 1; }, kInvalid,
     "is not supported on Atlas inference series (Ascend 310P): only 1D and 2D", kInference},
    // 5. Attributes.
    {"StrideLength", [](ConvCall& c) { c.stride = {1, 1, 1}; }, kInvalid, "stride [1, 1, 1] has 3 values; expected 2"},
    {"PaddingLength", [](ConvCall& c) { c.padding = {1, 1, 1}; }, kInvalid,
     "padding [1, 1, 1] has 3 values; expected 2 (input rank 4 - 2) or 4 (top, bottom, left, right)"},
    {"FourPaddingsOnlyIn2D", [](ConvCall& c) { make1d(c); c.padding = {1, 1, 0, 0}; }, kInvalid,
     "padding [1, 1, 0, 0] has 4 values; expected 1"},
    {"DilationLength", [](ConvCall& c) { c.dilation = {1}; }, kInvalid, "dilation [1] has 1 values; expected 2"},
    {"OutputPaddingLength", [](ConvCall& c) { c.outputPadding = {0, 0, 0, 0}; }, kInvalid, "outputPadding [0, 0, 0, 0] has 4 values"},
    {"StrideZero", [](ConvCall& c) { c.stride = {1, 0}; }, kInvalid, "stride [1, 0] must be >= 1 on every axis"},
    {"PaddingNegative", [](ConvCall& c) { c.padding = {-1, 1}; }, kInvalid, "padding [-1, 1] must be >= 0 on every axis"},
    {"DilationZero", [](ConvCall& c) { c.dilation = {0, 1}; }, kInvalid, "dilation [0, 1] must be >= 1 on every axis"},
    {"OutputPaddingNegative", [](ConvCall& c) { c.outputPadding = {0, -2}; }, kInvalid, "outputPadding [0, -2] must be >= 0"},
    {"OutputPaddingNotBelowStrideOrDilation", [](ConvCall& c) { makeTransposed(c); c.outputPadding = {1, 2}; }, kInvalid,
     "outputPadding [1, 2] must be smaller than stride [2, 2] or dilation [1, 1] on every axis (axis W)"},
    {"GroupsZero", [](ConvCall& c) { c.groups = 0; }, kInvalid, "groups must be greater than 0, got 0"},
    {"GroupsNegative", [](ConvCall& c) { c.groups = -3; }, kInvalid, "groups must be greater than 0, got -3"},
    {"CubeMathTypeOutOfRange", [](ConvCall& c) { c.cube = 4; }, kInvalid,
     "cubeMathType must be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16) or 3 (USE_HF32), got 4"},
    {"CubeMathTypeNegative", [](ConvCall& c) { c.cube = -1; }, kInvalid, "got -1"},
    {"KeepDtypeFp32OnTrainingSeries", [](ConvCall& c) { c.cube = 0; }, kInvalid,
     "cubeMathType 0 (KEEP_DTYPE) with float32 inputs is not supported on Atlas training series", kTraining},
    {"UseHf32Fp32OnTrainingSeries", [](ConvCall& c) { c.cube = 3; }, kInvalid,
     "cubeMathType 3 (USE_HF32) with float32 inputs is not supported on Atlas training series", kTraining},
    {"KeepDtypeMixedPromotesToFp32OnTraining", [](ConvCall& c) { c.tw = DType::Float16; c.tx = DType::Float16; c.tdx = c.tdw = DType::Float32; }, kInvalid,
     "cubeMathType 0 (KEEP_DTYPE) with float32 inputs", kTraining},
    {"KeepDtypeFp32OnInferenceSeries", [](ConvCall& c) { c.cube = 0; }, kInvalid,
     "cubeMathType 0 (KEEP_DTYPE) with float32 inputs is not supported on Atlas inference series", kInference},
    {"UseHf32Fp32OnInferenceSeries", [](ConvCall& c) { c.cube = 3; }, kInvalid, "(USE_HF32) with float32 inputs", kInference},
    // 6. Shapes: empty tensors, channels and groups, sizes, biasSizes, outputs.
    {"InputEmptySpatial", [](ConvCall& c) { c.x = {2, 4, 0, 6}; }, kInvalid,
     "input shape [2, 4, 0, 6] is empty in spatial axis H; only N or C may be 0"},
    {"WeightEmpty", [](ConvCall& c) { c.w = {6, 2, 0, 3}; }, kInvalid, "weight must not be empty, got shape [6, 2, 0, 3]"},
    {"WeightEmptyCinWithNonEmptyInput", [](ConvCall& c) { c.w = {6, 0, 3, 3}; }, kInvalid, "weight must not be empty"},
    {"TransposedWeightEmptyWithC0Input", [](ConvCall& c) { makeTransposed(c); c.x = {2, 0, 3, 3}; c.w = {0, 3, 3, 3}; }, kInvalid,
     "weight must not be empty, got shape [0, 3, 3, 3]"},
    {"GradOutputEmpty", [](ConvCall& c) { c.dy = {2, 6, 0, 6}; }, kInvalid, "gradOutput must not be empty, got shape [2, 6, 0, 6]"},
    {"BatchMismatch", [](ConvCall& c) { c.dy = {3, 6, 6, 6}; }, kInvalid, "gradOutput batch 3 (shape [3, 6, 6, 6]) must equal input batch 2"},
    {"CoutNotDivisibleByGroups", [](ConvCall& c) { c.w = {5, 2, 3, 3}; c.dy = {2, 5, 6, 6}; }, kInvalid,
     "weight.shape[0] (output channels 5) must be divisible by groups (2)"},
    {"InputChannelsVsGroups", [](ConvCall& c) { c.x = {2, 5, 6, 6}; }, kInvalid,
     "input channels (5) must equal weight.shape[1] (2) * groups (2) = 4"},
    {"GradOutputChannels", [](ConvCall& c) { c.dy = {2, 4, 6, 6}; }, kInvalid, "gradOutput channels (4) must equal weight.shape[0] (6)"},
    {"TransposedWeightRowsVsInputChannels", [](ConvCall& c) { makeTransposed(c); c.w = {6, 3, 3, 3}; }, kInvalid,
     "weight.shape[0] (6) must equal input channels (4) for a transposed convolution"},
    {"TransposedInputChannelsVsGroups", [](ConvCall& c) { makeTransposed(c); c.groups = 3; }, kInvalid,
     "input channels (4) must be divisible by groups (3)"},
    {"TransposedGradOutputChannels", [](ConvCall& c) { makeTransposed(c); c.dy = {2, 3, 6, 6}; }, kInvalid,
     "gradOutput channels (3) must equal weight.shape[1] (3) * groups (2) = 6 for a transposed convolution"},
    {"KernelLargerThanPaddedInput", [](ConvCall& c) { c.x = {2, 4, 6, 1}; c.padding = {1, 0}; }, kInvalid,
     "input size 1 plus padding 0+0 is smaller than the dilated kernel ((3 - 1) * 1 + 1 = 3) on axis W"},
    {"GradOutputSpatialMismatch", [](ConvCall& c) { c.dy = {2, 6, 5, 6}; }, kInvalid,
     "gradOutput shape [2, 6, 5, 6] does not match the convolution of input [2, 4, 6, 6] with weight [6, 2, 3, 3]: expected [2, 6, 6, 6]"},
    {"FourValuePaddingSizes", [](ConvCall& c) { c.padding = {1, 0, 1, 1}; }, kInvalid, "expected [2, 6, 5, 6]"},
    {"TransposedGradOutputMismatch", [](ConvCall& c) { makeTransposed(c); c.outputPadding = {0, 0}; }, kInvalid,
     "does not match the transposed convolution of input [2, 4, 3, 3] with weight [4, 3, 3, 3]: expected [2, 6, 5, 5]"},
    {"TransposedOutputNotPositive", [](ConvCall& c) { makeTransposed(c); c.x = {2, 4, 1, 1}; c.stride = {1, 1}; c.padding = {2, 2}; c.outputPadding = {0, 0}; },
     kInvalid, "transposed convolution output size (1 - 1) * 1 - 2 - 2 + 3 + 0 = -1 on axis H is not positive"},
    {"PaddingOverflow", [](ConvCall& c) { c.padding = {1, 9223372036854775807}; }, kInvalid, "padding overflows int64"},
    {"TransposedOutputSizeOverflow",
     [](ConvCall& c) { makeTransposed(c); c.stride = {4611686018427387904, 2}; c.outputPadding = {0, 1}; }, kInvalid,
     "the output size overflows int64"},
    {"BiasSizesLength", [](ConvCall& c) { c.biasSizes = std::vector<int64_t>{6, 1}; }, kInvalid, "biasSizes [6, 1] has 2 values; expected 1"},
    {"BiasSizesValue", [](ConvCall& c) { c.biasSizes = std::vector<int64_t>{4}; }, kInvalid, "biasSizes [4] must equal [weight.shape[0]] = [6]"},
    {"TransposedBiasSizesValue", [](ConvCall& c) { makeTransposed(c); c.biasSizes = std::vector<int64_t>{4}; }, kInvalid,
     "biasSizes [4] must equal [weight.shape[1] * groups] = [6]"},
    // op_api's unit test expects ACLNN_ERR_PARAM_INVALID here (its CheckEmptyTensor).
    {"BiasSizesNullWithEmptyInput", [](ConvCall& c) { c.x = {0, 4, 6, 6}; c.dy = {0, 6, 6, 6}; c.nullBiasSizes = true; }, kInvalid,
     "biasSizes is null, but input is empty and outputMask[2] (gradBias) is true"},
    {"GradInputShape", [](ConvCall& c) { c.dx = {2, 4, 6, 7}; }, kInvalid, "gradInput shape [2, 4, 6, 7] must equal input shape [2, 4, 6, 6]"},
    {"GradWeightShape", [](ConvCall& c) { c.dw = {6, 2, 3, 1}; }, kInvalid, "gradWeight shape [6, 2, 3, 1] must equal weight shape [6, 2, 3, 3]"},
    {"GradBiasShape", [](ConvCall& c) { c.db = {1, 6}; }, kInvalid, "gradBias shape [1, 6] must be [6] (the gradOutput channels)"},
    // 7. Atlas A2/A3 limits (transposed = false).
    {"GroupsAbove65535", [](ConvCall& c) { c.setShapes({1, 65536, 1, 1}, {65536, 1, 1, 1}, {1, 65536, 1, 1}); c.groups = 65536; }, kInvalid,
     "groups = 65536 is outside [1, 65535] on Atlas A2 training series"},
    {"KernelW256", [](ConvCall& c) { c.setShapes({1, 1, 1, 256}, {1, 1, 1, 256}, {1, 1, 1, 1}); }, kInvalid,
     "weight W = 256 is outside [1, 255]"},
    {"KernelW256OnA3", [](ConvCall& c) { c.setShapes({1, 1, 1, 256}, {1, 1, 1, 256}, {1, 1, 1, 1}); }, kInvalid,
     "weight W = 256 is outside [1, 255] on Atlas A3", kA3},
    {"KernelL256", [](ConvCall& c) { c.setShapes({1, 1, 256}, {1, 1, 256}, {1, 1, 1}); }, kInvalid, "weight L = 256 is outside [1, 255]"},
    {"Kernel3dH256", [](ConvCall& c) { c.setShapes({1, 1, 1, 256, 1}, {1, 1, 1, 256, 1}, {1, 1, 1, 1, 1}); }, kInvalid,
     "weight H = 256 is outside [1, 255]"},
    {"Padding256", [](ConvCall& c) { c.setShapes({1, 1, 4, 4}, {1, 1, 1, 1}, {1, 1, 516, 4}); c.padding = {256, 0}; }, kInvalid,
     "paddingH = 256 is outside [0, 255]"},
    {"FourValuePadding256", [](ConvCall& c) { c.setShapes({1, 1, 4, 4}, {1, 1, 1, 1}, {1, 1, 4, 260}); c.padding = {0, 0, 0, 256}; }, kInvalid,
     "paddingW (end) = 256 is outside [0, 255]"},
    {"Padding3dW256", [](ConvCall& c) { c.setShapes({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 513}); c.padding = {0, 0, 256}; }, kInvalid,
     "paddingW = 256 is outside [0, 255]"},
    {"Dilation256", [](ConvCall& c) { c.setShapes({1, 1, 1, 257}, {1, 1, 1, 2}, {1, 1, 1, 1}); c.dilation = {1, 256}; }, kInvalid,
     "dilationW = 256 is outside [1, 255]"},
    {"Stride3dH64", [](ConvCall& c) { c.setShapes({1, 1, 1, 65, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 2, 1}); c.stride = {1, 64, 1}; }, kInvalid,
     "strideH = 64 is outside [1, 63]"},
    {"StrideAbove2147483646", [](ConvCall& c) { c.setShapes({1, 1, 4}, {1, 1, 1}, {1, 1, 1}); c.stride = {2147483647}; }, kInvalid,
     "strideL = 2147483647 is outside [1, 2147483646]"},
    });
// clang-format on

INSTANTIATE_TEST_SUITE_P(Documented, ConvolutionBackwardErrors, ::testing::ValuesIn(kCases),
                         [](const auto& p) { return std::string(p.param.name); });

// The boundaries of the product limits, and where the limits do not apply.
struct ValidCase {
    const char* name;
    std::function<void(ConvCall&)> setUp;
    Product product = Product::AtlasA2;
};

class ConvolutionBackwardLimits : public ::testing::TestWithParam<ValidCase> {
protected:
    void TearDown() override { setProduct(Product::AtlasA2); }
};

TEST_P(ConvolutionBackwardLimits, Accepted) {
    setProduct(GetParam().product);
    ConvCall call;
    GetParam().setUp(call);
    EXPECT_EQ(phase1Status(call), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

// clang-format off
const ValidCase kValid[] = {
    {"BaseCall", [](ConvCall&) {}},
    {"Groups65535", [](ConvCall& c) { c.setShapes({1, 65535, 1, 1}, {65535, 1, 1, 1}, {1, 65535, 1, 1}); c.groups = 65535; }},
    {"TransposedGroups65536", [](ConvCall& c) { c.setShapes({1, 65536, 1, 1}, {65536, 1, 1, 1}, {1, 65536, 1, 1}); c.groups = 65536; c.transposed = true; }},
    {"KernelW255", [](ConvCall& c) { c.setShapes({1, 1, 1, 255}, {1, 1, 1, 255}, {1, 1, 1, 1}); }},
    {"TransposedKernelW256", [](ConvCall& c) { c.setShapes({1, 1, 1, 1}, {1, 1, 1, 256}, {1, 1, 1, 256}); c.transposed = true; }},
    {"KernelW256OnTraining", [](ConvCall& c) { c.setShapes({1, 1, 1, 256}, {1, 1, 1, 256}, {1, 1, 1, 1}); c.cube = 1; }, Product::AtlasTraining},
    {"Kernel3dD256", [](ConvCall& c) { c.setShapes({1, 1, 256, 1, 1}, {1, 1, 256, 1, 1}, {1, 1, 1, 1, 1}); }},
    {"Padding255", [](ConvCall& c) { c.setShapes({1, 1, 4, 4}, {1, 1, 1, 1}, {1, 1, 514, 4}); c.padding = {255, 0}; }},
    {"Padding3dD256", [](ConvCall& c) { c.setShapes({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 513, 1, 1}); c.padding = {256, 0, 0}; }},
    {"Stride3dD64", [](ConvCall& c) { c.setShapes({1, 1, 65, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 2, 1, 1}); c.stride = {64, 1, 1}; }},
    {"Stride3dH63", [](ConvCall& c) { c.setShapes({1, 1, 1, 64, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 2, 1}); c.stride = {1, 63, 1}; }},
    {"Stride2d64", [](ConvCall& c) { c.setShapes({1, 1, 65, 1}, {1, 1, 1, 1}, {1, 1, 2, 1}); c.stride = {64, 1}; }},
    {"Bf16Depthwise3d", [](ConvCall& c) { c.setShapes({1, 4, 3, 3, 3}, {4, 1, 1, 1, 1}, {1, 4, 3, 3, 3}); c.groups = 4; c.tx = c.tw = c.tdy = DType::BFloat16; }},
    // op_api's CheckConvChannelAndGroup / CheckParamsGroup only check divisibility (README, Decisions).
    {"Bf16Grouped3dNotDepthwise", [](ConvCall& c) { c.setShapes({1, 6, 3, 3, 3}, {4, 3, 1, 1, 1}, {1, 4, 3, 3, 3}); c.groups = 2; c.tx = c.tw = c.tdy = DType::BFloat16; }},
    {"Fp32Grouped3d", [](ConvCall& c) { c.setShapes({1, 4, 3, 3, 3}, {4, 2, 1, 1, 1}, {1, 4, 3, 3, 3}); c.groups = 2; }},
    {"MixedDtypesPromote", [](ConvCall& c) { c.tx = DType::Float16; c.tw = DType::BFloat16; }},
    {"Fp16AnyModeOnTraining", [](ConvCall& c) { c.tx = c.tw = c.tdy = DType::Float16; c.cube = 3; }, Product::AtlasTraining},
    {"OutputPaddingBelowDilation", [](ConvCall& c) { makeTransposed(c); c.dilation = {1, 3}; c.outputPadding = {1, 2}; c.dy = {2, 6, 6, 11}; }},
    {"OutputPaddingIgnoredWithoutTransposed", [](ConvCall& c) { c.outputPadding = {3, 3}; }},
    {"MaskedOffOutputsMayBeNull", [](ConvCall& c) { c.mask = {false, true, false}; c.nullDx = c.nullDb = true; }},
    {"BiasSizesMayBeNull", [](ConvCall& c) { c.nullBiasSizes = true; }},
    {"EmptyInputWithoutBiasNeedsNoBiasSizes", [](ConvCall& c) { c.x = {0, 4, 6, 6}; c.dy = {0, 6, 6, 6}; c.nullBiasSizes = true; c.mask = {true, true, false}; }},
    {"NDFormats", [](ConvCall& c) { c.fx = c.fw = c.fdy = ACL_FORMAT_ND; }},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Products, ConvolutionBackwardLimits, ::testing::ValuesIn(kValid),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(ConvolutionBackwardRuntime, NullOrSmallWorkspaceIsARuntimeError) {
    ConvCall c;
    DeviceTensor x = DeviceTensor::zeros(DType::Float32, c.x), w = DeviceTensor::zeros(DType::Float32, c.w);
    DeviceTensor dy = DeviceTensor::zeros(DType::Float32, c.dy), dx = DeviceTensor::zeros(DType::Float32, c.x);
    ConvGradInputCall call;
    ASSERT_ACLNN_OK(call.plan(dy, x, w, 2, dx));
    expectWorkspaceChecked(aclnnConvolutionBackward, call.ws, call.exe);
}

}  // namespace
}  // namespace opscope::test
