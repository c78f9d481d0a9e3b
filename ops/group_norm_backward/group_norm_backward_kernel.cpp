// Design: parallel over (n, group), the unit whose statistics dx needs; nothing is shared
// between units, so results do not depend on the thread count. Row sums run in 32 float lanes
// over blocks of 2048 elements, the blocks accumulated in double (accurate for long rows). The
// fused pass keeps a group's dy and x in L2 between the reduction and dx. fp16/bf16 elements
// are widened and dx rounded once in registers (vec16.h: AVX-512 or portable lanes with the same
// bits), with no float copies of the group.
#include "group_norm_backward_kernel.h"

#include <algorithm>

#include "opscope/dispatch.h"
#include "opscope/float16.h"
#include "opscope/parallel.h"
#include "opscope/vec16.h"

namespace opscope::kernels {
namespace {

using vec16::Vec;
constexpr int kV = vec16::kLanes;
constexpr int64_t kBlock = 2048;  // a multiple of 2 * kV

// ds = sum dy*x, db = sum dy over n elements (element j of a block in lane j % 32), reading
// ahead within the first `valid` elements (the rest of this thread's range).
template <class T>
void rowSums(const T* dy, const T* x, int64_t n, int64_t valid, float* dsOut, float* dbOut) {
    double ds = 0, db = 0;
    for (int64_t b = 0; b < n; b += kBlock) {
        const int64_t e = std::min(n, b + kBlock);
        Vec sxy[2] = {Vec::broadcast(0.f), Vec::broadcast(0.f)}, sy[2] = {sxy[0], sxy[0]};
        int64_t j = b;
        for (; j + 2 * kV <= e; j += 2 * kV) {
            if constexpr (sizeof(T) == 2) {
                vec16::prefetchAhead(dy, j, 2 * kV, valid);
                vec16::prefetchAhead(x, j, 2 * kV, valid);
            }
            for (int h = 0; h < 2; ++h) {
                const Vec a = Vec::load(dy + j + h * kV);
                sxy[h] = sxy[h] + a * Vec::load(x + j + h * kV);
                sy[h] = sy[h] + a;
            }
        }
        for (int h = 0; j < e; j += kV, ++h) {
            const int k = vec16::lanesFor(e - j);
            const Vec a = Vec::load(dy + j, k);
            sxy[h] = sxy[h] + a * Vec::load(x + j, k);
            sy[h] = sy[h] + a;
        }
        ds += vec16::sumLanesInDouble(sxy);
        db += vec16::sumLanesInDouble(sy);
    }
    *dsOut = static_cast<float>(ds);
    *dbOut = static_cast<float>(db);
}

// dx = c1*dy + c2*x + c3 over n elements, rounded once to T.
template <class T>
void affineRow(const T* dy, const T* x, int64_t n, float c1, float c2, float c3, T* dx) {
    const Vec v1 = Vec::broadcast(c1), v2 = Vec::broadcast(c2), v3 = Vec::broadcast(c3);
    int64_t j = 0;
    for (; j + kV <= n; j += kV) (v1 * Vec::load(dy + j) + v2 * Vec::load(x + j) + v3).store(dx + j);
    if (j < n) {
        const int k = vec16::lanesFor(n - j);
        (v1 * Vec::load(dy + j, k) + v2 * Vec::load(x + j, k) + v3).store(dx + j, k);
    }
}

// Coefficients of dx = c1[c]*dy + c2*x + c3 for one (n, g); see ops/group_norm_backward/README.md.
// dy, x, dx point at the group's first element (D rows of HxW).
template <class T>
void inputGradForGroup(const GroupNormShape& s, int64_t n, int64_t g, const T* dy, const T* x, const float* mean,
                       const float* rstd, const float* gamma, const float* ds, const float* db, T* dx) {
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
        affineRow(dy + off, x + off, s.HxW, c1, c2, c3, dx + off);
    }
}

int64_t grainFor(int64_t workPerItem) { return std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(workPerItem, 1)); }

template <class T>
void reduceTyped(const GroupNormShape& s, const T* dy, const T* x, float* ds, float* db) {
    parallelFor(0, s.N * s.C, grainFor(s.HxW), [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row)
            rowSums(dy + row * s.HxW, x + row * s.HxW, s.HxW, (e - row) * s.HxW, ds + row, db + row);
    });
}

template <class T>
void reduceAndInputGradTyped(const GroupNormShape& s, const T* dy, const T* x, const float* mean, const float* rstd,
                             const float* gamma, float* ds, float* db, T* dx) {
    const int64_t D = s.channelsPerGroup();
    const int64_t groupSize = D * s.HxW;
    parallelFor(0, s.N * s.G, grainFor(groupSize), [&](int64_t b, int64_t e) {
        for (int64_t ng = b; ng < e; ++ng) {
            const int64_t n = ng / s.G, g = ng % s.G;
            const int64_t base = (n * s.C + g * D) * s.HxW;  // the group is contiguous
            for (int64_t c = 0; c < D; ++c) {
                const int64_t row = n * s.C + g * D + c;
                const int64_t at = base + c * s.HxW;
                rowSums(dy + at, x + at, s.HxW, (e - ng) * groupSize - c * s.HxW, ds + row, db + row);
            }
            inputGradForGroup(s, n, g, dy + base, x + base, mean, rstd, gamma, ds, db, dx + base);
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
