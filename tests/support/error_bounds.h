// Error bounds the precision tests share: a result is held to what float32 sums of terms of
// a given absolute size, plus one rounding to the output dtype, may cost.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace opscope::test {

// |v| element-wise: fed through the reference it gives the sum of absolute terms per output.
inline std::vector<double> absOf(std::vector<double> v) {
    for (double& e : v) e = std::fabs(e);
    return v;
}

// max_i |a - e| / (tol * absSum + uOut * |e|): the error in units of what float32 sums of
// `absSum`-sized terms and one rounding to the output dtype may cost. <= 1 passes.
inline double boundRatio(const std::vector<double>& a, const std::vector<double>& e, const std::vector<double>& absSum,
                         double tol, double uOut) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::fabs(a[i] - e[i]) / (tol * absSum[i] + uOut * std::fabs(e[i]) + 1e-300));
    return worst;
}

}  // namespace opscope::test
