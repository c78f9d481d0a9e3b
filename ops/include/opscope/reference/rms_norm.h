// Scalar float64 references for RmsNorm: obviously correct, slow, sharing nothing with the
// fast kernel. x is [rows, cols] flattened row-major (rows = the leading axes, cols = gamma's).
#pragma once

#include <cstdint>
#include <vector>

namespace opscope::reference {

struct RmsNormForwardResult {
    std::vector<double> y;     // [rows, cols]: x * rstd * gamma
    std::vector<double> rstd;  // [rows]: 1 / sqrt(mean(x^2) + eps)
};

RmsNormForwardResult rmsNormForward(const std::vector<double>& x, const std::vector<double>& gamma, int64_t rows,
                                    int64_t cols, double eps);

struct RmsNormBackwardResult {
    std::vector<double> dx, dgamma;
};

// Uses the given rstd (as the operator does), from the documented formula
//   dx = (dy*g - x*rstd*mean(dy*g*x*rstd)) * rstd,  dgamma = sum over rows of dy*x*rstd.
RmsNormBackwardResult rmsNormBackward(const std::vector<double>& dy, const std::vector<double>& x,
                                      const std::vector<double>& rstd, const std::vector<double>& gamma, int64_t rows,
                                      int64_t cols);

}  // namespace opscope::reference
