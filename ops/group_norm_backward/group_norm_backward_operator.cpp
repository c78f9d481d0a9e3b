// aclnnGroupNormBackward as data: schema, C-API binding and float64 reference.
#include "aclnnop/aclnn_group_norm_backward.h"
#include "opscope/reference/group_norm.h"
#include "../registry/builtin_operators.h"

namespace opscope::ops {
namespace {

class GroupNormBackwardOperator final : public Operator {
public:
    GroupNormBackwardOperator()
        : Operator({
              "aclnnGroupNormBackward",
              "group_norm_backward",
              "Gradients of GroupNorm with respect to input, gamma and beta",
              {tensorArg("gradOut", "gradient of the forward output, N*C*HxW elements"),
               tensorArg("input", "forward input x, N*C*HxW elements"),
               tensorArg("mean", "forward mean per (n, group), N*group elements"),
               tensorArg("rstd", "forward 1/std per (n, group), N*group elements"),
               tensorArg("gamma", "per-channel scale, C elements (absent = ones)", true)},
              {intArg("N", "batch size", 0), intArg("C", "channels", 0), intArg("HxW", "elements per channel", 0),
               intArg("group", "number of groups; C % group == 0", 1),
               boolArrayArg("outputMask", "[gradInput, gradGammaOut, gradBetaOut]", {true, true, true})},
              "outputMask",
              {{"gradInput", 0}, {"gradGammaOut", 1}, {"gradBetaOut", 2}},
          }) {}

private:
    int32_t getWorkspaceSize(PreparedCall& call, uint64_t* ws, aclOpExecutor** exe) const override {
        const OpArguments& a = call.arguments();
        const HostTensor& x = a.tensor("input");
        const int64_t C = a.intAttr("C");
        const std::vector<bool> mask = a.boolArrayAttr("outputMask");
        const std::vector<int64_t> gammaShape =
            a.hasTensor("gamma") ? a.tensor("gamma").shape() : std::vector<int64_t>{std::max<int64_t>(C, 0)};
        aclTensor* dy = call.inputTensor("gradOut");
        aclTensor* in = call.inputTensor("input");
        aclTensor* mean = call.inputTensor("mean");
        aclTensor* rstd = call.inputTensor("rstd");
        aclTensor* gamma = call.inputTensor("gamma");
        const DType dt = a.tensor("gradOut").dtype();
        aclTensor* dx = maskSelects(mask, 0) ? call.outputTensor("gradInput", dt, x.shape()) : nullptr;
        aclTensor* dg = maskSelects(mask, 1) ? call.outputTensor("gradGammaOut", dt, gammaShape) : nullptr;
        aclTensor* db = maskSelects(mask, 2) ? call.outputTensor("gradBetaOut", dt, gammaShape) : nullptr;
        return aclnnGroupNormBackwardGetWorkspaceSize(dy, in, mean, rstd, gamma, a.intAttr("N"), C, a.intAttr("HxW"),
                                                      a.intAttr("group"), call.boolArray(mask), dx, dg, db, ws, exe);
    }

    std::map<std::string, HostTensor> golden(const OpArguments& a, Product) const override {
        const int64_t N = a.intAttr("N"), C = a.intAttr("C"), HxW = a.intAttr("HxW"), G = a.intAttr("group");
        const std::vector<double> gamma = a.hasTensor("gamma") ? a.tensor("gamma").toDoubles() : std::vector<double>{};
        const auto r = reference::groupNormBackward(a.tensor("gradOut").toDoubles(), a.tensor("input").toDoubles(),
                                                    a.tensor("mean").toDoubles(), a.tensor("rstd").toDoubles(), gamma,
                                                    N, C, HxW, G);
        const std::vector<int64_t> gammaShape =
            a.hasTensor("gamma") ? a.tensor("gamma").shape() : std::vector<int64_t>{C};
        return maskedGolden(a.boolArrayAttr("outputMask"), {{"gradInput", a.tensor("input").shape(), r.gradInput},
                                                            {"gradGammaOut", gammaShape, r.gradGamma},
                                                            {"gradBetaOut", gammaShape, r.gradBeta}});
    }
};

}  // namespace

const Operator& groupNormBackwardOperator() {
    static const GroupNormBackwardOperator op;
    return op;
}

}  // namespace opscope::ops
