// Design: parallel over (n, group), the unit whose statistics dx needs; nothing is shared
// between units, so results do not depend on the thread count. Row sums use Eigen's packet
// reductions over blocks, accumulated in double across blocks (accurate for long rows). The
// fused pass keeps a group's dy and x in L2 between the reduction and dx.
#include "group_norm_backward_kernel.h"

#include <Eigen/Core>
#include <algorithm>

#include "opscope/parallel.h"

namespace opscope::kernels {
namespace {

using ConstArr = Eigen::Map<const Eigen::ArrayXf>;
using Arr = Eigen::Map<Eigen::ArrayXf>;
constexpr int64_t kBlock = 2048;

void rowSums(const float* dy, const float* x, int64_t n, float* dsOut, float* dbOut) {
    double ds = 0, db = 0;
    for (int64_t b = 0; b < n; b += kBlock) {
        const Eigen::Index len = static_cast<Eigen::Index>(std::min(kBlock, n - b));
        ConstArr a(dy + b, len), c(x + b, len);
        ds += static_cast<double>((a * c).sum());
        db += static_cast<double>(a.sum());
    }
    *dsOut = static_cast<float>(ds);
    *dbOut = static_cast<float>(db);
}

// Coefficients of dx = c1[c]*dy + c2*x + c3 for one (n, g); see ops/group_norm_backward/README.md.
void inputGradForGroup(const GroupNormShape& s, int64_t n, int64_t g, const float* dy, const float* x,
                       const float* mean, const float* rstd, const float* gamma, const float* ds,
                       const float* db, float* dx) {
    const int64_t D = s.channelsPerGroup();
    const int64_t c0 = g * D;
    const double m = mean[n * s.G + g], r = rstd[n * s.G + g];
    double dsG = 0, dbG = 0;
    for (int64_t c = c0; c < c0 + D; ++c) {
        const double gm = gamma ? gamma[c] : 1.0;
        dsG += ds[n * s.C + c] * gm;
        dbG += db[n * s.C + c] * gm;
    }
    const double scale = 1.0 / static_cast<double>(D * s.HxW);
    const double c2d = (dbG * m - dsG) * r * r * r * scale;
    const double c3d = -c2d * m - dbG * r * scale;
    const float c2 = static_cast<float>(c2d), c3 = static_cast<float>(c3d);
    for (int64_t c = c0; c < c0 + D; ++c) {
        const float c1 = static_cast<float>(r * (gamma ? gamma[c] : 1.0));
        const int64_t off = (n * s.C + c) * s.HxW;
        const Eigen::Index len = static_cast<Eigen::Index>(s.HxW);
        Arr(dx + off, len) = c1 * ConstArr(dy + off, len) + c2 * ConstArr(x + off, len) + c3;
    }
}

int64_t grainFor(int64_t workPerItem) { return std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(workPerItem, 1)); }

}  // namespace

void groupNormReduce(const GroupNormShape& s, const float* dy, const float* x, float* ds, float* db) {
    parallelFor(0, s.N * s.C, grainFor(s.HxW), [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row)
            rowSums(dy + row * s.HxW, x + row * s.HxW, s.HxW, ds + row, db + row);
    });
}

void groupNormReduceAndInputGrad(const GroupNormShape& s, const float* dy, const float* x, const float* mean,
                                 const float* rstd, const float* gamma, float* ds, float* db, float* dx) {
    const int64_t D = s.channelsPerGroup();
    parallelFor(0, s.N * s.G, grainFor(D * s.HxW), [&](int64_t b, int64_t e) {
        for (int64_t ng = b; ng < e; ++ng) {
            const int64_t n = ng / s.G, g = ng % s.G;
            for (int64_t c = g * D; c < (g + 1) * D; ++c) {
                const int64_t row = n * s.C + c;
                rowSums(dy + row * s.HxW, x + row * s.HxW, s.HxW, ds + row, db + row);
            }
            inputGradForGroup(s, n, g, dy, x, mean, rstd, gamma, ds, db, dx);
        }
    });
}

void groupNormGammaBetaGrad(const GroupNormShape& s, const float* ds, const float* db, const float* mean,
                            const float* rstd, float* dgamma, float* dbeta) {
    const int64_t D = s.channelsPerGroup();
    parallelFor(0, s.C, grainFor(s.N), [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
            const int64_t g = c / D;
            double dg = 0, dbt = 0;
            for (int64_t n = 0; n < s.N; ++n) {  // fixed order over the batch
                const double dsv = ds[n * s.C + c], dbv = db[n * s.C + c];
                dg += (dsv - dbv * mean[n * s.G + g]) * rstd[n * s.G + g];
                dbt += dbv;
            }
            if (dgamma) dgamma[c] = static_cast<float>(dg);
            if (dbeta) dbeta[c] = static_cast<float>(dbt);
        }
    });
}

}  // namespace opscope::kernels
