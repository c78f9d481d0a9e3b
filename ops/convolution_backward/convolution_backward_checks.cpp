// Phase-1 checks of aclnnConvolutionBackward, numbered as in ops/convolution_backward/README.md.
// The first failing check wins; every message names the argument and the values seen.
#include "convolution_backward_checks.h"

#include <algorithm>

#include "dtype_promotion.h"
#include "opscope/names.h"
#include "opscope/op_support.h"

namespace opscope::conv {
namespace {

constexpr int64_t kMaxDimA2 = 2147483646;
constexpr int64_t kMaxKernelHWA2 = 255, kMaxPadA2 = 255, kMaxDilationA2 = 255, kMaxStride3dHWA2 = 63;
constexpr int64_t kMaxGroupsA2 = 65535;

const char* const kOutNames[3] = {"gradInput", "gradWeight", "gradBias"};

std::string list(const std::vector<int64_t>& v) { return shapeToString(v); }

// Axis names of the spatial axes for messages: L; H, W; D, H, W.
const char* axisName(int spatial, std::size_t axis) {
    static const char* const names1[] = {"L"};
    static const char* const names2[] = {"H", "W"};
    static const char* const names3[] = {"D", "H", "W"};
    if (spatial == 1) return names1[axis];
    if (spatial == 2) return names2[axis];
    return names3[axis];
}

Format originFormat(int64_t rank) {
    if (rank == 3) return Format::NCL;
    if (rank == 4) return Format::NCHW;
    return Format::NCDHW;
}

// 1. Null pointers and the output mask.
void checkPointers(const ConvArgs& a, ConvProblem& p) {
    p.gradOutput = &requireTensor(a.gradOutput, "gradOutput");
    p.input = &requireTensor(a.input, "input");
    p.weight = &requireTensor(a.weight, "weight");
    requireIntArray(a.stride, "stride");
    requireIntArray(a.padding, "padding");
    requireIntArray(a.dilation, "dilation");
    requireIntArray(a.outputPadding, "outputPadding");
    optionalIntArray(a.biasSizes, "biasSizes");
    p.mask = requireBoolArray(a.outputMask, "outputMask");
    checkMaskedOutputs(p.mask, {a.gradInput, a.gradWeight, a.gradBias}, {kOutNames[0], kOutNames[1], kOutNames[2]},
                       p.outputs);
}

// 2. Dtypes and the promotion rule of the outputs.
void checkDtypes(ConvProblem& p, Product product) {
    const std::vector<DType> allowed = normDtypesFor(product);
    checkDtypeIn(*p.gradOutput, "gradOutput", allowed, product);
    checkDtypeIn(*p.input, "input", allowed, product);
    checkDtypeIn(*p.weight, "weight", allowed, product);
    const DType dy = p.gradOutput->dtype;
    const DType wantIn = promoteDtype(p.input->dtype, dy), wantW = promoteDtype(p.weight->dtype, dy);
    if (p.outputs[0] && p.outputs[0]->dtype != wantIn)
        fail(status::kParamInvalid, Msg()
                                        << "gradInput dtype " << dtypeName(p.outputs[0]->dtype)
                                        << " must be the higher-precision dtype of input (" << dtypeName(p.input->dtype)
                                        << ") and gradOutput (" << dtypeName(dy) << "): " << dtypeName(wantIn));
    if (p.outputs[1] && p.outputs[1]->dtype != wantW)
        fail(status::kParamInvalid, Msg() << "gradWeight dtype " << dtypeName(p.outputs[1]->dtype)
                                          << " must be the higher-precision dtype of weight ("
                                          << dtypeName(p.weight->dtype) << ") and gradOutput (" << dtypeName(dy)
                                          << "): " << dtypeName(wantW));
    if (p.outputs[2]) checkSameDtype(*p.outputs[2], "gradBias", *p.gradOutput, "gradOutput");
    p.promoted = promoteDtype(promoteDtype(dy, p.input->dtype), p.weight->dtype);
}

// 3. Ranks (3, 4 or 5, all equal but gradBias's) and formats (NCL/NCHW/NCDHW or ND; gradBias ND).
void checkRanksAndFormats(ConvProblem& p) {
    const TensorView& x = *p.input;
    if (x.rank() < 3 || x.rank() > 5)
        fail(status::kParamInvalid, Msg() << "input rank " << x.rank() << " (shape " << list(x.shape)
                                          << ") is not 3, 4 or 5 (NCL, NCHW or NCDHW)");
    if (p.gradOutput->rank() != x.rank())
        fail(status::kParamInvalid, Msg() << "gradOutput rank " << p.gradOutput->rank() << " (shape "
                                          << list(p.gradOutput->shape) << ") must equal input rank " << x.rank());
    if (p.weight->rank() != x.rank())
        fail(status::kParamInvalid, Msg() << "weight rank " << p.weight->rank() << " (shape " << list(p.weight->shape)
                                          << ") must equal input rank " << x.rank());
    for (int i = 0; i < 2; ++i)
        if (p.outputs[i] && p.outputs[i]->rank() != x.rank())
            fail(status::kParamInvalid, Msg() << kOutNames[i] << " rank " << p.outputs[i]->rank() << " (shape "
                                              << list(p.outputs[i]->shape) << ") must equal input rank " << x.rank());
    const Format want = originFormat(x.rank());
    auto checkFormat = [&](const TensorView& v, const char* name) {
        if (v.format != want && v.format != Format::ND)
            fail(status::kParamInvalid, Msg() << name << " format " << formatName(v.format)
                                              << " is not supported for a rank-" << v.rank() << " tensor: expected "
                                              << formatName(want) << " (or ND)");
    };
    checkFormat(*p.gradOutput, "gradOutput");
    checkFormat(x, "input");
    checkFormat(*p.weight, "weight");
    for (int i = 0; i < 2; ++i)
        if (p.outputs[i]) checkFormat(*p.outputs[i], kOutNames[i]);
    if (p.outputs[2] && p.outputs[2]->format != Format::ND)
        fail(status::kParamInvalid,
             Msg() << "gradBias format " << formatName(p.outputs[2]->format) << " is not supported: expected ND");
    p.spatial = static_cast<int>(x.rank() - 2);
}

// 4. The product runs this convolution at all.
void checkProductSupport(const ConvProblem& p, Product product) {
    if (p.spatial == 3 && !isA2Generation(product))
        fail(status::kParamInvalid, Msg()
                                        << "3D convolution backward (input shape " << list(p.input->shape)
                                        << ") is not supported on " << productName(product) << ": only 1D and 2D are");
}

void checkLength(const std::vector<int64_t>& v, const char* name, int spatial, bool allowFour) {
    const auto n = static_cast<int64_t>(v.size());
    if (n == spatial || (allowFour && spatial == 2 && n == 4)) return;
    fail(status::kParamInvalid, Msg() << name << " " << list(v) << " has " << n << " values; expected " << spatial
                                      << " (input rank " << spatial + 2 << " - 2)"
                                      << (allowFour && spatial == 2 ? " or 4 (top, bottom, left, right)" : ""));
}

void checkAtLeast(const std::vector<int64_t>& v, const char* name, int64_t lo) {
    for (int64_t e : v)
        if (e < lo)
            fail(status::kParamInvalid, Msg() << name << " " << list(v) << " must be >= " << lo << " on every axis");
}

// 5. Attributes: array lengths and values, groups, cubeMathType.
void checkAttributes(const ConvArgs& a, ConvProblem& p, Product product) {
    p.transposed = a.transposed;
    p.groups = a.groups;
    p.cubeMathType = a.cubeMathType;
    p.stride = a.stride->values;
    p.padding = a.padding->values;
    p.dilation = a.dilation->values;
    p.outputPadding = a.outputPadding->values;
    checkLength(p.stride, "stride", p.spatial, false);
    checkLength(p.padding, "padding", p.spatial, true);
    checkLength(p.dilation, "dilation", p.spatial, false);
    checkLength(p.outputPadding, "outputPadding", p.spatial, false);
    checkAtLeast(p.stride, "stride", 1);
    checkAtLeast(p.padding, "padding", 0);
    checkAtLeast(p.dilation, "dilation", 1);
    checkAtLeast(p.outputPadding, "outputPadding", 0);
    if (p.padding.size() == 4 && p.spatial == 2) {
        p.padBegin = {p.padding[0], p.padding[2]};
        p.padEnd = {p.padding[1], p.padding[3]};
    } else {
        p.padBegin = p.padEnd = p.padding;
    }
    if (p.transposed)
        for (std::size_t i = 0; i < p.outputPadding.size(); ++i)
            if (p.outputPadding[i] >= p.stride[i] && p.outputPadding[i] >= p.dilation[i])
                fail(status::kParamInvalid, Msg() << "outputPadding " << list(p.outputPadding)
                                                  << " must be smaller than stride " << list(p.stride)
                                                  << " or dilation " << list(p.dilation) << " on every axis (axis "
                                                  << axisName(p.spatial, i) << ")");
    if (p.groups < 1) fail(status::kParamInvalid, Msg() << "groups must be greater than 0, got " << p.groups);
    if (p.cubeMathType < 0 || p.cubeMathType > 3)
        fail(status::kParamInvalid, Msg() << "cubeMathType must be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), "
                                          << "2 (USE_FP16) or 3 (USE_HF32), got " << int{p.cubeMathType});
    p.precision = resolveCubePrecision(product, p.promoted, p.cubeMathType);
}

// 6a. Empty tensors: input may be empty in N or C only; gradOutput and weight may not be empty
// (except for what an empty input implies: N = 0 in gradOutput, C = 0 in a convolution's weight).
void checkEmpty(ConvProblem& p) {
    const TensorView &x = *p.input, &dy = *p.gradOutput, &w = *p.weight;
    p.emptyInput = x.numel() == 0;
    for (std::size_t i = 2; i < x.shape.size(); ++i)
        if (x.shape[i] == 0)
            fail(status::kParamInvalid, Msg() << "input shape " << list(x.shape) << " is empty in spatial axis "
                                              << axisName(p.spatial, i - 2) << "; only N or C may be 0");
    for (std::size_t i = 0; i < w.shape.size(); ++i) {
        const bool allowedZero = i == 1 && !p.transposed && x.shape[1] == 0;
        if (w.shape[i] == 0 && !allowedZero)
            fail(status::kParamInvalid, Msg() << "weight must not be empty, got shape " << list(w.shape));
    }
    if (dy.numel() == 0 && x.shape[0] != 0)
        fail(status::kParamInvalid, Msg() << "gradOutput must not be empty, got shape " << list(dy.shape)
                                          << " (only an input with N = 0 gives an empty gradOutput)");
}

// 6b. Channels and groups.
void checkChannels(const ConvProblem& p) {
    const TensorView &x = *p.input, &dy = *p.gradOutput, &w = *p.weight;
    const int64_t G = p.groups;
    if (dy.shape[0] != x.shape[0])
        fail(status::kParamInvalid, Msg() << "gradOutput batch " << dy.shape[0] << " (shape " << list(dy.shape)
                                          << ") must equal input batch " << x.shape[0] << " (shape " << list(x.shape)
                                          << ")");
    if (!p.transposed) {
        if (w.shape[0] % G != 0)
            fail(status::kParamInvalid, Msg() << "weight.shape[0] (output channels " << w.shape[0]
                                              << ") must be divisible by groups (" << G << ")");
        if (x.shape[1] != w.shape[1] * G)
            fail(status::kParamInvalid, Msg() << "input channels (" << x.shape[1] << ") must equal weight.shape[1] ("
                                              << w.shape[1] << ") * groups (" << G << ") = " << w.shape[1] * G);
        if (dy.shape[1] != w.shape[0])
            fail(status::kParamInvalid, Msg() << "gradOutput channels (" << dy.shape[1]
                                              << ") must equal weight.shape[0] (" << w.shape[0] << ")");
    } else {
        if (w.shape[0] != x.shape[1])
            fail(status::kParamInvalid, Msg() << "weight.shape[0] (" << w.shape[0] << ") must equal input channels ("
                                              << x.shape[1] << ") for a transposed convolution");
        if (x.shape[1] % G != 0)
            fail(status::kParamInvalid,
                 Msg() << "input channels (" << x.shape[1] << ") must be divisible by groups (" << G << ")");
        if (dy.shape[1] != w.shape[1] * G)
            fail(status::kParamInvalid, Msg() << "gradOutput channels (" << dy.shape[1]
                                              << ") must equal weight.shape[1] (" << w.shape[1] << ") * groups (" << G
                                              << ") = " << w.shape[1] * G << " for a transposed convolution");
    }
}

// a*b + c, failing on int64 overflow (absurd attribute values must not wrap around).
int64_t mulAdd(int64_t a, int64_t b, int64_t c, const char* what) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r))
        fail(status::kParamInvalid, Msg() << what << " overflows int64 (" << a << " * " << b << " + " << c << ")");
    return r;
}

// 6c. Spatial sizes: gradOutput is what the forward pass of input and weight produces.
void checkSpatial(const ConvProblem& p) {
    const TensorView &x = *p.input, &dy = *p.gradOutput, &w = *p.weight;
    std::vector<int64_t> expected = {x.shape[0], dy.shape[1]};
    for (std::size_t a = 0; a < static_cast<std::size_t>(p.spatial); ++a) {
        const int64_t in = x.shape[a + 2], k = w.shape[a + 2];
        const int64_t span = mulAdd(p.dilation[a], k - 1, 1, "the dilated kernel size");
        int64_t out;
        if (!p.transposed) {
            const int64_t padded = mulAdd(1, p.padBegin[a], mulAdd(1, p.padEnd[a], in, "padding"), "padding");
            if (padded < span)
                fail(status::kParamInvalid, Msg() << "input size " << in << " plus padding " << p.padBegin[a] << "+"
                                                  << p.padEnd[a] << " is smaller than the dilated kernel ("
                                                  << "(" << k << " - 1) * " << p.dilation[a] << " + 1 = " << span
                                                  << ") on axis " << axisName(p.spatial, a));
            out = (padded - span) / p.stride[a] + 1;
        } else {
            out =
                mulAdd(in - 1, p.stride[a], mulAdd(1, span, p.outputPadding[a], "the output size"), "the output size");
            if (__builtin_sub_overflow(out, p.padBegin[a], &out) || __builtin_sub_overflow(out, p.padEnd[a], &out))
                fail(status::kParamInvalid, "the transposed convolution output size overflows int64");
            if (out < 1)
                fail(status::kParamInvalid, Msg() << "transposed convolution output size (" << in << " - 1) * "
                                                  << p.stride[a] << " - " << p.padBegin[a] << " - " << p.padEnd[a]
                                                  << " + " << span << " + " << p.outputPadding[a] << " = " << out
                                                  << " on axis " << axisName(p.spatial, a) << " is not positive");
        }
        expected.push_back(out);
    }
    if (dy.shape != expected)
        fail(status::kParamInvalid, Msg() << "gradOutput shape " << list(dy.shape) << " does not match the "
                                          << (p.transposed ? "transposed " : "") << "convolution of input "
                                          << list(x.shape) << " with weight " << list(w.shape) << ": expected "
                                          << list(expected));
}

// 6d. biasSizes and the output shapes.
void checkBiasAndOutputs(const ConvArgs& a, const ConvProblem& p) {
    const int64_t cout = p.gradOutput->shape[1];
    // 161002, not 161001: op_api's CheckEmptyTensor fails CheckParams with ACLNN_ERR_PARAM_INVALID.
    if (!a.biasSizes && p.emptyInput && p.mask[2])
        fail(status::kParamInvalid, "biasSizes is null, but input is empty and outputMask[2] (gradBias) is true");
    if (a.biasSizes) {
        const std::vector<int64_t>& b = a.biasSizes->values;
        if (b.size() != 1)
            fail(status::kParamInvalid, Msg()
                                            << "biasSizes " << list(b) << " has " << b.size() << " values; expected 1");
        if (b[0] != cout)
            fail(status::kParamInvalid, Msg() << "biasSizes " << list(b) << " must equal "
                                              << (p.transposed ? "[weight.shape[1] * groups]" : "[weight.shape[0]]")
                                              << " = [" << cout << "]");
    }
    if (p.outputs[0]) checkSameShape(*p.outputs[0], "gradInput", *p.input, "input");
    if (p.outputs[1]) checkSameShape(*p.outputs[1], "gradWeight", *p.weight, "weight");
    if (p.outputs[2] && p.outputs[2]->shape != std::vector<int64_t>{cout})
        fail(status::kParamInvalid, Msg() << "gradBias shape " << list(p.outputs[2]->shape) << " must be [" << cout
                                          << "] (the gradOutput channels)");
}

void checkRange(int64_t v, int64_t lo, int64_t hi, const std::string& what, Product product) {
    if (v < lo || v > hi)
        fail(status::kParamInvalid, Msg() << what << " = " << v << " is outside [" << lo << ", " << hi << "] on "
                                          << productName(product) << " (transposed=false)");
}

// 7. Product limits: Atlas A2/A3 with transposed=false.
void checkProductLimits(const ConvProblem& p, Product product) {
    if (!isA2Generation(product) || p.transposed) return;
    const TensorView &x = *p.input, &dy = *p.gradOutput, &w = *p.weight;
    checkRange(p.groups, 1, kMaxGroupsA2, "groups", product);
    auto dims = [&](const TensorView& v, const char* name, int64_t lo) {
        for (std::size_t i = 0; i < v.shape.size(); ++i)
            checkRange(v.shape[i], i < 2 ? lo : 1, kMaxDimA2, Msg() << name << " dimension " << i, product);
    };
    dims(x, "input", 0);  // N or C may be 0 (checked above)
    dims(dy, "gradOutput", 0);
    dims(w, "weight", 0);
    for (std::size_t a = 0; a < static_cast<std::size_t>(p.spatial); ++a) {
        const std::string axis = axisName(p.spatial, a);
        const bool hw = p.spatial != 3 || a > 0;  // every axis in 1D/2D; H and W in 3D
        if (hw) checkRange(w.shape[a + 2], 1, kMaxKernelHWA2, "weight " + axis, product);
        checkRange(p.stride[a], 1, p.spatial == 3 && hw ? kMaxStride3dHWA2 : kMaxDimA2, "stride" + axis, product);
        checkRange(p.dilation[a], 1, kMaxDilationA2, "dilation" + axis, product);
        checkRange(p.padBegin[a], 0, hw ? kMaxPadA2 : kMaxDimA2,
                   "padding" + axis + (p.padding.size() == 4 ? " (begin)" : ""), product);
        checkRange(p.padEnd[a], 0, hw ? kMaxPadA2 : kMaxDimA2,
                   "padding" + axis + (p.padding.size() == 4 ? " (end)" : ""), product);
    }
}

}  // namespace

const char* cubePrecisionName(CubePrecision p) {
    static constexpr Named<CubePrecision> kPrecisions[] = {{CubePrecision::Float32, "float32"},
                                                           {CubePrecision::HFloat32, "hfloat32"},
                                                           {CubePrecision::Float16, "float16"},
                                                           {CubePrecision::BFloat16, "bfloat16"}};
    return nameOf(kPrecisions, p);
}

const char* cubeMathTypeName(int8_t cubeMathType) {
    static constexpr Named<int8_t> kCubeMathTypes[] = {
        {0, "KEEP_DTYPE"}, {1, "ALLOW_FP32_DOWN_PRECISION"}, {2, "USE_FP16"}, {3, "USE_HF32"}};
    return nameOf(kCubeMathTypes, cubeMathType, "unknown");
}

CubePrecision resolveCubePrecision(Product product, DType dtype, int8_t mode) {
    auto unsupported = [&](const char* why) {
        return StatusError(status::kParamInvalid, Msg()
                                                      << "cubeMathType " << int{mode} << " (" << cubeMathTypeName(mode)
                                                      << ") with " << dtypeName(dtype) << " inputs is not supported on "
                                                      << productName(product) << ": " << why);
    };
    if (dtype == DType::Float16) return CubePrecision::Float16;  // every mode keeps fp16
    if (isA2Generation(product)) {
        if (dtype == DType::BFloat16) return mode == 2 ? CubePrecision::Float16 : CubePrecision::BFloat16;
        if (mode == 0) return CubePrecision::Float32;
        return mode == 2 ? CubePrecision::Float16 : CubePrecision::HFloat32;
    }
    // Atlas training series (and, the documentation being silent, the inference series).
    if (dtype == DType::BFloat16) throw unsupported("its cube unit has no bfloat16");
    if (mode == 0) throw unsupported("its cube unit has no float32; use 1 (ALLOW_FP32_DOWN_PRECISION) or 2 (USE_FP16)");
    if (mode == 3) throw unsupported("its cube unit has no HF32; use 1 (ALLOW_FP32_DOWN_PRECISION) or 2 (USE_FP16)");
    return CubePrecision::Float16;  // float32 with 1 or 2
}

kernels::CubeRounding cubeRoundingOf(CubePrecision precision, DType stored) {
    if (precision == CubePrecision::HFloat32 && stored == DType::Float32) return kernels::CubeRounding::HF32;
    if (precision == CubePrecision::Float16 && stored != DType::Float16) return kernels::CubeRounding::FP16;
    return kernels::CubeRounding::None;
}

ConvProblem validateConvolutionBackward(const ConvArgs& a, Product product) {
    ConvProblem p;
    checkPointers(a, p);              // 1
    checkDtypes(p, product);          // 2
    checkRanksAndFormats(p);          // 3
    checkProductSupport(p, product);  // 4
    checkAttributes(a, p, product);   // 5
    checkEmpty(p);                    // 6a
    checkChannels(p);                 // 6b
    checkSpatial(p);                  // 6c
    checkBiasAndOutputs(a, p);        // 6d
    checkProductLimits(p, product);   // 7
    return p;
}

kernels::ConvGeometry geometryOf(const ConvProblem& p) {
    const TensorView& big = p.transposed ? *p.gradOutput : *p.input;
    const TensorView& small = p.transposed ? *p.input : *p.gradOutput;
    const TensorView& w = *p.weight;
    kernels::ConvGeometry g;
    g.N = small.shape[0];
    g.G = p.groups;
    g.CY = small.shape[1];
    g.CXg = w.shape[1];
    const int off = 3 - p.spatial;
    for (int a = 0; a < p.spatial; ++a) {
        const auto s = static_cast<std::size_t>(a);
        g.xs[off + a] = big.shape[s + 2];
        g.ys[off + a] = small.shape[s + 2];
        g.k[off + a] = w.shape[s + 2];
        g.stride[off + a] = p.stride[s];
        g.pad[off + a] = p.padBegin[s];
        g.dil[off + a] = p.dilation[s];
    }
    return g;
}

}  // namespace opscope::conv
