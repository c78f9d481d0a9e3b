// The four PyTorch calls OpScope replays, as aclnn cases (see docs/MSPROBE.md):
//   conv1d/2d/3d, conv_transpose1d/2d/3d, Conv*d modules,
//   torch_npu.npu_conv2d/3d, npu_convolution(_transpose), npu_conv_transpose2d
//                                                           -> aclnnConvolutionBackward
//   group_norm, GroupNorm modules                           -> aclnnGroupNormBackward
//   torch_npu.npu_rms_norm                                  -> aclnnRmsNormGrad
//   grid_sample (4-D)                                       -> aclnnGridSampler2DBackward
// Arguments follow PyTorch's signatures and defaults; the device's gradients become the
// source "npu" (role actual), judged against OpScope's float64 golden.
#include <cmath>

#include "msprobe_case_parts.h"
#include "opscope/import/format_error.h"
#include "opscope/import/msprobe.h"
#include "opscope/printf_text.h"

namespace opscope::import::msprobe::detail {
namespace {

void requireFloating(const HostTensor& t, const std::string& what, const char* op) {
    if (t.dtype() == DType::Float32 || t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16) return;
    throw Unsupported(what + " is " + dtypeName(t.dtype()) + "; " + op + " takes float32, float16 and bfloat16");
}

}  // namespace

cases::Case newCase(const Call& call, const char* op) {
    cases::Case c;
    c.op = op;
    c.description = call.description;
    cases::OutputSource npu;
    npu.name = kDeviceSource;
    npu.role = cases::SourceRole::Actual;
    npu.description = "the gradients the NPU computed (msprobe dump)";
    c.sources.push_back(std::move(npu));
    return c;
}

void addFloatingInputs(cases::Case& c, const Call& call, std::initializer_list<DumpedInput> inputs) {
    for (const DumpedInput& in : inputs) c.inputs.emplace_back(in.name, call.tensor(in.tensor, in.what));
    for (const auto& [name, t] : c.inputs) requireFloating(t, name, c.op.c_str());
}

bool addGradient(cases::Case& c, const Call& call, const json* g, const char* output, const std::string& what) {
    if (!g) return false;
    c.sources[0].tensors.emplace_back(output, call.tensor(g, what));
    return true;
}

std::vector<int64_t> perDim(const std::vector<int64_t>& v, std::size_t spatial, const std::string& what) {
    if (v.size() == spatial) return v;
    if (v.size() == 1) return std::vector<int64_t>(spatial, v[0]);
    throw Unsupported(what + " has " + std::to_string(v.size()) + " values for " + std::to_string(spatial) +
                      " spatial dimensions");
}

namespace {

std::vector<int64_t> intsOr(const json* v, int64_t fallback, std::size_t spatial, const std::string& what) {
    return perDim(v ? intList(*v, what) : std::vector<int64_t>{fallback}, spatial, what);
}

// An L0 module does not dump its stride and padding: find the one (stride, padding) per axis,
// with dilation 1 and padding at most half the kernel, that gives the dumped output size.
struct AxisGuess {
    int64_t stride = 1, padding = 0, outputPadding = 0;
};

std::vector<AxisGuess> guessAxes(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                                 const std::vector<int64_t>& kernel, bool transposed, const std::string& call) {
    std::vector<AxisGuess> axes;
    for (std::size_t i = 0; i < kernel.size(); ++i) {
        std::vector<AxisGuess> fits;
        const int64_t k = kernel[i];
        for (int64_t s = 1; s <= std::max<int64_t>(k, 1); ++s)
            for (int64_t p = 0; 2 * p <= k - 1; ++p)
                for (int64_t op = 0; op < (transposed ? s : 1); ++op) {
                    const int64_t o = transposed ? (in[i] - 1) * s - 2 * p + (k - 1) + op + 1
                                                 : (in[i] + 2 * p - k >= 0 ? (in[i] + 2 * p - k) / s + 1 : -1);
                    if (o == out[i]) fits.push_back({s, p, op});
                }
        if (fits.size() != 1) {
            std::string options;
            for (const AxisGuess& g : fits)
                options += (options.empty() ? "" : "; ") + std::string("stride ") + std::to_string(g.stride) +
                           " padding " + std::to_string(g.padding);
            throw Unsupported("an L0 dump does not record " + call + "'s stride and padding, and axis " +
                              std::to_string(i) + " (" + std::to_string(in[i]) + " -> " + std::to_string(out[i]) +
                              ", kernel " + std::to_string(k) + ") fits " +
                              (fits.empty() ? std::string("none of the usual ones") : options) +
                              "; dump at level L1 or mix to replay it");
        }
        axes.push_back(fits[0]);
    }
    return axes;
}

// Stride, padding, dilation, output padding and groups of one convolution call.
struct ConvGeometry {
    std::vector<int64_t> stride, padding, dilation, outputPadding;
    int64_t groups = 1;
};

// padding='same' as PyTorch pads: total = dilation*(k-1) per axis, the odd one on the far side.
std::vector<int64_t> samePadding(const std::vector<int64_t>& kernel, const std::vector<int64_t>& dilation) {
    const std::size_t spatial = kernel.size();
    std::vector<int64_t> total(spatial), padding;
    bool even = true;
    for (std::size_t i = 0; i < spatial; ++i) {
        total[i] = dilation[i] * (kernel[i] - 1);
        even = even && total[i] % 2 == 0;
    }
    if (even) {
        for (int64_t t : total) padding.push_back(t / 2);
        return padding;
    }
    if (spatial == 2) return {total[0] / 2, total[0] - total[0] / 2, total[1] / 2, total[1] - total[1] / 2};
    throw Unsupported(
        "padding='same' with an even kernel pads one side more, which aclnn takes only for 2-D convolution");
}

// An L0 module records no arguments: groups from the channels, stride and padding from the shapes.
ConvGeometry moduleGeometry(const Call& call, const std::vector<int64_t>& xShape, const std::vector<int64_t>& wShape,
                            bool transposed) {
    const std::size_t spatial = wShape.size() - 2;
    const std::vector<int64_t> kernel(wShape.begin() + 2, wShape.end());
    const json* out = call.forwardOutput(0);
    if (!isTensor(out)) throw Unsupported("the module's forward output is not in the dump");
    const std::vector<int64_t> oShape = declaredShape(*out);
    const std::vector<int64_t> in(xShape.begin() + 2, xShape.end()), o(oShape.begin() + 2, oShape.end());
    const int64_t channels = transposed ? oShape[1] : xShape[1], perGroup = wShape[1];
    ConvGeometry g;
    g.outputPadding.assign(spatial, 0);
    g.groups = perGroup > 0 ? channels / perGroup : 0;
    if (g.groups < 1 || g.groups * perGroup != channels)
        throw Unsupported("cannot tell the groups from input " + shapeToString(xShape) + " and weight " +
                          shapeToString(wShape));
    for (const AxisGuess& a : guessAxes(in, o, kernel, transposed, call.name)) {
        g.stride.push_back(a.stride);
        g.padding.push_back(a.padding);
        if (transposed) g.outputPadding[g.stride.size() - 1] = a.outputPadding;
    }
    g.dilation.assign(spatial, 1);
    return g;
}

// Where each argument of a convolution call stands (PyTorch's and torch_npu's signatures):
//   conv, npu_conv2d/3d, npu_convolution:  (input, weight, bias, stride, padding, dilation, groups)
//   conv_transpose:                        (input, weight, bias, stride, padding, output_padding, groups, dilation)
//   npu_conv_transpose2d, npu_convolution_transpose:
//                                          (input, weight, bias, padding, output_padding, stride, dilation, groups)
struct ConvSignature {
    std::size_t stride, padding, outputPadding, groups, dilation;
};

ConvSignature signatureOf(const std::string& api, bool transposed) {
    if (!transposed) return {3, 4, 0, 6, 5};
    if (api.rfind("npu_", 0) == 0) return {5, 3, 4, 7, 6};
    return {3, 4, 5, 6, 7};
}

ConvGeometry functionalGeometry(const Call& call, const std::vector<int64_t>& wShape, bool transposed) {
    const std::size_t spatial = wShape.size() - 2;
    const ConvSignature at = signatureOf(call.api, transposed);
    ConvGeometry g;
    g.stride = intsOr(call.arg(at.stride, "stride"), 1, spatial, "stride");
    g.dilation = intsOr(call.arg(at.dilation, "dilation"), 1, spatial, "dilation");
    const json* groups = call.arg(at.groups, "groups");
    g.groups = groups ? intValue(*groups, "groups") : 1;
    g.outputPadding = transposed ? intsOr(call.arg(at.outputPadding, "output_padding"), 0, spatial, "output_padding")
                                 : std::vector<int64_t>(spatial, 0);
    const json* pad = call.arg(at.padding, "padding");
    if (!pad || !isString(*pad)) {
        g.padding = intsOr(pad, 0, spatial, "padding");
        return g;
    }
    const std::string mode = stringValue(*pad, "padding");
    if (mode == "valid")
        g.padding.assign(spatial, 0);
    else if (mode == "same")
        g.padding = samePadding(std::vector<int64_t>(wShape.begin() + 2, wShape.end()), g.dilation);
    else
        throw Unsupported("padding='" + mode + "' is neither 'same' nor 'valid'");
    return g;
}

// The tensors of the case and the device's gradients (source npu); returns the output mask.
std::vector<bool> convolutionTensors(cases::Case& c, const Call& call, const json* input, const json* weight,
                                     const json* bias) {
    addFloatingInputs(c, call,
                      {{"gradOutput", &call.incomingGradient(), "the output gradient"},
                       {"input", input, "the input"},
                       {"weight", weight, "the weight"}});
    const bool gi = addGradient(c, call, call.gradientOfArg(0), "gradInput", "the input's gradient");
    const bool gw = addGradient(c, call, call.module ? call.gradientOfParameter("weight") : call.gradientOfArg(1),
                                "gradWeight", "the weight's gradient");
    const bool gb = bias && addGradient(c, call, call.module ? call.gradientOfParameter("bias") : call.gradientOfArg(2),
                                        "gradBias", "the bias's gradient");
    if (!gi && !gw && !gb) throw Unsupported("the backward call has no gradient of input, weight or bias");
    return {gi, gw, gb};
}

}  // namespace

cases::Case convolutionCase(const Call& call, const DeviceSettings& device) {
    cases::Case c = newCase(call, "aclnnConvolutionBackward");
    const bool transposed = call.api.find("ranspose") != std::string::npos;  // conv_transpose2d, ConvTranspose2d
    const json* input = call.arg(0, "input");
    const json* weight = call.module ? call.parameter("weight") : call.arg(1, "weight");
    const json* bias = call.module ? call.parameter("bias") : call.arg(2, "bias");
    if (bias && !isTensor(bias)) throw Unsupported("bias is " + bias->dump() + ", not a tensor");
    if (!isTensor(input) || !isTensor(weight)) throw Unsupported("the forward call has no input or weight tensor");
    const std::vector<int64_t> wShape = declaredShape(*weight), xShape = declaredShape(*input);
    if (wShape.size() < 3 || wShape.size() > 5 || xShape.size() != wShape.size())
        throw Unsupported("input " + shapeToString(xShape) + " and weight " + shapeToString(wShape) +
                          " are not a batched 1-D, 2-D or 3-D convolution");
    const ConvGeometry g =
        call.module ? moduleGeometry(call, xShape, wShape, transposed) : functionalGeometry(call, wShape, transposed);
    if (call.module) c.description += "; stride and padding inferred from the shapes (L0 dumps do not record them)";
    const std::vector<bool> mask = convolutionTensors(c, call, input, weight, bias);
    c.params.push_back({"stride", g.stride});
    c.params.push_back({"padding", g.padding});
    c.params.push_back({"dilation", g.dilation});
    c.params.push_back({"transposed", transposed});
    c.params.push_back({"outputPadding", g.outputPadding});
    c.params.push_back({"groups", g.groups});
    c.params.push_back({"outputMask", mask});
    if (bias) c.params.push_back({"biasSizes", declaredShape(*bias)});
    c.params.push_back({"cubeMathType", int64_t{torchNpuCubeMathType(device)}});
    return c;
}

namespace {

// GroupNorm's forward statistics as the device's forward computes them: per (n, group), in
// float32 (here: float64 sums rounded once to float32), then held in the input's dtype.
void groupStatistics(const HostTensor& x, int64_t N, int64_t C, int64_t HxW, int64_t G, double eps, HostTensor* mean,
                     HostTensor* rstd) {
    *mean = HostTensor(x.dtype(), {N, G});
    *rstd = HostTensor(x.dtype(), {N, G});
    const std::vector<double> v = x.toDoubles();
    const int64_t count = C / G * HxW;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t g = 0; g < G; ++g) {
            const double* p = v.data() + (n * C + g * (C / G)) * HxW;
            double sum = 0;
            for (int64_t i = 0; i < count; ++i) sum += p[i];
            const double m = count ? sum / static_cast<double>(count) : 0;
            double sq = 0;
            for (int64_t i = 0; i < count; ++i) sq += (p[i] - m) * (p[i] - m);
            const double var = count ? sq / static_cast<double>(count) : 0;
            // Rounded once to float32, as the device's forward stores them.
            mean->setFromDouble(n * G + g, static_cast<double>(static_cast<float>(m)));
            rstd->setFromDouble(n * G + g, static_cast<double>(static_cast<float>(1.0 / std::sqrt(var + eps))));
        }
}

// An L0 GroupNorm module does not dump num_groups: the divisor of C whose normalisation
// reproduces the dumped forward output (eps = PyTorch's default).
int64_t guessGroups(const Call& call, const HostTensor& x, const HostTensor* gamma, int64_t N, int64_t C, int64_t HxW) {
    const json* out = call.forwardOutput(0);
    if (!isTensor(out))
        throw Unsupported(
            "an L0 dump does not record num_groups, and the forward output to infer it from is not dumped");
    const std::vector<double> y = call.tensor(out, "the forward output").toDoubles();
    const json* b = call.parameter("bias");
    const std::vector<double> beta = b ? call.tensor(b, "the bias").toDoubles() : std::vector<double>{};
    const std::vector<double> w = gamma ? gamma->toDoubles() : std::vector<double>{};
    int64_t best = 0;
    int matches = 0;
    double yNorm = 0;
    for (double v : y) yNorm += v * v;
    for (int64_t G = 1; G <= C; ++G) {
        if (C % G) continue;
        HostTensor mean, rstd;
        groupStatistics(x, N, C, HxW, G, 1e-5, &mean, &rstd);
        const std::vector<double> xv = x.toDoubles();
        double err = 0;
        for (int64_t n = 0; n < N; ++n)
            for (int64_t ch = 0; ch < C; ++ch)
                for (int64_t i = 0; i < HxW; ++i) {
                    const int64_t k = (n * C + ch) * HxW + i, g = n * G + ch / (C / G);
                    const double yy = (xv[static_cast<std::size_t>(k)] - mean.getAsDouble(g)) * rstd.getAsDouble(g) *
                                          (w.empty() ? 1.0 : w[static_cast<std::size_t>(ch)]) +
                                      (beta.empty() ? 0.0 : beta[static_cast<std::size_t>(ch)]);
                    err += (yy - y[static_cast<std::size_t>(k)]) * (yy - y[static_cast<std::size_t>(k)]);
                }
        if (std::sqrt(err) <= 1e-2 * std::sqrt(yNorm) + 1e-6) {
            best = G;
            ++matches;
        }
    }
    if (matches != 1)
        throw Unsupported("an L0 dump does not record num_groups, and " +
                          std::string(matches ? "several group counts reproduce" : "no group count reproduces") +
                          " the dumped forward output; dump at level L1 or mix to replay it");
    return best;
}

std::string formatEps(double eps) { return printfText("%g", eps); }

}  // namespace

cases::Case groupNormCase(const Call& call) {
    cases::Case c = newCase(call, "aclnnGroupNormBackward");
    // group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)
    const json* input = call.arg(0, "input");
    const json* weight = call.module ? call.parameter("weight") : call.arg(2, "weight");
    const json* bias = call.module ? call.parameter("bias") : call.arg(3, "bias");
    if (!isTensor(input)) throw Unsupported("the forward call has no input tensor");
    const std::vector<int64_t> shape = declaredShape(*input);
    if (shape.size() < 2) throw Unsupported("group_norm of a " + shapeToString(shape) + " input (needs [N, C, ...])");
    const int64_t N = shape[0], C = shape[1];
    int64_t HxW = 1;
    for (std::size_t i = 2; i < shape.size(); ++i) HxW *= shape[i];
    const json* eps = call.module ? nullptr : call.arg(4, "eps");
    const double epsilon = eps ? realValue(*eps, "eps") : 1e-5;

    const json* gradOut = &call.incomingGradient();
    HostTensor x = call.tensor(input, "the input");
    requireFloating(x, "input", "aclnnGroupNormBackward");
    std::optional<HostTensor> gamma;
    if (weight) gamma = call.tensor(weight, "the weight");
    int64_t G = 0;
    if (call.module) {
        G = guessGroups(call, x, gamma ? &*gamma : nullptr, N, C, HxW);
        c.description += "; num_groups inferred from the forward output, eps 1e-5 (L0 dumps do not record them)";
    } else {
        const json* g = call.arg(1, "num_groups");
        if (!g) throw Unsupported("group_norm without num_groups");
        G = intValue(*g, "num_groups");
    }
    if (G < 1 || C % G != 0)
        throw Unsupported("C (" + std::to_string(C) + ") is not divisible by num_groups (" + std::to_string(G) + ")");
    HostTensor mean, rstd;
    groupStatistics(x, N, C, HxW, G, epsilon, &mean, &rstd);
    c.description += "; mean and rstd recomputed from the input (eps " + formatEps(epsilon) + ")";

    c.inputs.emplace_back("gradOut", call.tensor(gradOut, "the output gradient"));
    c.inputs.emplace_back("input", std::move(x));
    c.inputs.emplace_back("mean", std::move(mean));
    c.inputs.emplace_back("rstd", std::move(rstd));
    if (gamma) c.inputs.emplace_back("gamma", std::move(*gamma));
    requireFloating(c.inputs[0].second, "gradOut", "aclnnGroupNormBackward");

    const bool gi = addGradient(c, call, call.gradientOfArg(0), "gradInput", "the input's gradient");
    const bool gg =
        weight && addGradient(c, call, call.module ? call.gradientOfParameter("weight") : call.gradientOfArg(2),
                              "gradGammaOut", "the weight's gradient");
    const bool gb = bias && addGradient(c, call, call.module ? call.gradientOfParameter("bias") : call.gradientOfArg(3),
                                        "gradBetaOut", "the bias's gradient");
    if (!gi && !gg && !gb) throw Unsupported("the backward call has no gradient of input, weight or bias");
    c.params.push_back({"N", N});
    c.params.push_back({"C", C});
    c.params.push_back({"HxW", HxW});
    c.params.push_back({"group", G});
    c.params.push_back({"outputMask", std::vector<bool>{gi, gg, gb}});
    return c;
}

cases::Case rmsNormCase(const Call& call) {
    cases::Case c = newCase(call, "aclnnRmsNormGrad");
    // torch_npu.npu_rms_norm(x, gamma, epsilon=1e-06) -> (y, rstd)
    const json* x = call.arg(0, "x");
    const json* gamma = call.arg(1, "gamma");
    const json* rstd = call.forwardOutput(1);
    const json* dy = call.backwardInput(0);
    if (!isTensor(x) || !isTensor(gamma)) throw Unsupported("the forward call has no x or gamma tensor");
    if (!isTensor(rstd)) throw Unsupported("the device's rstd (forward output 1) is not in the dump");
    if (!isTensor(dy)) throw Unsupported("the backward call has no incoming gradient of y (backward input 0)");
    addFloatingInputs(c, call,
                      {{"dy", dy, "the gradient of y"},
                       {"x", x, "x"},
                       {"rstd", rstd, "the device's rstd"},
                       {"gamma", gamma, "gamma"}});
    if (c.inputs[2].second.dtype() != DType::Float32)
        throw Unsupported(std::string("the device's rstd is ") + dtypeName(c.inputs[2].second.dtype()) +
                          "; aclnnRmsNormGrad takes a float32 rstd");
    const bool dx = addGradient(c, call, call.gradientOfArg(0), "dxOut", "x's gradient");
    const bool dg = addGradient(c, call, call.gradientOfArg(1), "dgammaOut", "gamma's gradient");
    if (!dx && !dg) throw Unsupported("the backward call has no gradient of x or gamma");
    return c;
}

cases::Case gridSampleCase(const Call& call) {
    cases::Case c = newCase(call, "aclnnGridSampler2DBackward");
    // grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None)
    const json* input = call.arg(0, "input");
    const json* grid = call.arg(1, "grid");
    if (!isTensor(input) || !isTensor(grid)) throw Unsupported("the forward call has no input or grid tensor");
    if (declaredShape(*input).size() != 4)
        throw Unsupported("a " + std::to_string(declaredShape(*input).size()) +
                          "-D grid_sample: OpScope has the 2-D sampler only (4-D input)");
    const json* mode = call.arg(2, "mode");
    const json* paddingMode = call.arg(3, "padding_mode");
    const json* align = call.arg(4, "align_corners");
    addFloatingInputs(c, call,
                      {{"gradOutput", &call.incomingGradient(), "the output gradient"},
                       {"input", input, "the input"},
                       {"grid", grid, "the grid"}});
    const bool gi = addGradient(c, call, call.gradientOfArg(0), "inputGrad", "the input's gradient");
    const bool gg = addGradient(c, call, call.gradientOfArg(1), "gridGrad", "the grid's gradient");
    if (!gi && !gg) throw Unsupported("the backward call has no gradient of input or grid");
    c.params.push_back({"interpolationMode", mode ? stringValue(*mode, "mode") : std::string("bilinear")});
    c.params.push_back({"paddingMode", paddingMode ? stringValue(*paddingMode, "padding_mode") : std::string("zeros")});
    c.params.push_back({"alignCorners", align ? boolValue(*align, "align_corners") : false});
    c.params.push_back({"outputMask", std::vector<bool>{gi, gg}});
    return c;
}

}  // namespace opscope::import::msprobe::detail

namespace opscope::import::msprobe {

int8_t torchNpuCubeMathType(const DeviceSettings& device) {
    const bool allowFp32ToFp16 = !isA2Generation(device.product);
    if (allowFp32ToFp16) return device.convAllowHf32 ? 1 : 2;  // ALLOW_FP32_DOWN_PRECISION, USE_FP16
    return device.convAllowHf32 ? 3 : 0;                       // USE_HF32, KEEP_DTYPE
}

std::string deviceMismatch(const ImportSummary& summary, const DeviceSettings& device) {
    if (summary.bfloat16Calls == 0 || productHasBFloat16(device.product)) return "";
    return std::to_string(summary.bfloat16Calls) + " call" + (summary.bfloat16Calls == 1 ? "" : "s") +
           " hold bfloat16 tensors, which the " + productName(device.product) +
           " does not have: the dump is likely from an Atlas A2/A3 (--product a2)";
}

std::string foldedModulesNote(const ImportSummary& summary) {
    const std::size_t n = summary.folded.size();
    if (n == 0) return "";
    std::string list;
    for (std::size_t i = 0; i < n && i < 3; ++i)
        list += (i ? ", " : "") + summary.folded[i].first + " as " + summary.folded[i].second;
    if (n > 3) list += ", and " + std::to_string(n - 3) + " more";
    return std::to_string(n) + " module call" + (n == 1 ? "" : "s") +
           " of the mix level imported once, as the call each ran (construct.json), whose arguments the dump " +
           "holds as passed: " + list;
}

std::string convolutionArithmetic(const DeviceSettings& device) {
    const int8_t mode = torchNpuCubeMathType(device);
    const char* operands = mode == 3 ? "HF32" : mode == 0 ? "float32" : "fp16";
    return std::string(operands) + " operands (cubeMathType " + std::to_string(mode) + ": " +
           (device.convAllowHf32 ? "torch_npu's default on this device)" : "torch_npu.npu.conv.allow_hf32 = False)");
}

}  // namespace opscope::import::msprobe
