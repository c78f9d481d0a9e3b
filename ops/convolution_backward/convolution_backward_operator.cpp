// aclnnConvolutionBackward as data: schema, C-API binding and float64 reference.
#include "../registry/builtin_operators.h"
#include "convolution_backward_checks.h"
#include "dtype_promotion.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "opscope/metrics.h"
#include "opscope/ops/attribute_defaults.h"
#include "opscope/reference/convolution.h"

#include <algorithm>

namespace opscope::ops {
namespace {

// Expands a per-dimension attribute given as one value or one per spatial dimension.
std::vector<int64_t> perDim(const std::vector<int64_t>& v, std::size_t spatial, const char* name) {
    if (v.size() == spatial) return v;
    if (v.size() == 1) return std::vector<int64_t>(spatial, v[0]);
    throw ArgumentError(std::string(name) + " has " + std::to_string(v.size()) + " values for " +
                        std::to_string(spatial) + " spatial dimensions");
}

// The golden multiplies what the cube multiplies: under HF32 or fp16 arithmetic (cubeMathType on
// this product, README "Precision emulation") gradInput and gradWeight are the exact result of
// the rounded operands, so a correct HF32 kernel is judged by its float32 accumulation and not
// failed for the precision its caller chose (torch_npu's default on Atlas A2). A combination the
// product refuses keeps the operands as stored: it never gets as far as a verdict.
DType promotedOf(const OpArguments& a) {
    return conv::promoteDtype(conv::promoteDtype(a.tensor("gradOutput").dtype(), a.tensor("input").dtype()),
                              a.tensor("weight").dtype());
}

conv::CubePrecision cubePrecisionOf(const OpArguments& a, Product product) {
    try {
        return conv::resolveCubePrecision(product, promotedOf(a), static_cast<int8_t>(a.intAttr("cubeMathType")));
    } catch (const StatusError&) {
        return conv::CubePrecision::Float32;
    }
}

std::vector<double> asTheCubeSees(const HostTensor& t, conv::CubePrecision precision) {
    std::vector<double> v = t.toDoubles();
    switch (conv::cubeRoundingOf(precision, t.dtype())) {
        case kernels::CubeRounding::HF32:
            for (double& e : v) e = reference::roundToHFloat32(e);
            break;
        case kernels::CubeRounding::FP16:
            for (double& e : v) e = metrics::roundToDtype(e, DType::Float16);
            break;
        case kernels::CubeRounding::None: break;
    }
    return v;
}

class ConvolutionBackwardOperator final : public Operator {
public:
    ConvolutionBackwardOperator()
        : Operator({
              "aclnnConvolutionBackward",
              "convolution_backward",
              "Gradients of 1-D/2-D/3-D (transposed) convolution with respect to input, weight and bias",
              {tensorArg("gradOutput", "gradient of the forward output [N, Cout, ...]"),
               tensorArg("input", "forward input [N, Cin, ...]"),
               tensorArg("weight", "[Cout, Cin/groups, k...] ([Cin, Cout/groups, k...] when transposed)")},
              {intArrayArg("biasSizes", "[Cout] (may be absent unless gradBias is wanted for empty input)", {}, true),
               intArrayArg("stride", "one per spatial dimension", {1}),
               intArrayArg("padding", "one per spatial dimension (2-D: or top, bottom, left, right)", {0}),
               intArrayArg("dilation", "one per spatial dimension", {1}),
               boolArg("transposed", "transposed (fractionally strided) convolution", false),
               intArrayArg("outputPadding", "transposed only: extra size on one side", {0}),
               intArg("groups", "channel groups", 1),
               boolArrayArg("outputMask", "[gradInput, gradWeight, gradBias]", {true, true, true}),
               enumArg("cubeMathType", "precision of the cube unit",
                       {"KEEP_DTYPE", "ALLOW_FP32_DOWN_PRECISION", "USE_FP16", "USE_HF32"}, 0)},
              "outputMask",
              {{"gradInput", 0}, {"gradWeight", 1}, {"gradBias", 2}},
              TensorFormats::ChannelsFirst,
          }) {}

private:
    // Schema defaults are one value; an argument the caller left out gets one per spatial
    // dimension, as the device requires (the rule the debugger's form prefills with).
    void completeDefaults(OpArguments& a, const OpArguments& given) const override {
        TensorShapes shapes;
        for (const auto& [name, t] : a.tensors) shapes[name] = t.shape();
        const ImpliedAttributes implied = impliedAttributes(schema(), shapes, a.attributes);
        for (const auto& [name, value] : implied.values)
            if (!given.hasAttr(name)) a.attributes[name] = value;
    }

    int32_t getWorkspaceSize(PreparedCall& call, uint64_t* ws, aclOpExecutor** exe) const override {
        const OpArguments& a = call.arguments();
        const HostTensor& gy = a.tensor("gradOutput");
        const HostTensor& x = a.tensor("input");
        const HostTensor& w = a.tensor("weight");
        aclTensor* tGy = call.inputTensor("gradOutput");
        aclTensor* tX = call.inputTensor("input");
        aclTensor* tW = call.inputTensor("weight");
        const std::vector<bool> mask = a.boolArrayAttr("outputMask");
        const std::vector<int64_t> biasSizes = a.intArrayAttr("biasSizes");
        const bool transposed = a.boolAttr("transposed");
        const int64_t groups = a.intAttr("groups");
        int64_t biasLen = biasSizes.empty() ? 0 : biasSizes[0];
        if (biasSizes.empty() && w.rank() >= 2) biasLen = transposed ? w.shape()[1] * groups : w.shape()[0];
        aclTensor* gi = maskSelects(mask, 0)
                            ? call.outputTensor("gradInput", conv::promoteDtype(x.dtype(), gy.dtype()), x.shape())
                            : nullptr;
        aclTensor* gw = maskSelects(mask, 1)
                            ? call.outputTensor("gradWeight", conv::promoteDtype(w.dtype(), gy.dtype()), w.shape())
                            : nullptr;
        aclTensor* gb = maskSelects(mask, 2) ? call.outputTensor("gradBias", gy.dtype(), {biasLen}) : nullptr;
        aclIntArray* bias = biasSizes.empty() ? nullptr : call.intArray(biasSizes);
        aclIntArray* stride = call.intArray(a.intArrayAttr("stride"));
        aclIntArray* padding = call.intArray(a.intArrayAttr("padding"));
        aclIntArray* dilation = call.intArray(a.intArrayAttr("dilation"));
        aclIntArray* outputPadding = call.intArray(a.intArrayAttr("outputPadding"));
        aclBoolArray* outputMask = call.boolArray(mask);
        const auto cube = static_cast<int8_t>(a.intAttr("cubeMathType"));
        return aclnnConvolutionBackwardGetWorkspaceSize(tGy, tX, tW, bias, stride, padding, dilation, transposed,
                                                        outputPadding, static_cast<int>(groups), outputMask, cube, gi,
                                                        gw, gb, ws, exe);
    }

    // The arithmetics a float32 call may have run in on the device that its arguments do not show:
    // a dump records neither torch_npu.npu.conv.allow_hf32 (cubeMathType 3 or 0 on A2/A3) nor the
    // device, and torch_npu's precision mode multiplies fp16 operands on the training and inference
    // series (op-plugin's CalcuOpUtil::GetCubeMathType; docs/MSPROBE.md).
    std::vector<ArithmeticVariant> arithmeticVariants(const OpArguments& args, Product product) const override {
        const OpArguments a = withDefaults(args);
        if (promotedOf(a) != DType::Float32) return {};
        const conv::CubePrecision precision = cubePrecisionOf(a, product);
        std::vector<ArithmeticVariant> out;
        auto add = [&](int64_t mode, std::optional<Product> on, std::string label, std::string advice) {
            ArithmeticVariant v{std::move(label), std::move(advice), a, on};
            v.args.attributes["cubeMathType"] = mode;
            out.push_back(std::move(v));
        };
        const std::string hf32On =
            "import the dump without --conv-allow-hf32 false (the debugger: check File > Dumps "
            "Ran with Conv HF32)";
        if (isA2Generation(product)) {
            if (precision == conv::CubePrecision::HFloat32)
                add(0, std::nullopt, "float32 operands (cubeMathType 0, KEEP_DTYPE)",
                    "the run had torch_npu.npu.conv.allow_hf32 = False: import the dump with --conv-allow-hf32 false "
                    "(the debugger: uncheck File > Dumps Ran with Conv HF32)");
            if (precision == conv::CubePrecision::Float32)
                add(3, std::nullopt, "HF32 operands (cubeMathType 3, USE_HF32)",
                    "the run kept torch_npu's default torch_npu.npu.conv.allow_hf32 = True: " + hf32On);
            if (precision != conv::CubePrecision::Float16)
                add(2, std::nullopt, "fp16 operands (cubeMathType 2, USE_FP16)",
                    "the dump comes from an Atlas training-series device, whose precision mode multiplies float32 in "
                    "fp16: import it with --product training (the debugger: File > Dumps Came From)");
            return out;
        }
        if (precision == conv::CubePrecision::Float16) {  // a training or inference series device
            const std::string fromA2 = "the dump comes from an Atlas A2/A3 device: import it with --product a2";
            add(3, Product::AtlasA2, "HF32 operands, as Atlas A2/A3 multiply float32 (cubeMathType 3, USE_HF32)",
                fromA2 + " (the debugger: File > Dumps Came From)");
            add(0, Product::AtlasA2, "float32 operands, as Atlas A2/A3 with allow_hf32 off (cubeMathType 0)",
                fromA2 +
                    " --conv-allow-hf32 false (the debugger: File > Dumps Came From, and uncheck File > Dumps Ran "
                    "with Conv HF32)");
        }
        return out;
    }

    std::map<std::string, HostTensor> golden(const OpArguments& a, Product product) const override {
        const HostTensor& gy = a.tensor("gradOutput");
        const HostTensor& x = a.tensor("input");
        const HostTensor& w = a.tensor("weight");
        if (x.rank() < 3 || x.rank() > 5) throw ArgumentError("input must be 3-D, 4-D or 5-D");
        const auto spatial = static_cast<std::size_t>(x.rank() - 2);
        reference::ConvParams p;
        p.stride = perDim(a.intArrayAttr("stride"), spatial, "stride");
        p.dilation = perDim(a.intArrayAttr("dilation"), spatial, "dilation");
        p.outputPadding = perDim(a.intArrayAttr("outputPadding"), spatial, "outputPadding");
        const std::vector<int64_t> pad = a.intArrayAttr("padding");
        if (spatial == 2 && pad.size() == 4) {
            p.padBegin = {pad[0], pad[2]};
            p.padEnd = {pad[1], pad[3]};
        } else {
            p.padBegin = p.padEnd = perDim(pad, spatial, "padding");
        }
        p.groups = a.intAttr("groups");
        p.transposed = a.boolAttr("transposed");
        const conv::CubePrecision precision = cubePrecisionOf(a, product);
        auto r = reference::convBackward(asTheCubeSees(gy, precision), gy.shape(), asTheCubeSees(x, precision),
                                         x.shape(), asTheCubeSees(w, precision), w.shape(), p);
        if (conv::cubeRoundingOf(precision, gy.dtype()) != kernels::CubeRounding::None)
            r.gradBias = reference::convBiasGrad(gy.toDoubles(), gy.shape());  // the vector unit: dy as given
        return maskedGolden(a.boolArrayAttr("outputMask"),
                            {{"gradInput", x.shape(), r.gradInput},
                             {"gradWeight", w.shape(), r.gradWeight},
                             {"gradBias", {static_cast<int64_t>(r.gradBias.size())}, r.gradBias}});
    }
};

}  // namespace

const Operator& convolutionBackwardOperator() {
    static const ConvolutionBackwardOperator op;
    return op;
}

}  // namespace opscope::ops
