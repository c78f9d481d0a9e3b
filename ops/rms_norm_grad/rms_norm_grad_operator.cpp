// aclnnRmsNormGrad as data: schema, C-API binding and float64 reference (listed in
// ops/registry/builtin_operators).
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "opscope/convert.h"
#include "opscope/reference/rms_norm.h"
#include "../registry/builtin_operators.h"

namespace opscope::ops {
namespace {

class RmsNormGradOperator final : public Operator {
public:
    const OpSchema& schema() const override {
        static const OpSchema s = {
            "aclnnRmsNormGrad",
            "rms_norm_grad",
            "Gradients of RmsNorm with respect to x and gamma",
            {tensorArg("dy", "gradient of the forward output, the shape of x"),
             tensorArg("x", "forward input, rank 1-8"),
             tensorArg("rstd", "forward 1/rms per row, float32, the leading axes x[0:n]"),
             tensorArg("gamma", "scale, the trailing axes x[n:]")},
            {},
            "",
            {{"dxOut", -1}, {"dgammaOut", -1}},
        };
        return s;
    }

    std::unique_ptr<PreparedCall> prepare(const OpArguments& given) const override {
        const OpArguments a = withDefaults(given);
        auto call = std::make_unique<PreparedCall>(a);
        aclTensor* dy = call->inputTensor("dy");
        aclTensor* x = call->inputTensor("x");
        aclTensor* rstd = call->inputTensor("rstd");
        aclTensor* gamma = call->inputTensor("gamma");
        aclTensor* dx = call->outputTensor("dxOut", a.tensor("dy").dtype(), a.tensor("dy").shape());
        aclTensor* dg = call->outputTensor("dgammaOut", DType::Float32, a.tensor("gamma").shape());
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st = aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dx, dg, &ws, &exe);
        call->finishPhase1(st, ws, exe);
        return call;
    }

    std::map<std::string, HostTensor> reference(const OpArguments& given) const override {
        const OpArguments a = withDefaults(given);
        const HostTensor& x = a.tensor("x");
        const HostTensor& gamma = a.tensor("gamma");
        const int64_t cols = gamma.numel();
        const int64_t rows = cols > 0 ? x.numel() / cols : 0;
        const auto r = reference::rmsNormBackward(a.tensor("dy").toDoubles(), x.toDoubles(),
                                                  a.tensor("rstd").toDoubles(), gamma.toDoubles(), rows, cols);
        return {{"dxOut", HostTensor::fromDoubles(DType::Float64, x.shape(), r.dx)},
                {"dgammaOut", HostTensor::fromDoubles(DType::Float64, gamma.shape(), r.dgamma)}};
    }

    // rstd stays float32 (the only dtype the operator takes for it); dy, x and gamma follow.
    OpArguments castTo(const OpArguments& args, DType dtype) const override {
        OpArguments out = args;
        for (auto& [name, t] : out.tensors) {
            if (name == "rstd" || !isFloatingType(t.dtype()) || t.dtype() == dtype) continue;
            HostTensor c(dtype, t.shape());
            copyConvert(t.view(), c.view());
            t = std::move(c);
        }
        return out;
    }
};

}  // namespace

const Operator& rmsNormGradOperator() {
    static const RmsNormGradOperator op;
    return op;
}

}  // namespace opscope::ops
