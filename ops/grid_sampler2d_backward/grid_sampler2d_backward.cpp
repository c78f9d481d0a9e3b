// aclnnGridSampler2DBackward front end: validates in the device's order, then plans one of the
// device's two chains:
//   NHWC (A2/A3; bilinear or nearest; zeros or border; C <= 2048; not float64):
//     [Contiguous] [Cast grid] Transpose(gradOutput) [Transpose(input)] GridSamplerGrad
//     [Transpose(inputGrad)] [Cast gridGrad] [ViewCopy]
//   NCHW (everything else):
//     [Contiguous] [Cast] GridSampler2DGrad [Cast] [ViewCopy]
// Formulas, the checks' numbering and the decisions: ops/grid_sampler2d_backward/README.md.
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

#include "channels_last.h"
#include "grid_sampler2d_backward_kernel.h"
#include "opscope/dispatch.h"
#include "opscope/op_support.h"
#include "opscope/parallel.h"
#include "opscope/standard_steps.h"

namespace opscope {
namespace {

using kernels::GridInterpolation;
using kernels::GridLayout;
using kernels::GridPadding;

constexpr const char* kOp = "aclnnGridSampler2DBackward";
constexpr int64_t kMaxChannelsLast = 2048;  // the device's NHWC kernel takes C <= 2048
const char* const kInterpolationNames[] = {"bilinear", "nearest", "bicubic"};
const char* const kPaddingNames[] = {"zeros", "border", "reflection"};

struct Args {
    const aclTensor *gradOutput, *input, *grid;
    int64_t interpolationMode, paddingMode;
    bool alignCorners;
    const aclBoolArray* outputMask;
    aclTensor *inputGrad, *gridGrad;
};

// float64 is an OpScope extension (golden computations) on every supported product.
std::vector<DType> dtypesFor(Product p) {
    if (productHasBFloat16(p)) return {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};
    return {DType::Float32, DType::Float16, DType::Float64};
}

void checkRank4(const TensorView& v, const char* name) {
    if (v.rank() != 4)
        fail(status::kParamInvalid, Msg() << name << " must be 4-D, got rank " << v.rank() << " (shape "
                                          << shapeToString(v.shape) << ")");
}

std::unique_ptr<aclOpExecutor> emptyExecutor(const char* why) {
    auto e = std::make_unique<aclOpExecutor>(kOp);
    e->addParam("outputMask", std::string(why));
    return e;
}

std::unique_ptr<aclOpExecutor> build(const Args& a) {
    const Product product = currentProduct();
    // 1. Output mask: null or [false, false] asks for nothing; like the device, this returns an
    //    executor without work before any other argument is looked at.
    if (!a.outputMask) return emptyExecutor("null");
    const std::vector<bool>& mask = requireBoolArray(a.outputMask, "outputMask");
    if (mask.size() != 2)
        fail(status::kParamInvalid, Msg() << "outputMask has " << mask.size() << " entries; expected 2 (inputGrad, gridGrad)");
    if (!mask[0] && !mask[1]) return emptyExecutor("[false, false]");

    // 2. Required pointers: all five tensors, whichever outputs the mask selects (as the device).
    const TensorView& go = requireTensor(a.gradOutput, "gradOutput");
    const TensorView& in = requireTensor(a.input, "input");
    const TensorView& grid = requireTensor(a.grid, "grid");
    const TensorView& gi = requireTensor(a.inputGrad, "inputGrad");
    const TensorView& gg = requireTensor(a.gridGrad, "gridGrad");

    // 3. Product support and dtypes: every tensor has input's dtype.
    if (product == Product::AtlasInference)
        fail(status::kParamInvalid, Msg() << kOp << " is not supported on " << productName(product));
    checkDtypeIn(in, "input", dtypesFor(product), product);
    checkSameDtype(go, "gradOutput", in, "input");
    checkSameDtype(grid, "grid", in, "input");
    checkSameDtype(gi, "inputGrad", in, "input");
    checkSameDtype(gg, "gridGrad", in, "input");

    // 4. Formats: ND (origin formats are accepted as ND; private layouts are not).
    checkPlainFormat(go, "gradOutput");
    checkPlainFormat(in, "input");
    checkPlainFormat(grid, "grid");
    checkPlainFormat(gi, "inputGrad");
    checkPlainFormat(gg, "gridGrad");

    // 5. Attributes.
    if (a.interpolationMode < 0 || a.interpolationMode > 2)
        fail(status::kParamInvalid, Msg() << "interpolationMode " << a.interpolationMode
                                          << " is not supported: expected 0 (bilinear), 1 (nearest) or 2 (bicubic)");
    if (a.paddingMode < 0 || a.paddingMode > 2)
        fail(status::kParamInvalid, Msg() << "paddingMode " << a.paddingMode
                                          << " is not supported: expected 0 (zeros), 1 (border) or 2 (reflection)");

    // 6. Shapes.
    checkRank4(in, "input");
    checkRank4(grid, "grid");
    checkRank4(go, "gradOutput");
    const auto& is = in.shape;
    const auto& gs = grid.shape;
    const auto& os = go.shape;
    if (is[0] != gs[0] || is[0] != os[0])
        fail(status::kParamInvalid, Msg() << "input, grid and gradOutput must have the same batch size, got input "
                                          << shapeToString(is) << ", grid " << shapeToString(gs) << ", gradOutput "
                                          << shapeToString(os));
    if (is[1] != os[1])
        fail(status::kParamInvalid, Msg() << "input and gradOutput must have the same channel size, got input "
                                          << shapeToString(is) << ", gradOutput " << shapeToString(os));
    if (is[2] == 0 || is[3] == 0)
        fail(status::kParamInvalid, Msg() << "input must have non-empty spatial dimensions, got input "
                                          << shapeToString(is));
    if (gs[1] != os[2] || gs[2] != os[3])
        fail(status::kParamInvalid, Msg() << "grid and gradOutput must have the same H and W, got grid "
                                          << shapeToString(gs) << ", gradOutput " << shapeToString(os));
    if (gs[3] != 2)
        fail(status::kParamInvalid, Msg() << "grid last dimension must be 2 (x, y), got grid " << shapeToString(gs));
    checkSameShape(gi, "inputGrad", in, "input");
    checkSameShape(gg, "gridGrad", grid, "grid");

    const DType dtype = in.dtype;
    const auto interp = static_cast<GridInterpolation>(a.interpolationMode);
    const auto padding = static_cast<GridPadding>(a.paddingMode);
    const bool wantInput = mask[0], wantGrid = mask[1];
    const bool channelsLast = dtype != DType::Float64 && interp != GridInterpolation::Bicubic &&
                              padding != GridPadding::Reflection && productHasBFloat16(product) &&
                              is[1] <= kMaxChannelsLast;
    kernels::GridSamplerGradProblem prob;
    prob.N = is[0];
    prob.C = is[1];
    prob.H = is[2];
    prob.W = is[3];
    prob.Ho = gs[1];
    prob.Wo = gs[2];
    prob.interpolation = interp;
    prob.padding = padding;
    prob.alignCorners = a.alignCorners;
    prob.layout = channelsLast ? GridLayout::NHWC : GridLayout::NCHW;
    const kernels::ChannelBlocks blocks = kernels::gridSamplerChannelBlocks(prob.N, prob.C, numThreads());

    auto e = std::make_unique<aclOpExecutor>(kOp);
    e->addParam("interpolationMode", std::string(kInterpolationNames[a.interpolationMode]));
    e->addParam("paddingMode", std::string(kPaddingNames[a.paddingMode]));
    e->addParam("alignCorners", a.alignCorners);
    e->addParam("outputMask", mask);
    e->addParam("dtype", std::string(dtypeName(dtype)));
    e->addParam("layout", std::string(channelsLast ? "NHWC" : "NCHW"));
    e->addParam("channelBlocks", blocks.count);
    Plan& plan = e->plan();
    const int sGo = plan.addInput("gradOutput", go);
    const int sIn = plan.addInput("input", in);
    const int sGrid = plan.addInput("grid", grid);
    const int sGi = wantInput ? plan.addOutput("inputGrad", gi) : -1;
    const int sGg = wantGrid ? plan.addOutput("gridGrad", gg) : -1;

    // 7. Empty tensors: nothing to sample. The device returns without launching a kernel;
    //    OpScope writes PyTorch's result, zeros, into the selected outputs that have elements.
    if (go.numel() == 0 || in.numel() == 0 || grid.numel() == 0) {
        for (int s : {sGi, sGg})
            if (s >= 0 && plan.slot(s).view.numel() > 0) addZeroFill(plan, s);
        return e;
    }

    const bool needInput = wantGrid && interp != GridInterpolation::Nearest;
    const std::vector<int64_t> partialShape = {blocks.count, prob.N, prob.Ho, prob.Wo, 2};
    if (channelsLast) {
        const int cGo = materializeInput(plan, sGo, dtype);
        const int cIn = needInput ? materializeInput(plan, sIn, dtype) : -1;
        const int fGrid = materializeInput(plan, sGrid, DType::Float32);
        const std::string widened = dtype == DType::Float32 ? "" : std::string(" (") + dtypeName(dtype) + " widened to float32 in the same pass)";
        const int hGo = plan.addScratch("gradOutput.nhwc", DType::Float32, {prob.N, prob.Ho, prob.Wo, prob.C});
        plan.addStep({"Transpose", "gradOutput NCHW -> NHWC" + widened, {cGo}, {hGo}, [=](const StepContext& ctx) {
                          kernels::toChannelsLast(dtype, ctx.tensor(cGo).first(), ctx.data<float>(hGo), prob.N, prob.C,
                                                  prob.Ho * prob.Wo);
                      }});
        int hIn = -1;
        if (needInput) {
            hIn = plan.addScratch("input.nhwc", DType::Float32, {prob.N, prob.H, prob.W, prob.C});
            plan.addStep({"Transpose", "input NCHW -> NHWC" + widened, {cIn}, {hIn}, [=](const StepContext& ctx) {
                              kernels::toChannelsLast(dtype, ctx.tensor(cIn).first(), ctx.data<float>(hIn), prob.N,
                                                      prob.C, prob.H * prob.W);
                          }});
        }
        const int hGi = wantInput ? plan.addScratch("inputGrad.nhwc", DType::Float32, {prob.N, prob.H, prob.W, prob.C}) : -1;
        OutputTarget tGg;
        if (wantGrid) tGg = prepareOutput(plan, sGg, DType::Float32);
        const int partials = wantGrid && blocks.count > 1 ? plan.addScratch("gridGrad.partials", DType::Float32, partialShape) : -1;
        std::vector<int> ins = {hGo, fGrid}, outs;
        if (hIn >= 0) ins.push_back(hIn);
        for (int s : {hGi, tGg.compute, partials})
            if (s >= 0) outs.push_back(s);
        plan.addStep({"GridSamplerGrad",
                      std::string(kInterpolationNames[a.interpolationMode]) + "/" + kPaddingNames[a.paddingMode] +
                          " on NHWC float32: scatter into inputGrad (owned by batch x channel block), gather gridGrad",
                      ins, outs, [=](const StepContext& ctx) {
                          kernels::GridSamplerGradTensors<float> t;
                          t.gradOutput = ctx.data<float>(hGo);
                          t.input = hIn >= 0 ? ctx.data<float>(hIn) : nullptr;
                          t.grid = ctx.data<float>(fGrid);
                          t.inputGrad = hGi >= 0 ? ctx.data<float>(hGi) : nullptr;
                          t.gridGrad = tGg.compute >= 0 ? ctx.data<float>(tGg.compute) : nullptr;
                          t.gridPartials = partials >= 0 ? ctx.data<float>(partials) : nullptr;
                          kernels::gridSamplerGrad(prob, t, blocks);
                      }});
        if (wantInput) {
            const OutputTarget tGi = prepareOutput(plan, sGi, dtype);
            plan.addStep({"Transpose",
                          "inputGrad NHWC -> NCHW" + std::string(dtype == DType::Float32 ? "" : std::string(" (rounded once to ") + dtypeName(dtype) + ")"),
                          {hGi}, {tGi.compute}, [=](const StepContext& ctx) {
                              kernels::toChannelsFirst(ctx.data<float>(hGi), dtype, ctx.tensor(tGi.compute).first(),
                                                       prob.N, prob.C, prob.H * prob.W);
                          }});
            deliverOutput(plan, tGi);
        }
        if (wantGrid) deliverOutput(plan, tGg);
        return e;
    }

    // NCHW chain; compute in float32, or float64 for float64 data.
    const DType ct = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
    const int cGo = materializeInput(plan, sGo, ct);
    const int cIn = needInput ? materializeInput(plan, sIn, ct) : -1;
    const int cGrid = materializeInput(plan, sGrid, ct);
    OutputTarget tGi, tGg;
    if (wantInput) tGi = prepareOutput(plan, sGi, ct);
    if (wantGrid) tGg = prepareOutput(plan, sGg, ct);
    const int partials = wantGrid && blocks.count > 1 ? plan.addScratch("gridGrad.partials", ct, partialShape) : -1;
    std::vector<int> ins = {cGo, cGrid}, outs;
    if (cIn >= 0) ins.push_back(cIn);
    for (int s : {tGi.compute, tGg.compute, partials})
        if (s >= 0) outs.push_back(s);
    plan.addStep({"GridSampler2DGrad",
                  std::string(kInterpolationNames[a.interpolationMode]) + "/" + kPaddingNames[a.paddingMode] + " on NCHW " +
                      dtypeName(ct) + ": scatter into inputGrad (owned by batch x channel block), gather gridGrad",
                  ins, outs, [=](const StepContext& ctx) {
                      auto runAs = [&](auto tag) {
                          using T = typename decltype(tag)::type;
                          kernels::GridSamplerGradTensors<T> t;
                          t.gradOutput = ctx.data<T>(cGo);
                          t.input = cIn >= 0 ? ctx.data<T>(cIn) : nullptr;
                          t.grid = ctx.data<T>(cGrid);
                          t.inputGrad = tGi.compute >= 0 ? ctx.data<T>(tGi.compute) : nullptr;
                          t.gridGrad = tGg.compute >= 0 ? ctx.data<T>(tGg.compute) : nullptr;
                          t.gridPartials = partials >= 0 ? ctx.data<T>(partials) : nullptr;
                          kernels::gridSamplerGrad(prob, t, blocks);
                      };
                      if (ct == DType::Float64) runAs(TypeTag<double>{});
                      else runAs(TypeTag<float>{});
                  }});
    if (wantInput) deliverOutput(plan, tGi);
    if (wantGrid) deliverOutput(plan, tGg);
    return e;
}

}  // namespace
}  // namespace opscope

extern "C" {

aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* input,
                                                       const aclTensor* grid, int64_t interpolationMode,
                                                       int64_t paddingMode, bool alignCorners,
                                                       const aclBoolArray* outputMask, aclTensor* inputGrad,
                                                       aclTensor* gridGrad, uint64_t* workspaceSize,
                                                       aclOpExecutor** executor) {
    using namespace opscope;
    const Args args{gradOutput, input, grid, interpolationMode, paddingMode, alignCorners, outputMask, inputGrad, gridGrad};
    return prepareExecutor("aclnnGridSampler2DBackwardGetWorkspaceSize", workspaceSize, executor,
                           [&] { return build(args); });
}

aclnnStatus aclnnGridSampler2DBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                       aclrtStream stream) {
    return opscope::launchExecutor("aclnnGridSampler2DBackward", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
