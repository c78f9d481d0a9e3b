// aclnnGridSampler2DBackward as data: schema, C-API binding and float64 reference (listed in
// ops/registry/builtin_operators).
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "opscope/reference/grid_sampler.h"
#include "../registry/builtin_operators.h"

namespace opscope::ops {
namespace {

class GridSampler2DBackwardOperator final : public Operator {
public:
    GridSampler2DBackwardOperator()
        : Operator({
              "aclnnGridSampler2DBackward",
              "grid_sampler2d_backward",
              "Gradients of 2-D grid sampling with respect to input and grid",
              {tensorArg("gradOutput", "gradient of the forward output, [N, C, Ho, Wo]"),
               tensorArg("input", "forward input, [N, C, H, W]"),
               tensorArg("grid", "sampling positions (x, y) in [-1, 1], [N, Ho, Wo, 2]")},
              {enumArg("interpolationMode", "interpolation", {"bilinear", "nearest", "bicubic"}, 0),
               enumArg("paddingMode", "values outside the input", {"zeros", "border", "reflection"}, 0),
               boolArg("alignCorners", "the extreme grid values are the corner pixels' centres", false),
               boolArrayArg("outputMask", "[inputGrad, gridGrad]", {true, true})},
              "outputMask",
              {{"inputGrad", 0}, {"gridGrad", 1}},
          }) {}

private:
    int32_t getWorkspaceSize(PreparedCall& call, uint64_t* ws, aclOpExecutor** exe) const override {
        const OpArguments& a = call.arguments();
        const DType dt = a.tensor("input").dtype();
        aclTensor* go = call.inputTensor("gradOutput");
        aclTensor* in = call.inputTensor("input");
        aclTensor* grid = call.inputTensor("grid");
        // The operator needs both output tensors whatever the mask selects; only the selected
        // ones are reported.
        const std::vector<bool> mask = a.boolArrayAttr("outputMask");
        auto output = [&](std::size_t i, const char* name, const std::vector<int64_t>& shape) {
            return maskSelects(mask, i) ? call.outputTensor(name, dt, shape) : call.unusedOutputTensor(name, dt, shape);
        };
        aclTensor* gi = output(0, "inputGrad", a.tensor("input").shape());
        aclTensor* gg = output(1, "gridGrad", a.tensor("grid").shape());
        return aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, grid, a.intAttr("interpolationMode"),
                                                          a.intAttr("paddingMode"), a.boolAttr("alignCorners"),
                                                          call.boolArray(mask), gi, gg, ws, exe);
    }

    std::map<std::string, HostTensor> golden(const OpArguments& a, Product) const override {
        const HostTensor& in = a.tensor("input");
        const HostTensor& grid = a.tensor("grid");
        if (in.rank() != 4 || grid.rank() != 4) return {};
        reference::GridSamplerShape s{in.shape()[0], in.shape()[1],   in.shape()[2],
                                      in.shape()[3], grid.shape()[1], grid.shape()[2]};
        reference::GridSamplerOptions o{static_cast<int>(a.intAttr("interpolationMode")),
                                        static_cast<int>(a.intAttr("paddingMode")), a.boolAttr("alignCorners")};
        const auto r = reference::gridSampler2DBackward(a.tensor("gradOutput").toDoubles(), in.toDoubles(),
                                                        grid.toDoubles(), s, o);
        return maskedGolden(a.boolArrayAttr("outputMask"),
                            {{"inputGrad", in.shape(), r.inputGrad}, {"gridGrad", grid.shape(), r.gridGrad}});
    }
};

}  // namespace

const Operator& gridSampler2DBackwardOperator() {
    static const GridSampler2DBackwardOperator op;
    return op;
}

}  // namespace opscope::ops
