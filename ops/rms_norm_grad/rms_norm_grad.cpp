// aclnnRmsNormGrad front end: validates in the documented order, then plans
//   [Contiguous] [CheckFinite (inference series)] [Cast gamma->float32]
//   RmsNormGrad.DxAndGammaPartials  RmsNormGrad.GammaReduce  [ViewCopy]
// Formulas, the checks' numbering and the decisions (rstd shapes, strided and empty tensors):
// ops/rms_norm_grad/README.md.
#include "aclnnop/aclnn_rms_norm_grad.h"

#include <algorithm>

#include "opscope/host_tensor.h"
#include "opscope/op_support.h"
#include "opscope/parallel.h"
#include "opscope/standard_steps.h"
#include "rms_norm_grad_kernel.h"

namespace opscope {
namespace {

constexpr const char* kOp = "aclnnRmsNormGrad";
constexpr int64_t kInferenceTailBytes = 32;

struct Args {
    const aclTensor *dy, *x, *rstd, *gamma, *dx, *dgamma;
};

std::vector<int64_t> slice(const std::vector<int64_t>& v, int64_t b, int64_t e) {
    return {v.begin() + b, v.begin() + e};
}

// The doc's dtype table: gamma may stay float32 under fp16/bf16 dy on A2/A3; on the inference
// series gamma has dy's dtype.
std::vector<DType> gammaDtypesFor(DType dy, Product p) {
    if (p == Product::AtlasInference || dy == DType::Float32) return {dy};
    return {DType::Float32, dy};
}

void checkFloat32(const TensorView& v, const char* name) {
    if (v.dtype != DType::Float32)
        fail(status::kParamInvalid, Msg() << name << " dtype " << dtypeName(v.dtype) << " is not supported: " << name
                                          << " must be float32");
}

// rstd covers the leading axes x[0:n]. Accepted, as the device's tiling compares rstd with x
// axis by axis from the first one: exactly x[0:n]; x[0:n] followed by size-1 axes (the keepdim
// form [.., 1]); or a prefix x[0:k] when the axes x[k:n] are all 1.
void checkRstdShape(const TensorView& rstd, const TensorView& x, int64_t n) {
    const std::vector<int64_t> lead = slice(x.shape, 0, n);
    const int64_t rr = rstd.rank();
    bool ok = true;
    for (int64_t i = 0; i < std::min(rr, n); ++i) ok = ok && rstd.shape[static_cast<std::size_t>(i)] == lead[static_cast<std::size_t>(i)];
    for (int64_t i = rr; i < n; ++i) ok = ok && lead[static_cast<std::size_t>(i)] == 1;
    for (int64_t i = n; i < rr; ++i) ok = ok && rstd.shape[static_cast<std::size_t>(i)] == 1;
    if (!ok)
        fail(status::kParamInvalid, Msg() << "rstd shape " << shapeToString(rstd.shape) << " does not match x shape "
                                          << shapeToString(x.shape) << " with " << (x.rank() - n)
                                          << " normalised axes: expected x[0:" << n << "] = " << shapeToString(lead)
                                          << ", optionally followed by size-1 axes, or a prefix of it when the rest is 1");
}

std::unique_ptr<aclOpExecutor> build(const Args& a) {
    const Product product = currentProduct();
    // 1. Required pointers.
    const TensorView& dy = requireTensor(a.dy, "dy");
    const TensorView& x = requireTensor(a.x, "x");
    const TensorView& rstd = requireTensor(a.rstd, "rstd");
    const TensorView& gamma = requireTensor(a.gamma, "gamma");
    const TensorView& dx = requireTensor(a.dx, "dxOut");
    const TensorView& dgamma = requireTensor(a.dgamma, "dgammaOut");

    // 2. Product support and dtypes (the doc's table per product).
    if (product == Product::AtlasTraining)
        fail(status::kParamInvalid, Msg() << kOp << " is not supported on " << productName(product));
    checkDtypeIn(dy, "dy", normDtypesFor(product), product);
    checkSameDtype(x, "x", dy, "dy");
    checkFloat32(rstd, "rstd");
    const std::vector<DType> gammaTypes = gammaDtypesFor(dy.dtype, product);
    if (std::find(gammaTypes.begin(), gammaTypes.end(), gamma.dtype) == gammaTypes.end())
        fail(status::kParamInvalid, Msg() << "gamma dtype " << dtypeName(gamma.dtype) << " is not supported with dy dtype "
                                          << dtypeName(dy.dtype) << " on " << productName(product) << ": expected one of "
                                          << dtypeList(gammaTypes));
    checkSameDtype(dx, "dxOut", dy, "dy");
    checkFloat32(dgamma, "dgammaOut");

    // 3. Formats: ND (origin formats are accepted as ND; private layouts are not).
    const std::pair<const TensorView*, const char*> all[] = {{&dy, "dy"},       {&x, "x"},       {&rstd, "rstd"},
                                                             {&gamma, "gamma"}, {&dx, "dxOut"}, {&dgamma, "dgammaOut"}};
    for (const auto& [v, name] : all) checkPlainFormat(*v, name);

    // 4. Shapes: ranks 1-8; x and dxOut equal dy; gamma the trailing axes of x; rstd the leading.
    for (const auto& [v, name] : all) checkRankRange(*v, name, 1, kMaxRank);
    checkSameShape(x, "x", dy, "dy");
    checkSameShape(dx, "dxOut", dy, "dy");
    if (gamma.rank() > x.rank())
        fail(status::kParamInvalid, Msg() << "gamma rank " << gamma.rank() << " (shape " << shapeToString(gamma.shape)
                                          << ") exceeds x rank " << x.rank() << " (shape " << shapeToString(x.shape) << ")");
    const int64_t n = x.rank() - gamma.rank();
    const std::vector<int64_t> trail = slice(x.shape, n, x.rank());
    if (gamma.shape != trail)
        fail(status::kParamInvalid, Msg() << "gamma shape " << shapeToString(gamma.shape) << " must equal the last "
                                          << gamma.rank() << " axes of x shape " << shapeToString(x.shape) << " ("
                                          << shapeToString(trail) << ")");
    checkRstdShape(rstd, x, n);
    checkSameShape(dgamma, "dgammaOut", gamma, "gamma");

    // 5. Empty tensors are rejected, as on the device ("不支持空进空出").
    if (x.numel() == 0)
        fail(status::kParamInvalid, Msg() << "x shape " << shapeToString(x.shape)
                                          << " is empty: " << kOp << " does not support empty tensors");

    // 6. Product limits: the inference series needs a last axis of at least 32 bytes.
    const int64_t tail = x.shape.back();
    if (product == Product::AtlasInference && tail * static_cast<int64_t>(x.elementSize()) < kInferenceTailBytes)
        fail(status::kParamInvalid, Msg() << "x last axis has " << tail << " " << dtypeName(x.dtype) << " elements ("
                                          << tail * static_cast<int64_t>(x.elementSize()) << " bytes); dy, x and gamma need at least "
                                          << kInferenceTailBytes << " bytes on " << productName(product));

    const kernels::RmsNormGradShape shape{shapeNumel(slice(x.shape, 0, n)), shapeNumel(trail)};
    const int partitions = kernels::rmsNormGradPartitions(shape, numThreads());

    auto e = std::make_unique<aclOpExecutor>(kOp);
    e->addParam("rows", shape.rows);
    e->addParam("cols", shape.cols);
    e->addParam("partitions", static_cast<int64_t>(partitions));
    e->addParam("dtype", std::string(dtypeName(dy.dtype)));
    e->addParam("gammaDtype", std::string(dtypeName(gamma.dtype)));
    Plan& plan = e->plan();
    const int sDy = plan.addInput("dy", dy);
    const int sX = plan.addInput("x", x);
    const int sRstd = plan.addInput("rstd", rstd);
    const int sGamma = plan.addInput("gamma", gamma);
    const int sDx = plan.addOutput("dxOut", dx);
    const int sDg = plan.addOutput("dgammaOut", dgamma);

    // dy and x keep their dtype: the row kernel widens them in registers (fused Cast).
    const int cDy = materializeInput(plan, sDy, dy.dtype);
    const int cX = materializeInput(plan, sX, x.dtype);
    const int cRstd = materializeInput(plan, sRstd, DType::Float32);
    if (product == Product::AtlasInference) {
        const std::vector<std::pair<int, const char*>> checked = {{cDy, "dy"}, {cX, "x"}, {sGamma, "gamma"}};
        plan.addStep({"CheckFinite", "inference series: dy, x and gamma must not hold inf or nan",
                      {cDy, cX, sGamma}, {}, [checked](const StepContext& ctx) {
                          for (const auto& [slot, name] : checked) {
                              const TensorView v = ctx.tensor(slot);
                              const HostTensor dense = v.isContiguous() ? HostTensor() : HostTensor::copyOf(v);
                              const void* data = v.isContiguous() ? v.first() : dense.data();
                              const int64_t bad = kernels::findNonFinite(v.dtype, data, v.numel());
                              if (bad >= 0)
                                  fail(status::kRuntimeError, Msg() << name << " holds inf or nan at flat index " << bad
                                                                    << "; " << productName(Product::AtlasInference)
                                                                    << " does not support inf/nan input");
                          }
                      }});
    }
    const int fGamma = materializeInput(plan, sGamma, DType::Float32);
    const int partials = plan.addScratch("dgammaPartials", DType::Float32, {partitions, shape.cols});
    const OutputTarget tDx = prepareOutput(plan, sDx, dy.dtype);
    const OutputTarget tDg = prepareOutput(plan, sDg, DType::Float32);
    const DType dtype = dy.dtype;
    plan.addStep({"RmsNormGrad.DxAndGammaPartials",
                  "per row: s = sum(dy*gamma*x); dx = rstd*dy*gamma - x*rstd^3*s/cols (rounded once to " +
                      std::string(dtypeName(dtype)) + "); dgamma partial[p] += dy*x*rstd",
                  {cDy, cX, cRstd, fGamma}, {tDx.compute, partials}, [=](const StepContext& ctx) {
                      kernels::rmsNormGradRows(shape, dtype, ctx.tensor(cDy).first(), ctx.tensor(cX).first(),
                                               ctx.data<float>(cRstd), ctx.data<float>(fGamma),
                                               ctx.tensor(tDx.compute).first(), ctx.data<float>(partials), partitions);
                  }});
    plan.addStep({"RmsNormGrad.GammaReduce", "dgamma = sum of the partition partials in partition order",
                  {partials}, {tDg.compute}, [=](const StepContext& ctx) {
                      kernels::rmsNormGradGammaReduce(shape, ctx.data<float>(partials), partitions,
                                                      ctx.data<float>(tDg.compute));
                  }});
    deliverOutput(plan, tDx);
    deliverOutput(plan, tDg);
    return e;
}

}  // namespace
}  // namespace opscope

extern "C" {

aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd,
                                             const aclTensor* gamma, const aclTensor* dxOut,
                                             const aclTensor* dgammaOut, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
    using namespace opscope;
    const Args args{dy, x, rstd, gamma, dxOut, dgammaOut};
    return prepareExecutor("aclnnRmsNormGradGetWorkspaceSize", workspaceSize, executor, [&] { return build(args); });
}

aclnnStatus aclnnRmsNormGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
    return opscope::launchExecutor("aclnnRmsNormGrad", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
