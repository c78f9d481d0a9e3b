// aclnnConvolutionBackward front end: validates (convolution_backward_checks.cpp), then plans
//   [Contiguous] [Cast | Cast(HF32) | Cast(FP16)]   operands as the cube sees them
//   Conv2DBackpropInput | Conv3DBackpropInput       gradInput of a convolution (GEMM + col2im)
//   Conv2D | Conv3D                                 gradInput of a transposed one (im2col + GEMM)
//   Conv2DBackpropFilter | Conv3DBackpropFilter     gradWeight (im2col + GEMM, float32 sums)
//   ReduceSum                                       gradBias
//   [Cast -> output dtype] [ViewCopy]
// 1D runs as 2D with H = 1, as on the device. Formulas, checks and the precision table:
// ops/convolution_backward/README.md.
#include "aclnnop/aclnn_convolution_backward.h"

#include <algorithm>
#include <map>

#include "convolution_backward_checks.h"
#include "conv_input_as_forward.h"
#include "conv_padded_input.h"
#include "convolution_backward_kernel.h"
#include "cube_precision.h"
#include "opscope/op_support.h"
#include "opscope/parallel.h"
#include "opscope/standard_steps.h"

namespace opscope {
namespace {

using conv::CubePrecision;
using kernels::CubeRounding;

constexpr const char* kOp = "aclnnConvolutionBackward";

// Dense float32 views of the inputs, each step added once: `dense` (Contiguous), `raw`
// (+ exact Cast to float32) and `cube` (+ Cast(HF32)/Cast(FP16) when cubeMathType rounds).
class Operands {
public:
    Operands(Plan& plan, CubePrecision precision) : plan_(plan), precision_(precision) {}

    int dense(int slot) {
        return memo(dense_, slot, [&] { return materializeInput(plan_, slot, plan_.slot(slot).view.dtype); });
    }
    int raw(int slot) {
        return memo(raw_, slot, [&] { return materializeInput(plan_, dense(slot), DType::Float32); });
    }
    int cube(int slot) {
        return memo(cube_, slot, [&] {
            const Slot user = plan_.slot(slot);
            const CubeRounding r = conv::cubeRoundingOf(precision_, user.view.dtype);
            if (r == CubeRounding::None) return raw(slot);
            const int src = dense(slot);
            const bool hf32 = r == CubeRounding::HF32;
            const int out = plan_.addScratch(user.name + (hf32 ? ".hf32" : ".fp16"), DType::Float32, user.view.shape);
            plan_.addStep({hf32 ? "Cast(HF32)" : "Cast(FP16)",
                           user.name + " " + dtypeName(user.view.dtype) +
                               (hf32 ? " -> hfloat32 (mantissa rounded to 11 bits, nearest even)"
                                     : " -> float16 (nearest even)") +
                               ", held in float32 for the cube",
                           {src},
                           {out},
                           [src, out, r](const StepContext& ctx) {
                               kernels::castForCube(ctx.tensor(src), ctx.data<float>(out), r);
                           }});
            return out;
        });
    }

private:
    template <class Make>
    int memo(std::map<int, int>& m, int slot, Make&& make) {
        auto it = m.find(slot);
        if (it != m.end()) return it->second;
        const int s = make();
        m[slot] = s;
        return s;
    }
    Plan& plan_;
    CubePrecision precision_;
    std::map<int, int> dense_, raw_, cube_;
};

// Zeroes a stage's scratch (so it holds the same bytes after every run of the step), all but its
// first `written` bytes: a padded copy the stage writes whole, zeros included, which a memset
// would only write twice (measured 1-2% of today's 3x3 fp32 call).
void zeroScratch(const StepContext& ctx, int slot, int64_t written = 0) {
    if (slot < 0) return;
    const TensorView v = ctx.tensor(slot);
    const int64_t skip = std::min<int64_t>(v.numel(), written / 4);  // floats the copy fills whole
    std::fill_n(static_cast<float*>(v.first()) + skip, v.numel() - skip, 0.0f);
}

template <class T = float>
T* dataOrNull(const StepContext& ctx, int slot) {
    return slot >= 0 ? ctx.data<T>(slot) : nullptr;
}

// Runs fn with a value of the cube operands' element type: uint16_t for bf16 storage read by the
// bf16 GEMM directly (no widening Cast), float otherwise.
template <class Fn>
void withOperandType(bool bf16Storage, Fn&& fn) {
    if (bf16Storage)
        fn(uint16_t{});
    else
        fn(float{});
}

void addParams(aclOpExecutor& e, const conv::ConvProblem& p) {
    e.addParam("stride", p.stride);
    e.addParam("padding", p.padding);
    e.addParam("dilation", p.dilation);
    e.addParam("transposed", p.transposed);
    e.addParam("outputPadding", p.outputPadding);
    e.addParam("groups", p.groups);
    e.addParam("outputMask", p.mask);
    // The value the caller passed (a trace replays it) and, apart, its name for people.
    e.addParam("cubeMathType", static_cast<int64_t>(p.cubeMathType));
    e.addParam("cubeMathTypeName", std::string(conv::cubeMathTypeName(p.cubeMathType)));
    e.addParam("promotedDtype", std::string(dtypeName(p.promoted)));
    e.addParam("cubePrecision", std::string(conv::cubePrecisionName(p.precision)));
}

// The plan's user slots; outputs are -1 when not wanted.
struct Slots {
    int dy = -1, x = -1, w = -1;
    int out[3] = {-1, -1, -1};  // gradInput, gradWeight, gradBias
};

// gradBias sums the gradOutput as given (the vector unit, not the cube): never rounded.
void planBiasGrad(Plan& plan, Operands& ops, const conv::ConvProblem& p, const Slots& s, bool bf16Storage) {
    if (s.out[2] < 0) return;
    const TensorView& dyView = *p.gradOutput;
    if (dyView.numel() == 0) {  // N = 0: the sum over an empty batch
        addZeroFill(plan, s.out[2]);
        return;
    }
    const int dy = bf16Storage ? ops.dense(s.dy) : ops.raw(s.dy);
    const OutputTarget tb = prepareOutput(plan, s.out[2], DType::Float32);
    const int64_t N = dyView.shape[0], C = dyView.shape[1], positions = dyView.numel() / std::max<int64_t>(1, N * C);
    plan.addStep({"ReduceSum",
                  "gradBias[c] = sum of gradOutput[n, c, ...] over N and the spatial axes (double sums)",
                  {dy},
                  {tb.compute},
                  [=](const StepContext& ctx) {
                      withOperandType(bf16Storage, [&](auto zero) {
                          using T = decltype(zero);
                          kernels::biasGrad(N, C, positions, ctx.data<T>(dy), ctx.data<float>(tb.compute));
                      });
                  }});
    deliverOutput(plan, tb);
}

// The cube operands and the im2col scratch the gradInput and gradWeight steps share.
struct CubeOperands {
    int dy = -1, x = -1, w = -1, cols = -1;
    std::string convName, dims;
    bool bf16Storage = false;        // dy, x, w are the bf16 inputs themselves (packed_gemm.h)
    bool inputAsForward = false;     // gradInput of a stride-1 convolution: conv_input_as_forward.h
    bool flipPadded = false;         // ... computed by convGatherOutputPadded (float32 operands)
    kernels::ConvTiling flipTiling;  // the tiling of that forward convolution
};

// Conv{2,3}DBackpropInput of a stride-1 convolution: the forward convolution of gradOutput with
// the flipped weights (written into the workspace first), one deep GEMM per tile, no col2im.
void planInputGradAsForward(Plan& plan, const kernels::ConvGeometry& g, const CubeOperands& c, int dx) {
    const kernels::ConvGeometry f = kernels::flippedGeometry(g);
    const kernels::ConvTiling tiling = c.flipTiling;
    const int dy = c.dy, w = c.w, cols = c.cols;
    const bool bf16 = c.bf16Storage, padded = c.flipPadded;
    // [CX, CY/g·K] as the forward convolution's weight; for the padded gather [CY·K, CX/g], along CX
    const std::vector<int64_t> flippedShape =
        padded ? std::vector<int64_t>{g.CY * g.kernelSize(), g.CXg} : std::vector<int64_t>{f.CY, f.colRows()};
    const int flipped = plan.addScratch("weight.flipped", bf16 ? DType::BFloat16 : DType::Float32, flippedShape);
    plan.addStep({c.convName + "BackpropInput",
                  std::string("gradInput = weight flipped x im2col(gradOutput) per image, group and tile (stride 1: "
                              "the forward convolution with the flipped weights, no col2im") +
                      (padded ? "; computed transposed, im2col read in place from a zero-padded copy)" : ")") + c.dims,
                  {dy, w},
                  {dx, flipped, cols},
                  [=](const StepContext& ctx) {
                      if (padded) {
                          zeroScratch(ctx, cols, kernels::paddedCopyElements(f) * 4);
                          kernels::flipWeightsByTap(g, ctx.data<float>(w), ctx.data<float>(flipped));
                          kernels::convGatherOutputPadded(f, tiling, ctx.data<float>(flipped), ctx.data<float>(dy),
                                                          ctx.data<float>(dx), ctx.data<float>(cols));
                          return;
                      }
                      zeroScratch(ctx, cols);
                      withOperandType(bf16, [&](auto zero) {
                          using T = decltype(zero);
                          kernels::flipWeights(g, ctx.data<T>(w), ctx.data<T>(flipped));
                          kernels::convGatherOutput(f, tiling, ctx.data<T>(flipped), ctx.data<T>(dy),
                                                    ctx.data<float>(dx), ctx.data<T>(cols));
                      });
                  }});
}

void planInputGrad(Plan& plan, const conv::ConvProblem& p, const kernels::ConvGeometry& g,
                   const kernels::ConvTiling& tiling, const CubeOperands& c, int userOut) {
    const OutputTarget t = prepareOutput(plan, userOut, DType::Float32);
    const int dx = t.compute, dy = c.dy, w = c.w, cols = c.cols;
    const bool bf16 = c.bf16Storage;
    std::vector<int> outs = {dx};
    if (cols >= 0) outs.push_back(cols);
    if (c.inputAsForward) {
        planInputGradAsForward(plan, g, c, dx);
    } else {
        // A transposed convolution's gradInput is the forward convolution of gradOutput (gather);
        // a convolution's is weight^T x gradOutput scattered back by col2im.
        const bool gather = p.transposed;
        plan.addStep({gather ? c.convName : c.convName + "BackpropInput",
                      (gather ? "gradInput of the transposed convolution = weight x im2col(gradOutput), the forward "
                                "convolution, per image, group and tile"
                              : "gradInput = col2im(weight^T x gradOutput) per image, group and channel block") +
                          c.dims,
                      {dy, w},
                      outs,
                      [=](const StepContext& ctx) {
                          zeroScratch(ctx, cols);
                          withOperandType(bf16, [&](auto zero) {
                              using T = decltype(zero);
                              if (gather)
                                  kernels::convGatherOutput(g, tiling, ctx.data<T>(w), ctx.data<T>(dy),
                                                            ctx.data<float>(dx), dataOrNull<T>(ctx, cols));
                              else
                                  kernels::convScatterInput(g, tiling, ctx.data<T>(w), ctx.data<T>(dy),
                                                            ctx.data<float>(dx), dataOrNull(ctx, cols));
                          });
                      }});
    }
    deliverOutput(plan, t);
}

void planWeightGrad(Plan& plan, const conv::ConvProblem& p, const kernels::ConvGeometry& g,
                    const kernels::ConvTiling& tiling, const CubeOperands& c, int userOut) {
    const OutputTarget t = prepareOutput(plan, userOut, DType::Float32);
    const int dw = t.compute, cols = c.cols;
    int partials = -1;
    if (kernels::filterPartialFloats(g, tiling) > 0)  // per slice, [G, colRows, CYg]: dW transposed
        partials = plan.addScratch("gradWeight.partials", DType::Float32, {tiling.slices, g.CY, g.colRows()});
    std::vector<int> outs = {dw};
    if (partials >= 0) outs.push_back(partials);
    if (cols >= 0) outs.push_back(cols);
    // Convolution: Y = gradOutput, X = input. Transposed: Y = input, X = gradOutput.
    const int ySide = p.transposed ? c.x : c.dy, xSide = p.transposed ? c.dy : c.x;
    const bool bf16 = c.bf16Storage;
    plan.addStep({c.convName + "BackpropFilter",
                  std::string("gradWeight = sum over N of ") +
                      (p.transposed ? "input x im2col(gradOutput)^T" : "gradOutput x im2col(input)^T") +
                      (tiling.filterPadded ? ", read in place from a zero-padded copy" : "") +
                      (tiling.filterByGroup
                           ? std::string(", float32 sums, parallel over groups")
                           : ", float32 sums in " + std::to_string(tiling.slices) + " slice(s) added in order") +
                      c.dims,
                  {c.dy, c.x},
                  outs,
                  [=](const StepContext& ctx) {
                      withOperandType(bf16, [&](auto zero) {
                          using T = decltype(zero);
                          const int64_t copied = tiling.filterPadded ? kernels::paddedCopyElements(g) : 0;
                          zeroScratch(ctx, cols, copied * static_cast<int64_t>(sizeof(T)));
                          kernels::convFilterGrad(g, tiling, ctx.data<T>(ySide), ctx.data<T>(xSide),
                                                  ctx.data<float>(dw), dataOrNull(ctx, partials),
                                                  dataOrNull<T>(ctx, cols));
                      });
                  }});
    deliverOutput(plan, t);
}

kernels::ConvTiling tilingFor(aclOpExecutor& e, const conv::ConvProblem& p, const kernels::ConvGeometry& g) {
    kernels::ConvTiling tiling = kernels::chooseTiling(g, numThreads());
    // bf16 operands multiply exactly and sum in float32 either way; the dot-product kernel is faster.
    const bool bf16Dot =
        p.precision == CubePrecision::BFloat16 && kernels::packedGemmAvailable(kernels::GemmKind::BFloat16);
    tiling.gemm = bf16Dot ? kernels::GemmKind::BFloat16 : kernels::GemmKind::Float32;
    tiling.filterPadded = kernels::paddedFilterApplies(g, tiling);
    e.addParam("gemmTile", tiling.tile);
    e.addParam("workers", tiling.workers);
    e.addParam("gradWeightSlices", tiling.slices);
    e.addParam("gemm", std::string(kernels::gemmDescription(tiling.gemm)));
    return tiling;
}

// bf16 inputs with the bf16 cube precision go to the stages as stored (no widening Cast): the
// GEMMs on the AVX512-BF16 kernel only; the depthwise kernels on any build (they widen planes).
bool readsBf16Storage(const conv::ConvProblem& p, const kernels::ConvGeometry& g, const kernels::ConvTiling& tiling) {
    if (p.promoted != DType::BFloat16) return false;
    if (g.depthwise()) return p.precision == CubePrecision::BFloat16;
    return tiling.gemm == kernels::GemmKind::BFloat16 && kernels::bf16StorageAvailable();
}

std::unique_ptr<aclOpExecutor> planConvolutionBackward(const conv::ConvProblem& p) {
    auto e = std::make_unique<aclOpExecutor>(kOp);
    addParams(*e, p);
    Plan& plan = e->plan();
    Slots s;
    s.dy = plan.addInput("gradOutput", *p.gradOutput);
    s.x = plan.addInput("input", *p.input);
    s.w = plan.addInput("weight", *p.weight);
    static const char* const names[3] = {"gradInput", "gradWeight", "gradBias"};
    for (int i = 0; i < 3; ++i)
        if (p.outputs[i]) s.out[i] = plan.addOutput(names[i], *p.outputs[i]);
    Operands ops(plan, p.precision);

    // Empty input (N = 0 or C = 0): gradInput is empty, gradWeight of an empty batch is zero.
    if (p.emptyInput) {
        if (s.out[1] >= 0 && p.outputs[1]->numel() > 0) addZeroFill(plan, s.out[1]);
        planBiasGrad(plan, ops, p, s, false);
        return e;
    }

    const kernels::ConvGeometry g = conv::geometryOf(p);
    const kernels::ConvTiling tiling = tilingFor(*e, p, g);
    // Operands in the cube's precision, in the device's order: gradOutput, input, weight.
    const bool wantDx = s.out[0] >= 0, wantDw = s.out[1] >= 0;
    CubeOperands c;
    c.bf16Storage = readsBf16Storage(p, g, tiling);
    auto operand = [&](int slot) { return c.bf16Storage ? ops.dense(slot) : ops.cube(slot); };
    c.dy = (wantDx || wantDw) ? operand(s.dy) : -1;
    c.x = wantDw ? operand(s.x) : -1;
    c.w = wantDx ? operand(s.w) : -1;
    if (s.out[2] >= 0 && p.gradOutput->numel() > 0 && !c.bf16Storage) ops.raw(s.dy);
    // Measured (bench/README.md): with the bf16 kernel the gather pays (half-size bf16 columns, no
    // float32 col2im pass); with float32 operands only computed transposed from a padded copy.
    const kernels::ConvGeometry f = kernels::flippedGeometry(g);
    if (wantDx && !p.transposed && kernels::gradInputAsForward(g)) {
        c.flipTiling = kernels::chooseTiling(f, numThreads());
        c.flipTiling.gemm = tiling.gemm;
        c.flipPadded = !c.bf16Storage && kernels::paddedGatherApplies(f, c.flipTiling);
        c.inputAsForward = c.bf16Storage || c.flipPadded;
    }
    int64_t colsFloats = (wantDx && !c.inputAsForward) ? kernels::colsBufferFloats(g, tiling) : 0;
    if (wantDw) {  // the same scratch: gradWeight's im2col buffers or the padded copy of the input
        const int64_t padded = (kernels::paddedCopyElements(g) + 1) / (c.bf16Storage ? 2 : 1);  // bf16: 2 a float
        colsFloats = std::max(colsFloats, tiling.filterPadded ? padded : kernels::colsBufferFloats(g, tiling));
    }
    if (c.inputAsForward)
        colsFloats = std::max(colsFloats, c.flipPadded ? kernels::paddedGatherFloats(f, c.flipTiling)
                                                       : kernels::colsBufferFloats(f, c.flipTiling));
    if (colsFloats > 0) c.cols = plan.addScratch("im2col", DType::Float32, {colsFloats});
    c.convName = p.spatial == 3 ? "Conv3D" : "Conv2D";
    c.dims = p.spatial == 1 ? " (1D as 2D with H = 1)" : "";
    if (wantDx) planInputGrad(plan, p, g, tiling, c, s.out[0]);
    if (wantDw) planWeightGrad(plan, p, g, tiling, c, s.out[1]);
    planBiasGrad(plan, ops, p, s, c.bf16Storage);
    return e;
}

}  // namespace
}  // namespace opscope

extern "C" {

aclnnStatus aclnnConvolutionBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* input,
                                                     const aclTensor* weight, const aclIntArray* biasSizes,
                                                     const aclIntArray* stride, const aclIntArray* padding,
                                                     const aclIntArray* dilation, bool transposed,
                                                     const aclIntArray* outputPadding, int groups,
                                                     const aclBoolArray* outputMask, int8_t cubeMathType,
                                                     aclTensor* gradInput, aclTensor* gradWeight, aclTensor* gradBias,
                                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
    using namespace opscope;
    const conv::ConvArgs args{gradOutput, input,        weight,     biasSizes,     stride,
                              padding,    dilation,     transposed, outputPadding, groups,
                              outputMask, cubeMathType, gradInput,  gradWeight,    gradBias};
    return prepareExecutor("aclnnConvolutionBackwardGetWorkspaceSize", workspaceSize, executor, [&] {
        return planConvolutionBackward(conv::validateConvolutionBackward(args, currentProduct()));
    });
}

aclnnStatus aclnnConvolutionBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                     const aclrtStream stream) {
    return opscope::launchExecutor("aclnnConvolutionBackward", workspace, workspaceSize, executor, stream);
}

}  // extern "C"
