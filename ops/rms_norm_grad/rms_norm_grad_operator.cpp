// aclnnRmsNormGrad as data: schema, C-API binding and float64 reference (listed in
// ops/registry/builtin_operators).
#include <algorithm>

#include "aclnnop/aclnn_rms_norm_grad.h"
#include "opscope/convert.h"
#include "opscope/reference/rms_norm.h"
#include "../registry/builtin_operators.h"

namespace opscope::ops {
namespace {

// Elements [first, first + count) of a tensor as doubles.
std::vector<double> rowsOf(const HostTensor& t, int64_t first, int64_t count) {
    std::vector<double> out(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i) out[static_cast<std::size_t>(i)] = t.getAsDouble(first + i);
    return out;
}

class RmsNormGradOperator final : public Operator {
public:
    RmsNormGradOperator()
        : Operator({
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
          }) {}

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

private:
    int32_t getWorkspaceSize(PreparedCall& call, uint64_t* ws, aclOpExecutor** exe) const override {
        const OpArguments& a = call.arguments();
        aclTensor* dy = call.inputTensor("dy");
        aclTensor* x = call.inputTensor("x");
        aclTensor* rstd = call.inputTensor("rstd");
        aclTensor* gamma = call.inputTensor("gamma");
        aclTensor* dx = call.outputTensor("dxOut", a.tensor("dy").dtype(), a.tensor("dy").shape());
        aclTensor* dg = call.outputTensor("dgammaOut", DType::Float32, a.tensor("gamma").shape());
        return aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dx, dg, ws, exe);
    }

    // The scalar reference over blocks of rows (dx rows are independent; dgamma adds the blocks'
    // sums): a [32768, 4096] call holds its float64 dx and a few MB of rows, not four
    // tensor-sized vectors of doubles.
    std::map<std::string, HostTensor> golden(const OpArguments& a, Product) const override {
        const HostTensor& x = a.tensor("x");
        const HostTensor& gamma = a.tensor("gamma");
        const int64_t cols = gamma.numel();
        const int64_t rows = cols > 0 ? x.numel() / cols : 0;
        const std::vector<double> g = gamma.toDoubles(), rstd = a.tensor("rstd").toDoubles();
        HostTensor dx(DType::Float64, x.shape()), dgamma(DType::Float64, gamma.shape());
        const int64_t block = std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(cols, 1));
        for (int64_t r0 = 0; r0 < rows; r0 += block) {
            const int64_t n = std::min(block, rows - r0);
            const auto at = [&](int64_t r) { return rstd.begin() + static_cast<std::ptrdiff_t>(r); };
            const auto r =
                reference::rmsNormBackward(rowsOf(a.tensor("dy"), r0 * cols, n * cols), rowsOf(x, r0 * cols, n * cols),
                                           std::vector<double>(at(r0), at(r0 + n)), g, n, cols);
            std::copy(r.dx.begin(), r.dx.end(), dx.dataAs<double>() + r0 * cols);
            for (int64_t j = 0; j < cols; ++j) dgamma.dataAs<double>()[j] += r.dgamma[static_cast<std::size_t>(j)];
        }
        return {{"dxOut", std::move(dx)}, {"dgammaOut", std::move(dgamma)}};
    }
};

}  // namespace

const Operator& rmsNormGradOperator() {
    static const RmsNormGradOperator op;
    return op;
}

}  // namespace opscope::ops
