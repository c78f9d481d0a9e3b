// Central finite differences, the derivative every reference backward is checked against.
#pragma once

#include <cstddef>
#include <vector>

namespace opscope::test {

// d loss / d v[i] for every i, by central differences with step h; lossAt(w) is the loss with v
// replaced by w (the other arguments held fixed by the caller).
template <class Loss>
std::vector<double> centralDifferences(const std::vector<double>& v, double h, Loss&& lossAt) {
    std::vector<double> derivative(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::vector<double> up = v, down = v;
        up[i] += h;
        down[i] -= h;
        derivative[i] = (lossAt(up) - lossAt(down)) / (2 * h);
    }
    return derivative;
}

}  // namespace opscope::test
