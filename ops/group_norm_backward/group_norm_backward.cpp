// aclnnGroupNormBackward front end: validates (group_norm_backward_checks.cpp), then plans
//   [Contiguous] [Cast mean/rstd/gamma->float32] GroupNormGrad.ReduceAndInputGrad | .Reduce
//   GroupNormGrad.GammaBetaGrad [Cast dgamma/dbeta->out dtype] [ViewCopy]
// Formulas and the checks' numbering: ops/group_norm_backward/README.md.
#include "aclnnop/aclnn_group_norm_backward.h"

#include "group_norm_backward_checks.h"
#include "group_norm_backward_kernel.h"
#include "opscope/op_support.h"
#include "opscope/standard_steps.h"

namespace opscope {
namespace {

using group_norm::GroupNormProblem;
using group_norm::kOutputNames;

constexpr const char* kOp = "aclnnGroupNormBackward";

// The kernels' operands: dy, x in the operator's dtype; mean, rstd, gamma (-1 when null), ds,
// db in float32.
struct KernelSlots {
    int dy = -1, x = -1, mean = -1, rstd = -1, gamma = -1, ds = -1, db = -1;
};

void addParams(aclOpExecutor& e, const GroupNormProblem& p) {
    e.addParam("N", p.N);
    e.addParam("C", p.C);
    e.addParam("HxW", p.HxW);
    e.addParam("group", p.group);
    e.addParam("outputMask", p.mask);
    e.addParam("dtype", std::string(dtypeName(p.gradOut->dtype)));
}

std::string widenNote(DType T) {
    return T == DType::Float32 ? "" : std::string(" (") + dtypeName(T) + " tiles widened to float32)";
}

void addReduceAndInputGrad(Plan& plan, const kernels::GroupNormShape& shape, DType T, const KernelSlots& k, int dx) {
    std::vector<int> in = {k.dy, k.x, k.mean, k.rstd};
    if (k.gamma >= 0) in.push_back(k.gamma);
    plan.addStep({"GroupNormGrad.ReduceAndInputGrad",
                  "ds = sum(dy*x), db = sum(dy) per (n,c); dx = rstd*gamma*dy + c2*x + c3 per group" + widenNote(T),
                  in,
                  {k.ds, k.db, dx},
                  [=](const StepContext& ctx) {
                      kernels::groupNormReduceAndInputGrad(
                          shape, T, ctx.tensor(k.dy).first(), ctx.tensor(k.x).first(), ctx.data<float>(k.mean),
                          ctx.data<float>(k.rstd), k.gamma >= 0 ? ctx.data<float>(k.gamma) : nullptr,
                          ctx.data<float>(k.ds), ctx.data<float>(k.db), ctx.tensor(dx).first());
                  }});
}

void addReduce(Plan& plan, const kernels::GroupNormShape& shape, DType T, const KernelSlots& k) {
    plan.addStep({"GroupNormGrad.Reduce",
                  "ds = sum(dy*x), db = sum(dy) per (n,c)" + widenNote(T),
                  {k.dy, k.x},
                  {k.ds, k.db},
                  [=](const StepContext& ctx) {
                      kernels::groupNormReduce(shape, T, ctx.tensor(k.dy).first(), ctx.tensor(k.x).first(),
                                               ctx.data<float>(k.ds), ctx.data<float>(k.db));
                  }});
}

// dg, dbt: the float32 dgamma / dbeta targets, -1 when not wanted.
void addGammaBetaGrad(Plan& plan, const kernels::GroupNormShape& shape, const KernelSlots& k, int dg, int dbt) {
    std::vector<int> outs;
    if (dg >= 0) outs.push_back(dg);
    if (dbt >= 0) outs.push_back(dbt);
    plan.addStep({"GroupNormGrad.GammaBetaGrad",
                  "dgamma = sum_n (ds - db*mean)*rstd, dbeta = sum_n db",
                  {k.ds, k.db, k.mean, k.rstd},
                  outs,
                  [=](const StepContext& ctx) {
                      kernels::groupNormGammaBetaGrad(shape, ctx.data<float>(k.ds), ctx.data<float>(k.db),
                                                      ctx.data<float>(k.mean), ctx.data<float>(k.rstd),
                                                      dg >= 0 ? ctx.data<float>(dg) : nullptr,
                                                      dbt >= 0 ? ctx.data<float>(dbt) : nullptr);
                  }});
}

std::unique_ptr<aclOpExecutor> planGroupNormBackward(const GroupNormProblem& p) {
    auto e = std::make_unique<aclOpExecutor>(kOp);
    addParams(*e, p);
    Plan& plan = e->plan();
    const int sDy = plan.addInput("gradOut", *p.gradOut);
    const int sX = plan.addInput("input", *p.input);
    const int sMean = plan.addInput("mean", *p.mean);
    const int sRstd = plan.addInput("rstd", *p.rstd);
    const int sGamma = p.gamma ? plan.addInput("gamma", *p.gamma) : -1;
    int sOut[3] = {-1, -1, -1};
    for (int i = 0; i < 3; ++i)
        if (p.outputs[i]) sOut[i] = plan.addOutput(kOutputNames[i], *p.outputs[i]);

    // Empty input: nothing to compute; gamma/beta gradients of an empty batch are zero.
    if (p.total == 0) {
        for (int i = 1; i < 3; ++i)
            if (sOut[i] >= 0 && plan.slot(sOut[i]).view.numel() > 0) addZeroFill(plan, sOut[i]);
        return e;
    }

    const kernels::GroupNormShape shape{p.N, p.C, p.HxW, p.group};
    // dy, x and dx stay in the operator's dtype: the kernel widens tiles itself. The small
    // per-group and per-channel tensors are cast to float32 up front.
    const DType T = p.gradOut->dtype;
    KernelSlots k;
    k.dy = materializeInput(plan, sDy, T);
    k.x = materializeInput(plan, sX, T);
    k.mean = materializeInput(plan, sMean, DType::Float32);
    k.rstd = materializeInput(plan, sRstd, DType::Float32);
    k.gamma = sGamma >= 0 ? materializeInput(plan, sGamma, DType::Float32) : -1;
    k.ds = plan.addScratch("ds", DType::Float32, {p.N, p.C});
    k.db = plan.addScratch("db", DType::Float32, {p.N, p.C});
    OutputTarget t[3];
    if (sOut[0] >= 0) t[0] = prepareOutput(plan, sOut[0], T);
    for (int i = 1; i < 3; ++i)
        if (sOut[i] >= 0) t[i] = prepareOutput(plan, sOut[i], DType::Float32);

    const bool wantAffine = sOut[1] >= 0 || sOut[2] >= 0;
    if (sOut[0] >= 0)
        addReduceAndInputGrad(plan, shape, T, k, t[0].compute);
    else if (wantAffine)
        addReduce(plan, shape, T, k);
    if (wantAffine) addGammaBetaGrad(plan, shape, k, t[1].compute, t[2].compute);
    for (int i = 0; i < 3; ++i)
        if (sOut[i] >= 0) deliverOutput(plan, t[i]);
    return e;
}

}  // namespace
}  // namespace opscope

extern "C" {

aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                   const aclTensor* mean, const aclTensor* rstd, const aclTensor* gamma,
                                                   int64_t N, int64_t C, int64_t HxW, int64_t group,
                                                   const aclBoolArray* outputMask, aclTensor* gradInput,
                                                   aclTensor* gradGammaOut, aclTensor* gradBetaOut,
                                                   uint64_t* workspaceSize, aclOpExecutor** executor) {
    using namespace opscope;
    const group_norm::GroupNormArgs args{gradOut, input, mean,       rstd,      gamma,        N,          C,
                                         HxW,     group, outputMask, gradInput, gradGammaOut, gradBetaOut};
    return prepareExecutor("aclnnGroupNormBackwardGetWorkspaceSize", workspaceSize, executor, [&] {
        return planGroupNormBackward(group_norm::validateGroupNormBackward(args, currentProduct()));
    });
}

aclnnStatus aclnnGroupNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
    return opscope::launchExecutor("aclnnGroupNormBackward", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
