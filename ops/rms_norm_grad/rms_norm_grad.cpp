// aclnnRmsNormGrad front end: validates (rms_norm_grad_checks.cpp), then plans
//   [Contiguous] [CheckFinite (inference series)] [Cast gamma->float32]
//   RmsNormGrad.DxAndGammaPartials  RmsNormGrad.GammaReduce  [ViewCopy]
// Formulas, the checks' numbering and the decisions (rstd shapes, strided and empty tensors):
// ops/rms_norm_grad/README.md.
#include "aclnnop/aclnn_rms_norm_grad.h"

#include <utility>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/op_support.h"
#include "opscope/parallel.h"
#include "opscope/standard_steps.h"
#include "rms_norm_grad_checks.h"
#include "rms_norm_grad_kernel.h"

namespace opscope {
namespace {

using rms_norm::RmsNormGradProblem;

constexpr const char* kOp = "aclnnRmsNormGrad";

// Inference series: dy, x and gamma must be finite, which only the data can tell.
void addCheckFinite(Plan& plan, int dy, int x, int gamma) {
    const std::vector<std::pair<int, const char*>> checked = {{dy, "dy"}, {x, "x"}, {gamma, "gamma"}};
    plan.addStep({"CheckFinite",
                  "inference series: dy, x and gamma must not hold inf or nan",
                  {dy, x, gamma},
                  {},
                  [checked](const StepContext& ctx) {
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

std::unique_ptr<aclOpExecutor> planRmsNormGrad(const RmsNormGradProblem& p) {
    const TensorView &dy = *p.dy, &x = *p.x, &gamma = *p.gamma;
    const std::vector<int64_t> lead(x.shape.begin(), x.shape.begin() + p.leadingAxes);
    const std::vector<int64_t> trail(x.shape.begin() + p.leadingAxes, x.shape.end());
    const kernels::RmsNormGradShape shape{shapeNumel(lead), shapeNumel(trail)};
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
    const int sRstd = plan.addInput("rstd", *p.rstd);
    const int sGamma = plan.addInput("gamma", gamma);
    const int sDx = plan.addOutput("dxOut", *p.dxOut);
    const int sDg = plan.addOutput("dgammaOut", *p.dgammaOut);

    // dy and x keep their dtype: the row kernel widens them in registers (fused Cast).
    const int cDy = materializeInput(plan, sDy, dy.dtype);
    const int cX = materializeInput(plan, sX, x.dtype);
    const int cRstd = materializeInput(plan, sRstd, DType::Float32);
    if (p.product == Product::AtlasInference) addCheckFinite(plan, cDy, cX, sGamma);
    const int fGamma = materializeInput(plan, sGamma, DType::Float32);
    const int partials = plan.addScratch("dgammaPartials", DType::Float32, {partitions, shape.cols});
    const OutputTarget tDx = prepareOutput(plan, sDx, dy.dtype);
    const OutputTarget tDg = prepareOutput(plan, sDg, DType::Float32);
    const DType dtype = dy.dtype;
    plan.addStep({"RmsNormGrad.DxAndGammaPartials",
                  "per row: s = sum(dy*gamma*x); dx = rstd*dy*gamma - x*rstd^3*s/cols (rounded once to " +
                      std::string(dtypeName(dtype)) + "); dgamma partial[p] += dy*x*rstd",
                  {cDy, cX, cRstd, fGamma},
                  {tDx.compute, partials},
                  [=](const StepContext& ctx) {
                      kernels::rmsNormGradRows(shape, dtype, ctx.tensor(cDy).first(), ctx.tensor(cX).first(),
                                               ctx.data<float>(cRstd), ctx.data<float>(fGamma),
                                               ctx.tensor(tDx.compute).first(), ctx.data<float>(partials), partitions);
                  }});
    plan.addStep({"RmsNormGrad.GammaReduce",
                  "dgamma = sum of the partition partials in partition order",
                  {partials},
                  {tDg.compute},
                  [=](const StepContext& ctx) {
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
                                             const aclTensor* gamma, const aclTensor* dxOut, const aclTensor* dgammaOut,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
    using namespace opscope;
    const rms_norm::RmsNormGradArgs args{dy, x, rstd, gamma, dxOut, dgammaOut};
    return prepareExecutor("aclnnRmsNormGradGetWorkspaceSize", workspaceSize, executor,
                           [&] { return planRmsNormGrad(rms_norm::validateRmsNormGrad(args, currentProduct())); });
}

aclnnStatus aclnnRmsNormGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream) {
    return opscope::launchExecutor("aclnnRmsNormGrad", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
