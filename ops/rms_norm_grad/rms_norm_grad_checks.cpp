// Phase-1 checks of aclnnRmsNormGrad, numbered as in ops/rms_norm_grad/README.md. The first
// failing check wins; every message names the argument and the values seen.
#include "rms_norm_grad_checks.h"

#include <algorithm>
#include <vector>

#include "opscope/op_support.h"

namespace opscope::rms_norm {
namespace {

constexpr const char* kOp = "aclnnRmsNormGrad";
constexpr int64_t kInferenceTailBytes = 32;

std::vector<int64_t> slice(const std::vector<int64_t>& v, int64_t b, int64_t e) {
    return {v.begin() + b, v.begin() + e};
}

using Args = RmsNormGradArgs;
using Problem = RmsNormGradProblem;

// Every tensor with the name its messages use, in the order of the signature.
constexpr TensorArgument<Args, Problem> kTensors[] = {
    {&Args::dy, &Problem::dy, "dy"},          {&Args::x, &Problem::x, "x"},
    {&Args::rstd, &Problem::rstd, "rstd"},    {&Args::gamma, &Problem::gamma, "gamma"},
    {&Args::dxOut, &Problem::dxOut, "dxOut"}, {&Args::dgammaOut, &Problem::dgammaOut, "dgammaOut"}};

// The doc's dtype table: gamma may stay float32 under fp16/bf16 dy on A2/A3; on the inference
// series gamma has dy's dtype.
std::vector<DType> gammaDtypesFor(DType dy, Product p) {
    if (p == Product::AtlasInference || dy == DType::Float32) return {dy};
    return {DType::Float32, dy};
}

void checkFloat32(const TensorView& v, const char* name) {
    if (v.dtype != DType::Float32)
        fail(status::kParamInvalid,
             Msg() << name << " dtype " << dtypeName(v.dtype) << " is not supported: " << name << " must be float32");
}

// 1. Required pointers.
void checkPointers(const RmsNormGradArgs& a, RmsNormGradProblem& p) { requireTensors(kTensors, a, p); }

// 2b. Dtypes, the doc's table per product.
void checkDtypes(const RmsNormGradProblem& p, Product product) {
    checkDtypeIn(*p.dy, "dy", normDtypesFor(product), product);
    checkSameDtype(*p.x, "x", *p.dy, "dy");
    checkFloat32(*p.rstd, "rstd");
    const std::vector<DType> gammaTypes = gammaDtypesFor(p.dy->dtype, product);
    if (std::find(gammaTypes.begin(), gammaTypes.end(), p.gamma->dtype) == gammaTypes.end())
        fail(status::kParamInvalid, Msg() << "gamma dtype " << dtypeName(p.gamma->dtype)
                                          << " is not supported with dy dtype " << dtypeName(p.dy->dtype) << " on "
                                          << productName(product) << ": expected one of " << dtypeList(gammaTypes));
    checkSameDtype(*p.dxOut, "dxOut", *p.dy, "dy");
    checkFloat32(*p.dgammaOut, "dgammaOut");
}

// 3. Formats: ND (origin formats are accepted as ND; private layouts are not).
void checkFormats(const RmsNormGradProblem& p) {
    for (const auto& t : kTensors) checkPlainFormat(*(p.*t.view), t.name);
}

// 4a. Ranks 1-8.
void checkRanks(const RmsNormGradProblem& p) {
    for (const auto& t : kTensors) checkRankRange(*(p.*t.view), t.name, 1, kMaxRank);
}

// 4b. gamma is the trailing axes of x (rank(gamma) <= rank(x)); dgammaOut equals gamma.
void checkGammaShape(RmsNormGradProblem& p) {
    const TensorView &x = *p.x, &gamma = *p.gamma;
    if (gamma.rank() > x.rank())
        fail(status::kParamInvalid, Msg() << "gamma rank " << gamma.rank() << " (shape " << shapeToString(gamma.shape)
                                          << ") exceeds x rank " << x.rank() << " (shape " << shapeToString(x.shape)
                                          << ")");
    p.leadingAxes = x.rank() - gamma.rank();
    const std::vector<int64_t> trail = slice(x.shape, p.leadingAxes, x.rank());
    if (gamma.shape != trail)
        fail(status::kParamInvalid, Msg() << "gamma shape " << shapeToString(gamma.shape) << " must equal the last "
                                          << gamma.rank() << " axes of x shape " << shapeToString(x.shape) << " ("
                                          << shapeToString(trail) << ")");
}

// 4c. rstd covers the leading axes x[0:n]. Accepted, as the device's tiling compares rstd with x
// axis by axis from the first one: exactly x[0:n]; x[0:n] followed by size-1 axes (the keepdim
// form [.., 1]); or a prefix x[0:k] when the axes x[k:n] are all 1.
void checkRstdShape(const RmsNormGradProblem& p) {
    const TensorView &rstd = *p.rstd, &x = *p.x;
    const int64_t n = p.leadingAxes;
    const std::vector<int64_t> lead = slice(x.shape, 0, n);
    const int64_t rr = rstd.rank();
    bool ok = true;
    for (int64_t i = 0; i < std::min(rr, n); ++i)
        ok = ok && rstd.shape[static_cast<std::size_t>(i)] == lead[static_cast<std::size_t>(i)];
    for (int64_t i = rr; i < n; ++i) ok = ok && lead[static_cast<std::size_t>(i)] == 1;
    for (int64_t i = n; i < rr; ++i) ok = ok && rstd.shape[static_cast<std::size_t>(i)] == 1;
    if (!ok)
        fail(status::kParamInvalid,
             Msg() << "rstd shape " << shapeToString(rstd.shape) << " does not match x shape " << shapeToString(x.shape)
                   << " with " << (x.rank() - n) << " normalised axes: expected x[0:" << n
                   << "] = " << shapeToString(lead)
                   << ", optionally followed by size-1 axes, or a prefix of it when the rest is 1");
}

// 4. Shapes: ranks; x and dxOut equal dy; gamma the trailing axes of x; rstd the leading ones.
void checkShapes(RmsNormGradProblem& p) {
    checkRanks(p);
    checkSameShape(*p.x, "x", *p.dy, "dy");
    checkSameShape(*p.dxOut, "dxOut", *p.dy, "dy");
    checkGammaShape(p);
    checkRstdShape(p);
    checkSameShape(*p.dgammaOut, "dgammaOut", *p.gamma, "gamma");
}

// 5. Empty tensors are rejected, as on the device ("不支持空进空出").
void checkNotEmpty(const RmsNormGradProblem& p) {
    if (p.x->numel() == 0)
        fail(status::kParamInvalid, Msg() << "x shape " << shapeToString(p.x->shape) << " is empty: " << kOp
                                          << " does not support empty tensors");
}

// 6. Product limits: the inference series needs a last axis of at least 32 bytes.
void checkProductLimits(const RmsNormGradProblem& p, Product product) {
    const TensorView& x = *p.x;
    const int64_t tail = x.shape.back();
    const int64_t bytes = tail * static_cast<int64_t>(x.elementSize());
    if (product == Product::AtlasInference && bytes < kInferenceTailBytes)
        fail(status::kParamInvalid, Msg() << "x last axis has " << tail << " " << dtypeName(x.dtype) << " elements ("
                                          << bytes << " bytes); dy, x and gamma need at least " << kInferenceTailBytes
                                          << " bytes on " << productName(product));
}

}  // namespace

RmsNormGradProblem validateRmsNormGrad(const RmsNormGradArgs& a, Product product) {
    RmsNormGradProblem p;
    p.product = product;
    checkPointers(a, p);                                            // 1
    checkProductHasOperator(kOp, product, Product::AtlasTraining);  // 2a
    checkDtypes(p, product);                                        // 2b
    checkFormats(p);                                                // 3
    checkShapes(p);                                                 // 4
    checkNotEmpty(p);                                               // 5
    checkProductLimits(p, product);                                 // 6
    return p;
}

}  // namespace opscope::rms_norm
