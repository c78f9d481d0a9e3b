// Design: parallel over (n, group), the unit whose statistics dx needs; nothing is shared
// between units, so results do not depend on the thread count. Row sums use Eigen's packet
// reductions over blocks, accumulated in double across blocks (accurate for long rows). The
// fused pass keeps a group's dy and x in L2 between the reduction and dx. For fp16/bf16 a
// group is widened into per-thread float buffers first, and dx is narrowed from one.
#include "group_norm_backward_kernel.h"

#include <Eigen/Core>
#include <algorithm>

#include <vector>

#include "opscope/dispatch.h"
#include "opscope/float16.h"
#include "opscope/parallel.h"
#include "opscope/widen.h"

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
// dy, x, dx point at the group's first element (D rows of HxW).
void inputGradForGroup(const GroupNormShape& s, int64_t n, int64_t g, const float* dy, const float* x,
                       const float* mean, const float* rstd, const float* gamma, const float* ds, const float* db,
                       float* dx) {
    const int64_t D = s.channelsPerGroup();
    const int64_t c0 = g * D;
    const double m = static_cast<double>(mean[n * s.G + g]), r = static_cast<double>(rstd[n * s.G + g]);
    double dsG = 0, dbG = 0;
    for (int64_t c = c0; c < c0 + D; ++c) {
        const double gm = gamma ? static_cast<double>(gamma[c]) : 1.0;
        dsG += static_cast<double>(ds[n * s.C + c]) * gm;
        dbG += static_cast<double>(db[n * s.C + c]) * gm;
    }
    const double scale = 1.0 / static_cast<double>(D * s.HxW);
    const double c2d = (dbG * m - dsG) * r * r * r * scale;
    const double c3d = -c2d * m - dbG * r * scale;
    const float c2 = static_cast<float>(c2d), c3 = static_cast<float>(c3d);
    for (int64_t c = c0; c < c0 + D; ++c) {
        const float c1 = static_cast<float>(r * (gamma ? static_cast<double>(gamma[c]) : 1.0));
        const int64_t off = (c - c0) * s.HxW;
        const Eigen::Index len = static_cast<Eigen::Index>(s.HxW);
        Arr(dx + off, len) = c1 * ConstArr(dy + off, len) + c2 * ConstArr(x + off, len) + c3;
    }
}

int64_t grainFor(int64_t workPerItem) { return std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(workPerItem, 1)); }

// Per-thread float views of a T range: the range itself for float, a widened copy otherwise.
template <class T>
class FloatTile {
public:
    const float* load(const T* src, int64_t n) {
        if constexpr (std::is_same_v<T, float>) {
            return src;
        } else {
            buf_.resize(static_cast<std::size_t>(n));
            widenToFloat(src, buf_.data(), n);
            return buf_.data();
        }
    }

private:
    std::vector<float> buf_;
};

template <class T>
void reduceTyped(const GroupNormShape& s, const T* dy, const T* x, float* ds, float* db) {
    parallelFor(0, s.N * s.C, grainFor(s.HxW), [&](int64_t b, int64_t e) {
        FloatTile<T> tdy, tx;
        for (int64_t row = b; row < e; ++row)
            rowSums(tdy.load(dy + row * s.HxW, s.HxW), tx.load(x + row * s.HxW, s.HxW), s.HxW, ds + row, db + row);
    });
}

template <class T>
void reduceAndInputGradTyped(const GroupNormShape& s, const T* dy, const T* x, const float* mean, const float* rstd,
                             const float* gamma, float* ds, float* db, T* dx) {
    const int64_t D = s.channelsPerGroup();
    const int64_t groupSize = D * s.HxW;
    parallelFor(0, s.N * s.G, grainFor(groupSize), [&](int64_t b, int64_t e) {
        FloatTile<T> tdy, tx;
        std::vector<float> dxBuf(std::is_same_v<T, float> ? 0 : static_cast<std::size_t>(groupSize));
        for (int64_t ng = b; ng < e; ++ng) {
            const int64_t n = ng / s.G, g = ng % s.G;
            const int64_t base = (n * s.C + g * D) * s.HxW;  // the group is contiguous
            const float* fdy = tdy.load(dy + base, groupSize);
            const float* fx = tx.load(x + base, groupSize);
            for (int64_t c = 0; c < D; ++c) {
                const int64_t row = n * s.C + g * D + c;
                rowSums(fdy + c * s.HxW, fx + c * s.HxW, s.HxW, ds + row, db + row);
            }
            float* fdx;
            if constexpr (std::is_same_v<T, float>)
                fdx = dx + base;
            else
                fdx = dxBuf.data();
            inputGradForGroup(s, n, g, fdy, fx, mean, rstd, gamma, ds, db, fdx);
            if constexpr (!std::is_same_v<T, float>) narrowFromFloat(fdx, dx + base, groupSize);
        }
    });
}

}  // namespace

void groupNormReduce(const GroupNormShape& s, DType dtype, const void* dy, const void* x, float* ds, float* db) {
    dispatchKernel<Float32Family>(dtype, "GroupNormGrad", [&](auto tag) {
        using T = typename decltype(tag)::type;
        reduceTyped(s, static_cast<const T*>(dy), static_cast<const T*>(x), ds, db);
    });
}

void groupNormReduceAndInputGrad(const GroupNormShape& s, DType dtype, const void* dy, const void* x, const float* mean,
                                 const float* rstd, const float* gamma, float* ds, float* db, void* dx) {
    dispatchKernel<Float32Family>(dtype, "GroupNormGrad", [&](auto tag) {
        using T = typename decltype(tag)::type;
        reduceAndInputGradTyped(s, static_cast<const T*>(dy), static_cast<const T*>(x), mean, rstd, gamma, ds, db,
                                static_cast<T*>(dx));
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
                const double dsv = static_cast<double>(ds[n * s.C + c]), dbv = static_cast<double>(db[n * s.C + c]);
                const double mu = static_cast<double>(mean[n * s.G + g]), rs = static_cast<double>(rstd[n * s.G + g]);
                dg += (dsv - dbv * mu) * rs;
                dbt += dbv;
            }
            if (dgamma) dgamma[c] = static_cast<float>(dg);
            if (dbeta) dbeta[c] = static_cast<float>(dbt);
        }
    });
}

}  // namespace opscope::kernels
