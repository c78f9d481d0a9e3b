// Scalar float64 references for GroupNorm: obviously correct, slow, sharing nothing with the
// fast kernel. Layout [N, C, HxW] flattened row-major; gamma/beta empty means ones/zeros.
#pragma once

#include <cstdint>
#include <vector>

namespace opscope::reference {

struct GroupNormForwardResult {
    std::vector<double> y, mean, rstd;  // mean, rstd: [N, group]
};

GroupNormForwardResult groupNormForward(const std::vector<double>& x, const std::vector<double>& gamma,
                                        const std::vector<double>& beta, int64_t N, int64_t C, int64_t HxW,
                                        int64_t group, double eps);

struct GroupNormBackwardResult {
    std::vector<double> gradInput, gradGamma, gradBeta;
};

// Uses the given mean and rstd (as the operator does), from the textbook formula
// dx = rstd * (g*dy - mean(g*dy) - xhat * mean(g*dy*xhat)) over each group.
GroupNormBackwardResult groupNormBackward(const std::vector<double>& gradOut, const std::vector<double>& x,
                                          const std::vector<double>& mean, const std::vector<double>& rstd,
                                          const std::vector<double>& gamma, int64_t N, int64_t C, int64_t HxW,
                                          int64_t group);

}  // namespace opscope::reference
