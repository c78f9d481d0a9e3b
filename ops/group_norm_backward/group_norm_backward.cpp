// aclnnGroupNormBackward front end: validates in the documented order, then plans
//   [Contiguous] [Cast mean/rstd/gamma->float32] GroupNormGrad.ReduceAndInputGrad | .Reduce
//   GroupNormGrad.GammaBetaGrad [Cast dgamma/dbeta->out dtype] [ViewCopy]
// Formulas and the checks' numbering: ops/group_norm_backward/README.md.
#include "aclnnop/aclnn_group_norm_backward.h"

#include "group_norm_backward_kernel.h"
#include "opscope/dispatch.h"
#include "opscope/op_support.h"
#include "opscope/standard_steps.h"

namespace opscope {
namespace {

constexpr const char* kOp = "aclnnGroupNormBackward";
constexpr int64_t kMaxChannelsPerGroupA2 = 8000;

struct Args {
    const aclTensor *gradOut, *input, *mean, *rstd, *gamma;
    int64_t N, C, HxW, group;
    const aclBoolArray* outputMask;
    aclTensor *gradInput, *gradGamma, *gradBeta;
};

int64_t checkedProduct(std::initializer_list<int64_t> factors, const char* what) {
    int64_t p = 1;
    for (int64_t f : factors)
        if (__builtin_mul_overflow(p, f, &p)) fail(status::kParamInvalid, Msg() << what << " overflows int64");
    return p;
}

void checkNumel(const TensorView& v, const char* name, int64_t expected, const char* formula) {
    if (v.numel() != expected)
        fail(status::kParamInvalid, Msg() << name << " has " << v.numel() << " elements (shape " << shapeToString(v.shape)
                                          << ") but " << formula << " = " << expected);
}

std::unique_ptr<aclOpExecutor> build(const Args& a) {
    const Product product = currentProduct();
    // 1. Required pointers.
    const TensorView& dy = requireTensor(a.gradOut, "gradOut");
    const TensorView& x = requireTensor(a.input, "input");
    const TensorView& mean = requireTensor(a.mean, "mean");
    const TensorView& rstd = requireTensor(a.rstd, "rstd");
    const TensorView* gamma = optionalTensor(a.gamma, "gamma");
    const std::vector<bool>& mask = requireBoolArray(a.outputMask, "outputMask");
    if (mask.size() != 3)
        fail(status::kParamInvalid, Msg() << "outputMask has " << mask.size() << " entries; expected 3 "
                                          << "(gradInput, gradGammaOut, gradBetaOut)");
    static const char* outNames[3] = {"gradInput", "gradGammaOut", "gradBetaOut"};
    aclTensor* outs[3] = {a.gradInput, a.gradGamma, a.gradBeta};
    const TensorView* outViews[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < 3; ++i) {
        if (!mask[static_cast<std::size_t>(i)]) continue;
        if (!outs[i]) fail(status::kParamNullptr, Msg() << outNames[i] << " is null but outputMask[" << i << "] is true");
        outViews[i] = &requireTensor(outs[i], outNames[i]);
    }

    // 2. Product support and dtypes.
    if (product == Product::AtlasInference)
        fail(status::kParamInvalid, Msg() << kOp << " is not supported on " << productName(product));
    checkDtypeIn(dy, "gradOut", normDtypesFor(product), product);
    checkSameDtype(x, "input", dy, "gradOut");
    checkSameDtype(mean, "mean", dy, "gradOut");
    checkSameDtype(rstd, "rstd", dy, "gradOut");
    if (gamma) checkSameDtype(*gamma, "gamma", dy, "gradOut");
    for (int i = 0; i < 3; ++i)
        if (outViews[i]) checkSameDtype(*outViews[i], outNames[i], dy, "gradOut");

    // 3. Formats: ND (origin formats are accepted as ND; private layouts are not).
    checkPlainFormat(dy, "gradOut");
    checkPlainFormat(x, "input");
    for (int i = 0; i < 3; ++i)
        if (outViews[i]) checkPlainFormat(*outViews[i], outNames[i]);

    // 4. Attributes.
    if (a.group <= 0) fail(status::kParamInvalid, Msg() << "group must be greater than 0, got " << a.group);
    if (a.N < 0 || a.C < 0 || a.HxW < 0)
        fail(status::kParamInvalid, Msg() << "N, C, HxW must be non-negative, got N=" << a.N << " C=" << a.C
                                          << " HxW=" << a.HxW);
    if (a.C % a.group != 0)
        fail(status::kParamInvalid, Msg() << "C (" << a.C << ") must be divisible by group (" << a.group << ")");

    // 5. Element counts and output shapes.
    const int64_t total = checkedProduct({a.N, a.C, a.HxW}, "N * C * HxW");
    const int64_t stats = checkedProduct({a.N, a.group}, "N * group");
    checkNumel(x, "input", total, "N * C * HxW");
    checkNumel(dy, "gradOut", total, "N * C * HxW");
    checkNumel(mean, "mean", stats, "N * group");
    checkNumel(rstd, "rstd", stats, "N * group");
    if (gamma) checkNumel(*gamma, "gamma", a.C, "C");
    if (outViews[0]) checkSameShape(*outViews[0], "gradInput", x, "input");
    for (int i = 1; i < 3; ++i) {
        if (!outViews[i]) continue;
        if (gamma) checkSameShape(*outViews[i], outNames[i], *gamma, "gamma");
        else checkNumel(*outViews[i], outNames[i], a.C, "C");
    }

    // 6. Product limits.
    if ((product == Product::AtlasA2 || product == Product::AtlasA3) && a.C / a.group > kMaxChannelsPerGroupA2)
        fail(status::kParamInvalid, Msg() << "C / group = " << a.C / a.group << " exceeds " << kMaxChannelsPerGroupA2
                                          << " on " << productName(product));

    auto e = std::make_unique<aclOpExecutor>(kOp);
    e->addParam("N", a.N);
    e->addParam("C", a.C);
    e->addParam("HxW", a.HxW);
    e->addParam("group", a.group);
    e->addParam("outputMask", mask);
    e->addParam("dtype", std::string(dtypeName(dy.dtype)));
    Plan& plan = e->plan();
    const int sDy = plan.addInput("gradOut", dy);
    const int sX = plan.addInput("input", x);
    const int sMean = plan.addInput("mean", mean);
    const int sRstd = plan.addInput("rstd", rstd);
    const int sGamma = gamma ? plan.addInput("gamma", *gamma) : -1;
    int sOut[3] = {-1, -1, -1};
    for (int i = 0; i < 3; ++i)
        if (outViews[i]) sOut[i] = plan.addOutput(outNames[i], *outViews[i]);

    // Empty input: nothing to compute; gamma/beta gradients of an empty batch are zero.
    if (total == 0) {
        for (int i = 1; i < 3; ++i)
            if (sOut[i] >= 0 && plan.slot(sOut[i]).view.numel() > 0) addZeroFill(plan, sOut[i]);
        return e;
    }

    const kernels::GroupNormShape shape{a.N, a.C, a.HxW, a.group};
    // dy, x and dx stay in the operator's dtype: the kernel widens tiles itself. The small
    // per-group and per-channel tensors are cast to float32 up front.
    const DType T = dy.dtype;
    const int fDy = materializeInput(plan, sDy, T);
    const int fX = materializeInput(plan, sX, T);
    const int fMean = materializeInput(plan, sMean, DType::Float32);
    const int fRstd = materializeInput(plan, sRstd, DType::Float32);
    const int fGamma = sGamma >= 0 ? materializeInput(plan, sGamma, DType::Float32) : -1;
    const int ds = plan.addScratch("ds", DType::Float32, {a.N, a.C});
    const int db = plan.addScratch("db", DType::Float32, {a.N, a.C});
    OutputTarget t[3];
    if (sOut[0] >= 0) t[0] = prepareOutput(plan, sOut[0], T);
    for (int i = 1; i < 3; ++i)
        if (sOut[i] >= 0) t[i] = prepareOutput(plan, sOut[i], DType::Float32);

    const std::string widen = T == DType::Float32 ? "" : std::string(" (") + dtypeName(T) + " tiles widened to float32)";
    if (sOut[0] >= 0) {
        std::vector<int> in = {fDy, fX, fMean, fRstd};
        if (fGamma >= 0) in.push_back(fGamma);
        const int dx = t[0].compute;
        plan.addStep({"GroupNormGrad.ReduceAndInputGrad",
                      "ds = sum(dy*x), db = sum(dy) per (n,c); dx = rstd*gamma*dy + c2*x + c3 per group" + widen,
                      in, {ds, db, dx}, [=](const StepContext& ctx) {
                          dispatchFloating(T, [&](auto tag) {
                              using S = typename decltype(tag)::type;
                              if constexpr (std::is_same_v<S, double>) {
                                  fail(status::kInner, "GroupNormGrad has no float64 kernel");
                              } else {
                                  kernels::groupNormReduceAndInputGrad<S>(
                                      shape, ctx.data<S>(fDy), ctx.data<S>(fX), ctx.data<float>(fMean),
                                      ctx.data<float>(fRstd), fGamma >= 0 ? ctx.data<float>(fGamma) : nullptr,
                                      ctx.data<float>(ds), ctx.data<float>(db), ctx.data<S>(dx));
                              }
                          });
                      }});
    } else if (sOut[1] >= 0 || sOut[2] >= 0) {
        plan.addStep({"GroupNormGrad.Reduce", "ds = sum(dy*x), db = sum(dy) per (n,c)" + widen, {fDy, fX}, {ds, db},
                      [=](const StepContext& ctx) {
                          dispatchFloating(T, [&](auto tag) {
                              using S = typename decltype(tag)::type;
                              if constexpr (std::is_same_v<S, double>) {
                                  fail(status::kInner, "GroupNormGrad has no float64 kernel");
                              } else {
                                  kernels::groupNormReduce<S>(shape, ctx.data<S>(fDy), ctx.data<S>(fX),
                                                              ctx.data<float>(ds), ctx.data<float>(db));
                              }
                          });
                      }});
    }
    if (sOut[1] >= 0 || sOut[2] >= 0) {
        std::vector<int> outsW;
        const int dg = sOut[1] >= 0 ? t[1].compute : -1;
        const int dbt = sOut[2] >= 0 ? t[2].compute : -1;
        if (dg >= 0) outsW.push_back(dg);
        if (dbt >= 0) outsW.push_back(dbt);
        plan.addStep({"GroupNormGrad.GammaBetaGrad", "dgamma = sum_n (ds - db*mean)*rstd, dbeta = sum_n db",
                      {ds, db, fMean, fRstd}, outsW, [=](const StepContext& ctx) {
                          kernels::groupNormGammaBetaGrad(shape, ctx.data<float>(ds), ctx.data<float>(db),
                                                          ctx.data<float>(fMean), ctx.data<float>(fRstd),
                                                          dg >= 0 ? ctx.data<float>(dg) : nullptr,
                                                          dbt >= 0 ? ctx.data<float>(dbt) : nullptr);
                      }});
    }
    for (int i = 0; i < 3; ++i)
        if (sOut[i] >= 0) deliverOutput(plan, t[i]);
    return e;
}

}  // namespace
}  // namespace opscope

extern "C" {

aclnnStatus aclnnGroupNormBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* input,
                                                   const aclTensor* mean, const aclTensor* rstd,
                                                   const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW,
                                                   int64_t group, const aclBoolArray* outputMask,
                                                   aclTensor* gradInput, aclTensor* gradGammaOut,
                                                   aclTensor* gradBetaOut, uint64_t* workspaceSize,
                                                   aclOpExecutor** executor) {
    using namespace opscope;
    const Args args{gradOut, input, mean, rstd, gamma, N, C, HxW, group, outputMask, gradInput, gradGammaOut,
                    gradBetaOut};
    return prepareExecutor("aclnnGroupNormBackwardGetWorkspaceSize", workspaceSize, executor,
                           [&] { return build(args); });
}

aclnnStatus aclnnGroupNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
    return opscope::launchExecutor("aclnnGroupNormBackward", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
