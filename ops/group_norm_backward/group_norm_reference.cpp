#include <cmath>

#include "opscope/reference/group_norm.h"

namespace opscope::reference {

GroupNormForwardResult groupNormForward(const std::vector<double>& x, const std::vector<double>& gamma,
                                        const std::vector<double>& beta, int64_t N, int64_t C, int64_t HxW,
                                        int64_t group, double eps) {
    GroupNormForwardResult r;
    r.y.assign(x.size(), 0.0);
    r.mean.assign(static_cast<std::size_t>(N * group), 0.0);
    r.rstd.assign(static_cast<std::size_t>(N * group), 0.0);
    const int64_t D = C / group;
    for (int64_t n = 0; n < N; ++n) {
        for (int64_t g = 0; g < group; ++g) {
            double sum = 0;
            for (int64_t c = g * D; c < (g + 1) * D; ++c)
                for (int64_t i = 0; i < HxW; ++i) sum += x[static_cast<std::size_t>((n * C + c) * HxW + i)];
            const double count = static_cast<double>(D * HxW);
            const double mu = sum / count;
            double var = 0;
            for (int64_t c = g * D; c < (g + 1) * D; ++c)
                for (int64_t i = 0; i < HxW; ++i) {
                    const double d = x[static_cast<std::size_t>((n * C + c) * HxW + i)] - mu;
                    var += d * d;
                }
            var /= count;
            const double rs = 1.0 / std::sqrt(var + eps);
            r.mean[static_cast<std::size_t>(n * group + g)] = mu;
            r.rstd[static_cast<std::size_t>(n * group + g)] = rs;
            for (int64_t c = g * D; c < (g + 1) * D; ++c) {
                const double gm = gamma.empty() ? 1.0 : gamma[static_cast<std::size_t>(c)];
                const double bt = beta.empty() ? 0.0 : beta[static_cast<std::size_t>(c)];
                for (int64_t i = 0; i < HxW; ++i) {
                    const auto k = static_cast<std::size_t>((n * C + c) * HxW + i);
                    r.y[k] = (x[k] - mu) * rs * gm + bt;
                }
            }
        }
    }
    return r;
}

GroupNormBackwardResult groupNormBackward(const std::vector<double>& gradOut, const std::vector<double>& x,
                                          const std::vector<double>& mean, const std::vector<double>& rstd,
                                          const std::vector<double>& gamma, int64_t N, int64_t C, int64_t HxW,
                                          int64_t group) {
    GroupNormBackwardResult r;
    r.gradInput.assign(x.size(), 0.0);
    r.gradGamma.assign(static_cast<std::size_t>(C), 0.0);
    r.gradBeta.assign(static_cast<std::size_t>(C), 0.0);
    const int64_t D = C / group;
    auto at = [&](int64_t n, int64_t c, int64_t i) { return static_cast<std::size_t>((n * C + c) * HxW + i); };
    auto g = [&](int64_t c) { return gamma.empty() ? 1.0 : gamma[static_cast<std::size_t>(c)]; };
    for (int64_t n = 0; n < N; ++n) {
        for (int64_t grp = 0; grp < group; ++grp) {
            const double mu = mean[static_cast<std::size_t>(n * group + grp)];
            const double rs = rstd[static_cast<std::size_t>(n * group + grp)];
            double sumGdy = 0, sumGdyXhat = 0;
            for (int64_t c = grp * D; c < (grp + 1) * D; ++c)
                for (int64_t i = 0; i < HxW; ++i) {
                    const double xhat = (x[at(n, c, i)] - mu) * rs;
                    const double gdy = g(c) * gradOut[at(n, c, i)];
                    sumGdy += gdy;
                    sumGdyXhat += gdy * xhat;
                    r.gradGamma[static_cast<std::size_t>(c)] += gradOut[at(n, c, i)] * xhat;
                    r.gradBeta[static_cast<std::size_t>(c)] += gradOut[at(n, c, i)];
                }
            const double M = static_cast<double>(D * HxW);
            for (int64_t c = grp * D; c < (grp + 1) * D; ++c)
                for (int64_t i = 0; i < HxW; ++i) {
                    const double xhat = (x[at(n, c, i)] - mu) * rs;
                    r.gradInput[at(n, c, i)] = rs * (g(c) * gradOut[at(n, c, i)] - sumGdy / M - xhat * sumGdyXhat / M);
                }
        }
    }
    return r;
}

}  // namespace opscope::reference
