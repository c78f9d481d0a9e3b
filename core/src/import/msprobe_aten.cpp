// The aten backward ops msprobe dumps as "Aten.<op>.<overload>.<n>" (its hook on torch.ops.aten:
// custom autograd Functions and compiled graphs call them directly), as aclnn cases:
//   convolution_backward        -> aclnnConvolutionBackward
//   native_group_norm_backward  -> aclnnGroupNormBackward
//   grid_sampler_2d_backward    -> aclnnGridSampler2DBackward
// Each is the backward itself: its arguments are the operator's, as the device got them (the
// group norm's mean and rstd are the device forward's own), and its outputs are the device's
// gradients. An output the call's output_mask leaves out, or the dump does not hold, is masked off.
#include <array>

#include "msprobe_case_parts.h"
#include "opscope/import/msprobe.h"

namespace opscope::import::msprobe::detail {
namespace {

// A positional argument aten requires (its schema has no defaults for these).
const json& required(const Call& call, std::size_t pos, const char* name) {
    const json* v = call.arg(pos, name);
    if (!v) throw Unsupported(std::string(name) + " (argument " + std::to_string(pos) + ") is not in the dump");
    return *v;
}

const json& requiredTensor(const Call& call, std::size_t pos, const char* name) {
    const json& t = required(call, pos, name);
    if (!isTensor(&t)) throw Unsupported(std::string(name) + " is " + t.dump() + ", not a tensor");
    return t;
}

struct LeadingTensor {
    const char* input;  // the operator's
    const char* arg;    // aten's
};

// The call's first tensor arguments, in aten's order, as the case's floating inputs.
void addLeadingTensors(cases::Case& c, const Call& call, std::initializer_list<LeadingTensor> tensors) {
    std::size_t pos = 0;
    for (const LeadingTensor& t : tensors)
        addFloatingInputs(c, call, {{t.input, &requiredTensor(call, pos++, t.arg), t.arg}});
}

// output_mask as passed, each entry kept only where the dump holds that gradient; the gradients
// go into the source "npu" under the operator's output names.
std::vector<bool> deviceGradients(cases::Case& c, const Call& call, std::size_t maskPos,
                                  std::initializer_list<const char*> outputs) {
    const std::vector<int64_t> asked = intList(required(call, maskPos, "output_mask"), "output_mask");
    if (asked.size() != outputs.size())
        throw Unsupported("output_mask has " + std::to_string(asked.size()) + " values; " + c.op + " returns " +
                          std::to_string(outputs.size()) + " gradients");
    std::vector<bool> mask;
    bool any = false;
    std::size_t i = 0;
    for (const char* name : outputs) {
        const json* g = asked[i] ? call.forwardOutput(i) : nullptr;
        mask.push_back(isTensor(g) &&
                       addGradient(c, call, g, name, std::string(name) + " (output " + std::to_string(i) + ")"));
        any = any || mask.back();
        ++i;
    }
    if (!any) throw Unsupported("the call returned no gradient the dump holds (output_mask and outputs)");
    return mask;
}

const char* enumName(const json& v, const std::array<const char*, 3>& names, const char* what) {
    const int64_t i = intValue(v, what);
    if (i < 0 || i >= static_cast<int64_t>(names.size()))
        throw Unsupported(std::string(what) + " is " + std::to_string(i) + ", which is none of 0 (" + names[0] +
                          "), 1 (" + names[1] + "), 2 (" + names[2] + ")");
    return names[static_cast<std::size_t>(i)];
}

}  // namespace

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
//                      transposed, output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias)
cases::Case atenConvolutionCase(const Call& call, const DeviceSettings& device) {
    cases::Case c = newCase(call, "aclnnConvolutionBackward");
    addLeadingTensors(c, call, {{"gradOutput", "grad_output"}, {"input", "input"}, {"weight", "weight"}});
    const std::vector<int64_t> wShape = c.input("weight")->shape();
    const std::vector<int64_t> xShape = c.input("input")->shape();
    if (wShape.size() < 3 || wShape.size() > 5 || xShape.size() != wShape.size())
        throw Unsupported("input " + shapeToString(xShape) + " and weight " + shapeToString(wShape) +
                          " are not a batched 1-D, 2-D or 3-D convolution");
    const std::size_t spatial = wShape.size() - 2;
    const auto axes = [&](std::size_t pos, const char* name) {
        return perDim(intList(required(call, pos, name), name), spatial, name);
    };
    c.params.push_back({"stride", axes(4, "stride")});
    c.params.push_back({"padding", axes(5, "padding")});
    c.params.push_back({"dilation", axes(6, "dilation")});
    c.params.push_back({"transposed", boolValue(required(call, 7, "transposed"), "transposed")});
    c.params.push_back({"outputPadding", axes(8, "output_padding")});
    c.params.push_back({"groups", intValue(required(call, 9, "groups"), "groups")});
    c.params.push_back({"outputMask", deviceGradients(c, call, 10, {"gradInput", "gradWeight", "gradBias"})});
    if (const json* biasSizes = call.arg(3, "bias_sizes"))
        c.params.push_back({"biasSizes", intList(*biasSizes, "bias_sizes")});
    c.params.push_back({"cubeMathType", int64_t{torchNpuCubeMathType(device)}});
    return c;
}

// native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
//   -> (grad_input, grad_weight, grad_bias)
cases::Case atenGroupNormCase(const Call& call) {
    cases::Case c = newCase(call, "aclnnGroupNormBackward");
    addLeadingTensors(c, call, {{"gradOut", "grad_out"}, {"input", "input"}, {"mean", "mean"}, {"rstd", "rstd"}});
    if (const json* weight = call.arg(4, "weight")) addFloatingInputs(c, call, {{"gamma", weight, "weight"}});
    c.params.push_back({"N", intValue(required(call, 5, "N"), "N")});
    c.params.push_back({"C", intValue(required(call, 6, "C"), "C")});
    c.params.push_back({"HxW", intValue(required(call, 7, "HxW"), "HxW")});
    c.params.push_back({"group", intValue(required(call, 8, "group"), "group")});
    c.params.push_back({"outputMask", deviceGradients(c, call, 9, {"gradInput", "gradGammaOut", "gradBetaOut"})});
    c.description += "; mean and rstd as the device's forward saved them";
    return c;
}

// grid_sampler_2d_backward(grad_output, input, grid, interpolation_mode, padding_mode,
//                          align_corners, output_mask) -> (grad_input, grad_grid)
// The two modes are PyTorch's GridSamplerInterpolation and GridSamplerPadding, aclnn's order too.
cases::Case atenGridSamplerCase(const Call& call) {
    cases::Case c = newCase(call, "aclnnGridSampler2DBackward");
    addLeadingTensors(c, call, {{"gradOutput", "grad_output"}, {"input", "input"}, {"grid", "grid"}});
    c.params.push_back(
        {"interpolationMode", std::string(enumName(required(call, 3, "interpolation_mode"),
                                                   {"bilinear", "nearest", "bicubic"}, "interpolation_mode"))});
    c.params.push_back({"paddingMode", std::string(enumName(required(call, 4, "padding_mode"),
                                                            {"zeros", "border", "reflection"}, "padding_mode"))});
    c.params.push_back({"alignCorners", boolValue(required(call, 5, "align_corners"), "align_corners")});
    c.params.push_back({"outputMask", deviceGradients(c, call, 6, {"inputGrad", "gridGrad"})});
    return c;
}

}  // namespace opscope::import::msprobe::detail
