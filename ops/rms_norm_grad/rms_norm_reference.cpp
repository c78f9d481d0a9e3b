#include <cmath>
#include <cstddef>

#include "opscope/reference/rms_norm.h"

namespace opscope::reference {

namespace {
std::size_t at(int64_t r, int64_t j, int64_t cols) { return static_cast<std::size_t>(r * cols + j); }
}  // namespace

RmsNormForwardResult rmsNormForward(const std::vector<double>& x, const std::vector<double>& gamma, int64_t rows,
                                    int64_t cols, double eps) {
    RmsNormForwardResult f;
    f.y.assign(x.size(), 0.0);
    f.rstd.assign(static_cast<std::size_t>(rows), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        double sumSq = 0;
        for (int64_t j = 0; j < cols; ++j) sumSq += x[at(r, j, cols)] * x[at(r, j, cols)];
        const double rstd = 1.0 / std::sqrt(sumSq / static_cast<double>(cols) + eps);
        f.rstd[static_cast<std::size_t>(r)] = rstd;
        for (int64_t j = 0; j < cols; ++j)
            f.y[at(r, j, cols)] = x[at(r, j, cols)] * rstd * gamma[static_cast<std::size_t>(j)];
    }
    return f;
}

RmsNormBackwardResult rmsNormBackward(const std::vector<double>& dy, const std::vector<double>& x,
                                      const std::vector<double>& rstd, const std::vector<double>& gamma, int64_t rows,
                                      int64_t cols) {
    RmsNormBackwardResult b;
    b.dx.assign(x.size(), 0.0);
    b.dgamma.assign(static_cast<std::size_t>(cols), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
        const double rs = rstd[static_cast<std::size_t>(r)];
        double mean = 0;
        for (int64_t j = 0; j < cols; ++j)
            mean += dy[at(r, j, cols)] * gamma[static_cast<std::size_t>(j)] * x[at(r, j, cols)] * rs;
        mean /= static_cast<double>(cols);
        for (int64_t j = 0; j < cols; ++j) {
            const std::size_t k = at(r, j, cols);
            b.dx[k] = (dy[k] * gamma[static_cast<std::size_t>(j)] - x[k] * rs * mean) * rs;
            b.dgamma[static_cast<std::size_t>(j)] += dy[k] * x[k] * rs;
        }
    }
    return b;
}

}  // namespace opscope::reference
