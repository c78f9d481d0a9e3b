// Phase-1 checks of aclnnGridSampler2DBackward, numbered as in
// ops/grid_sampler2d_backward/README.md. The first failing check wins; every message names the
// argument and the values seen.
#include "grid_sampler2d_backward_checks.h"

#include "opscope/op_support.h"

namespace opscope::grid_sampler {
namespace {

constexpr const char* kOp = "aclnnGridSampler2DBackward";
const char* const kInterpolationNames[] = {"bilinear", "nearest", "bicubic"};
const char* const kPaddingNames[] = {"zeros", "border", "reflection"};

// float64 is an OpScope extension (golden computations) on every supported product.
std::vector<DType> dtypesFor(Product p) {
    if (productHasBFloat16(p)) return {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};
    return {DType::Float32, DType::Float16, DType::Float64};
}

using Args = GridSamplerArgs;
using Problem = GridSamplerProblem;

// The five tensors in signature order.
constexpr TensorArgument<Args, Problem> kTensors[] = {{&Args::gradOutput, &Problem::gradOutput, "gradOutput"},
                                                      {&Args::input, &Problem::input, "input"},
                                                      {&Args::grid, &Problem::grid, "grid"},
                                                      {&Args::inputGrad, &Problem::inputGrad, "inputGrad"},
                                                      {&Args::gridGrad, &Problem::gridGrad, "gridGrad"}};

void checkRank4(const TensorView& v, const char* name) {
    if (v.rank() != 4)
        fail(status::kParamInvalid,
             Msg() << name << " must be 4-D, got rank " << v.rank() << " (shape " << shapeToString(v.shape) << ")");
}

// 1. The output mask: null or [false, false] asks for nothing (returns true); else 2 entries.
bool checkNothingAsked(const GridSamplerArgs& a, GridSamplerProblem& p) {
    if (!a.outputMask) {
        p.nothingAsked = "null";
        return true;
    }
    p.mask = requireBoolArray(a.outputMask, "outputMask");
    checkMaskLength(p.mask, {"inputGrad", "gridGrad"});
    p.wantInputGrad = p.mask[0];
    p.wantGridGrad = p.mask[1];
    if (!p.wantInputGrad && !p.wantGridGrad) p.nothingAsked = "[false, false]";
    return !p.nothingAsked.empty();
}

// 2. Required pointers: all five tensors, whichever outputs the mask selects (as the device).
void checkPointers(const GridSamplerArgs& a, GridSamplerProblem& p) { requireTensors(kTensors, a, p); }

// 3b. input's dtype is supported; every tensor has it.
void checkDtypes(const GridSamplerProblem& p, Product product) {
    checkDtypeIn(*p.input, "input", dtypesFor(product), product);
    for (const auto& t : kTensors)
        if (t.view != &Problem::input) checkSameDtype(*(p.*t.view), t.name, *p.input, "input");
}

// 4. Formats: ND (origin formats are accepted as ND; private layouts are not).
void checkFormats(const GridSamplerProblem& p) {
    for (const auto& t : kTensors) checkPlainFormat(*(p.*t.view), t.name);
}

// 5. Attributes: interpolationMode and paddingMode in {0, 1, 2}.
void checkAttributes(const GridSamplerArgs& a, GridSamplerProblem& p) {
    if (a.interpolationMode < 0 || a.interpolationMode > 2)
        fail(status::kParamInvalid, Msg() << "interpolationMode " << a.interpolationMode
                                          << " is not supported: expected 0 (bilinear), 1 (nearest) or 2 (bicubic)");
    if (a.paddingMode < 0 || a.paddingMode > 2)
        fail(status::kParamInvalid, Msg() << "paddingMode " << a.paddingMode
                                          << " is not supported: expected 0 (zeros), 1 (border) or 2 (reflection)");
    p.interpolation = static_cast<kernels::GridInterpolation>(a.interpolationMode);
    p.padding = static_cast<kernels::GridPadding>(a.paddingMode);
    p.alignCorners = a.alignCorners;
}

// 6. Shapes: 4-D tensors that agree on N, C, Ho, Wo; grid (x, y) pairs; outputs shaped as inputs.
void checkShapes(const GridSamplerProblem& p) {
    checkRank4(*p.input, "input");
    checkRank4(*p.grid, "grid");
    checkRank4(*p.gradOutput, "gradOutput");
    checkRank4(*p.inputGrad, "inputGrad");
    checkRank4(*p.gridGrad, "gridGrad");
    const auto &is = p.input->shape, &gs = p.grid->shape, &os = p.gradOutput->shape;
    if (is[0] != gs[0] || is[0] != os[0])
        fail(status::kParamInvalid, Msg() << "input, grid and gradOutput must have the same batch size, got input "
                                          << shapeToString(is) << ", grid " << shapeToString(gs) << ", gradOutput "
                                          << shapeToString(os));
    if (is[1] != os[1])
        fail(status::kParamInvalid, Msg() << "input and gradOutput must have the same channel size, got input "
                                          << shapeToString(is) << ", gradOutput " << shapeToString(os));
    if (is[2] == 0 || is[3] == 0)
        fail(status::kParamInvalid,
             Msg() << "input must have non-empty spatial dimensions, got input " << shapeToString(is));
    if (gs[1] != os[2] || gs[2] != os[3])
        fail(status::kParamInvalid, Msg() << "grid and gradOutput must have the same H and W, got grid "
                                          << shapeToString(gs) << ", gradOutput " << shapeToString(os));
    if (gs[3] != 2)
        fail(status::kParamInvalid, Msg() << "grid last dimension must be 2 (x, y), got grid " << shapeToString(gs));
    checkSameShape(*p.inputGrad, "inputGrad", *p.input, "input");
    checkSameShape(*p.gridGrad, "gridGrad", *p.grid, "grid");
}

}  // namespace

const char* interpolationName(kernels::GridInterpolation mode) { return kInterpolationNames[static_cast<int>(mode)]; }
const char* paddingName(kernels::GridPadding mode) { return kPaddingNames[static_cast<int>(mode)]; }

GridSamplerProblem validateGridSampler2DBackward(const GridSamplerArgs& a, Product product) {
    GridSamplerProblem p;
    p.product = product;
    if (checkNothingAsked(a, p)) return p;                           // 1
    checkPointers(a, p);                                             // 2
    checkProductHasOperator(kOp, product, Product::AtlasInference);  // 3a
    checkDtypes(p, product);                                         // 3b
    checkFormats(p);                                                 // 4
    checkAttributes(a, p);                                           // 5
    checkShapes(p);                                                  // 6
    return p;
}

}  // namespace opscope::grid_sampler
