// aclnnGridSampler2DBackward front end: validates (grid_sampler2d_backward_checks.cpp), then
// plans one of the device's two chains:
//   NHWC (A2/A3; bilinear or nearest; zeros or border; C <= 2048; not float64):
//     [Contiguous] [Cast grid] Transpose(gradOutput) [Transpose(input)] GridSamplerGrad
//     [Transpose(inputGrad)] [Cast gridGrad] [ViewCopy]
//   NCHW (everything else):
//     [Contiguous] [Cast] GridSampler2DGrad [Cast] [ViewCopy]
// Formulas, the checks' numbering and the decisions: ops/grid_sampler2d_backward/README.md.
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

#include "channels_last.h"
#include "grid_sampler2d_backward_checks.h"
#include "grid_sampler2d_backward_kernel.h"
#include "opscope/op_support.h"
#include "opscope/parallel.h"
#include "opscope/standard_steps.h"

namespace opscope {
namespace {

using grid_sampler::GridSamplerProblem;
using kernels::GridInterpolation;
using kernels::GridLayout;
using kernels::GridPadding;

constexpr const char* kOp = "aclnnGridSampler2DBackward";
constexpr int64_t kMaxChannelsLast = 2048;  // the device's NHWC kernel takes C <= 2048

// The plan's user slots and what the kernels need of them.
struct Slots {
    int gradOutput = -1, input = -1, grid = -1, inputGrad = -1, gridGrad = -1;  // -1: not wanted
    bool needInput = false;  // gridGrad gathers input values (not for nearest)
};

std::unique_ptr<aclOpExecutor> emptyExecutor(const std::string& why) {
    auto e = std::make_unique<aclOpExecutor>(kOp);
    e->addParam("outputMask", why);
    return e;
}

std::string modeNames(const GridSamplerProblem& p) {
    return std::string(grid_sampler::interpolationName(p.interpolation)) + "/" + grid_sampler::paddingName(p.padding);
}

kernels::GridSamplerGradProblem kernelProblem(const GridSamplerProblem& p) {
    const auto &is = p.input->shape, &gs = p.grid->shape;
    kernels::GridSamplerGradProblem prob;
    prob.N = is[0];
    prob.C = is[1];
    prob.H = is[2];
    prob.W = is[3];
    prob.Ho = gs[1];
    prob.Wo = gs[2];
    prob.interpolation = p.interpolation;
    prob.padding = p.padding;
    prob.alignCorners = p.alignCorners;
    const bool channelsLast = p.input->dtype != DType::Float64 && p.interpolation != GridInterpolation::Bicubic &&
                              p.padding != GridPadding::Reflection && productHasBFloat16(p.product) &&
                              prob.C <= kMaxChannelsLast;
    prob.layout = channelsLast ? GridLayout::NHWC : GridLayout::NCHW;
    return prob;
}

// The kernel's buffers in the slots given (-1: none), all of the compute type `ct`.
kernels::GridSamplerGradTensors kernelTensors(const StepContext& ctx, DType ct, int gradOutput, int input, int grid,
                                              int inputGrad, int gridGrad, int partials) {
    auto at = [&](int slot) { return slot >= 0 ? ctx.tensor(slot).first() : nullptr; };
    kernels::GridSamplerGradTensors t;
    t.dtype = ct;
    t.gradOutput = at(gradOutput);
    t.input = at(input);
    t.grid = at(grid);
    t.inputGrad = at(inputGrad);
    t.gridGrad = at(gridGrad);
    t.gridPartials = at(partials);
    return t;
}

// The NHWC chain (A2/A3): Transpose in (widening fused), GridSamplerGrad on float32, Transpose out.
void planChannelsLast(Plan& plan, const GridSamplerProblem& p, const kernels::GridSamplerGradProblem& prob,
                      const kernels::ChannelBlocks& blocks, const Slots& s) {
    const DType dtype = p.input->dtype;
    const int cGo = materializeInput(plan, s.gradOutput, dtype);
    const int cIn = s.needInput ? materializeInput(plan, s.input, dtype) : -1;
    const int fGrid = materializeInput(plan, s.grid, DType::Float32);
    const std::string widened =
        dtype == DType::Float32 ? "" : std::string(" (") + dtypeName(dtype) + " widened to float32 in the same pass)";
    const int hGo = plan.addScratch("gradOutput.nhwc", DType::Float32, {prob.N, prob.Ho, prob.Wo, prob.C});
    plan.addStep({"Transpose", "gradOutput NCHW -> NHWC" + widened, {cGo}, {hGo}, [=](const StepContext& ctx) {
                      kernels::toChannelsLast(dtype, ctx.tensor(cGo).first(), ctx.data<float>(hGo), prob.N, prob.C,
                                              prob.Ho * prob.Wo);
                  }});
    int hIn = -1;
    if (s.needInput) {
        hIn = plan.addScratch("input.nhwc", DType::Float32, {prob.N, prob.H, prob.W, prob.C});
        plan.addStep({"Transpose", "input NCHW -> NHWC" + widened, {cIn}, {hIn}, [=](const StepContext& ctx) {
                          kernels::toChannelsLast(dtype, ctx.tensor(cIn).first(), ctx.data<float>(hIn), prob.N, prob.C,
                                                  prob.H * prob.W);
                      }});
    }
    const int hGi =
        s.inputGrad >= 0 ? plan.addScratch("inputGrad.nhwc", DType::Float32, {prob.N, prob.H, prob.W, prob.C}) : -1;
    OutputTarget tGg;
    if (s.gridGrad >= 0) tGg = prepareOutput(plan, s.gridGrad, DType::Float32);
    const int partials =
        s.gridGrad >= 0 && blocks.count > 1
            ? plan.addScratch("gridGrad.partials", DType::Float32, {blocks.count, prob.N, prob.Ho, prob.Wo, 2})
            : -1;
    std::vector<int> ins = {hGo, fGrid}, outs;
    if (hIn >= 0) ins.push_back(hIn);
    for (int slot : {hGi, tGg.compute, partials})
        if (slot >= 0) outs.push_back(slot);
    plan.addStep(
        {"GridSamplerGrad",
         modeNames(p) + " on NHWC float32: scatter into inputGrad (owned by batch x channel block), gather gridGrad",
         ins, outs, [=](const StepContext& ctx) {
             const auto t = kernelTensors(ctx, DType::Float32, hGo, hIn, fGrid, hGi, tGg.compute, partials);
             kernels::gridSamplerGrad(prob, t, blocks);
         }});
    if (s.inputGrad >= 0) {
        const OutputTarget tGi = prepareOutput(plan, s.inputGrad, dtype);
        plan.addStep(
            {"Transpose",
             "inputGrad NHWC -> NCHW" +
                 std::string(dtype == DType::Float32 ? "" : std::string(" (rounded once to ") + dtypeName(dtype) + ")"),
             {hGi},
             {tGi.compute},
             [=](const StepContext& ctx) {
                 kernels::toChannelsFirst(ctx.data<float>(hGi), dtype, ctx.tensor(tGi.compute).first(), prob.N, prob.C,
                                          prob.H * prob.W);
             }});
        deliverOutput(plan, tGi);
    }
    if (s.gridGrad >= 0) deliverOutput(plan, tGg);
}

// The NCHW chain: compute in float32, or float64 for float64 data.
void planChannelsFirst(Plan& plan, const GridSamplerProblem& p, const kernels::GridSamplerGradProblem& prob,
                       const kernels::ChannelBlocks& blocks, const Slots& s) {
    const DType ct = p.input->dtype == DType::Float64 ? DType::Float64 : DType::Float32;
    const int cGo = materializeInput(plan, s.gradOutput, ct);
    const int cIn = s.needInput ? materializeInput(plan, s.input, ct) : -1;
    const int cGrid = materializeInput(plan, s.grid, ct);
    OutputTarget tGi, tGg;
    if (s.inputGrad >= 0) tGi = prepareOutput(plan, s.inputGrad, ct);
    if (s.gridGrad >= 0) tGg = prepareOutput(plan, s.gridGrad, ct);
    const int partials = s.gridGrad >= 0 && blocks.count > 1
                             ? plan.addScratch("gridGrad.partials", ct, {blocks.count, prob.N, prob.Ho, prob.Wo, 2})
                             : -1;
    std::vector<int> ins = {cGo, cGrid}, outs;
    if (cIn >= 0) ins.push_back(cIn);
    for (int slot : {tGi.compute, tGg.compute, partials})
        if (slot >= 0) outs.push_back(slot);
    plan.addStep({"GridSampler2DGrad",
                  modeNames(p) + " on NCHW " + dtypeName(ct) +
                      ": scatter into inputGrad (owned by batch x channel block), gather gridGrad",
                  ins, outs, [=](const StepContext& ctx) {
                      const auto t = kernelTensors(ctx, ct, cGo, cIn, cGrid, tGi.compute, tGg.compute, partials);
                      kernels::gridSamplerGrad(prob, t, blocks);
                  }});
    if (s.inputGrad >= 0) deliverOutput(plan, tGi);
    if (s.gridGrad >= 0) deliverOutput(plan, tGg);
}

std::unique_ptr<aclOpExecutor> planGridSampler2DBackward(const GridSamplerProblem& p) {
    if (!p.nothingAsked.empty()) return emptyExecutor(p.nothingAsked);
    const kernels::GridSamplerGradProblem prob = kernelProblem(p);
    const kernels::ChannelBlocks blocks = kernels::gridSamplerChannelBlocks(prob.N, prob.C, numThreads());
    auto e = std::make_unique<aclOpExecutor>(kOp);
    e->addParam("interpolationMode", std::string(grid_sampler::interpolationName(p.interpolation)));
    e->addParam("paddingMode", std::string(grid_sampler::paddingName(p.padding)));
    e->addParam("alignCorners", p.alignCorners);
    e->addParam("outputMask", p.mask);
    e->addParam("dtype", std::string(dtypeName(p.input->dtype)));
    e->addParam("layout", std::string(prob.layout == GridLayout::NHWC ? "NHWC" : "NCHW"));
    e->addParam("channelBlocks", blocks.count);
    Plan& plan = e->plan();
    Slots s;
    s.gradOutput = plan.addInput("gradOutput", *p.gradOutput);
    s.input = plan.addInput("input", *p.input);
    s.grid = plan.addInput("grid", *p.grid);
    s.inputGrad = p.wantInputGrad ? plan.addOutput("inputGrad", *p.inputGrad) : -1;
    s.gridGrad = p.wantGridGrad ? plan.addOutput("gridGrad", *p.gridGrad) : -1;
    s.needInput = p.wantGridGrad && p.interpolation != GridInterpolation::Nearest;

    // Empty tensors: nothing to sample. The device returns without launching a kernel;
    // OpScope writes PyTorch's result, zeros, into the selected outputs that have elements.
    if (p.gradOutput->numel() == 0 || p.input->numel() == 0 || p.grid->numel() == 0) {
        for (int slot : {s.inputGrad, s.gridGrad})
            if (slot >= 0 && plan.slot(slot).view.numel() > 0) addZeroFill(plan, slot);
        return e;
    }
    if (prob.layout == GridLayout::NHWC)
        planChannelsLast(plan, p, prob, blocks, s);
    else
        planChannelsFirst(plan, p, prob, blocks, s);
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
    const grid_sampler::GridSamplerArgs args{gradOutput,   input,      grid,      interpolationMode, paddingMode,
                                             alignCorners, outputMask, inputGrad, gridGrad};
    return prepareExecutor("aclnnGridSampler2DBackwardGetWorkspaceSize", workspaceSize, executor, [&] {
        return planGridSampler2DBackward(grid_sampler::validateGridSampler2DBackward(args, currentProduct()));
    });
}

aclnnStatus aclnnGridSampler2DBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                       aclrtStream stream) {
    return opscope::launchExecutor("aclnnGridSampler2DBackward", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
