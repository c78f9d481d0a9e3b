// Design. Every grid point is first located: unnormalised, padded and turned into at most 16
// taps (pixel index or "outside", interpolation weight w, and the weights kx, ky of its value in
// d/dx, d/dy), following PyTorch's vectorised CPU kernel operation by operation (same float
// formulas, same NaN/Inf behaviour, but bounds are tested before any float->int conversion so
// NaN or huge coordinates never index memory). Then per tap
//   inputGrad[tap] += w * gradOutput[point]                      (scatter)
//   gx += kx * input[tap] * gradOutput[point], gy likewise         (gather)
// gridGrad[point] = (multX * gx, multY * gy) with the padding's derivative in mult.
// NHWC (the device's GridSamplerGrad): the taps' channel rows are contiguous, so the inner
// loops run over channels and vectorise (float lanes, summed in double per point). NCHW (its
// GridSampler2DGrad): points are located in blocks of 64, then each channel plane is swept.
// Races: a task owns (batch, channel block) of inputGrad; see the header.
#include "grid_sampler2d_backward_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "opscope/dispatch.h"
#include "opscope/parallel.h"

namespace opscope::kernels {
namespace {

constexpr int kMaxTaps = 16;
constexpr int64_t kBlockChannels = 16;
constexpr int64_t kPointBlock = 64;

// GridSamplerGradTensors with the compute type known.
template <class T>
struct TypedTensors {
    const T *gradOutput, *input, *grid;
    T *inputGrad, *gridGrad, *gridPartials;
};

// One spatial axis of the input: PyTorch's ComputeLocation for a padding mode.
template <class T>
struct Axis {
    int64_t size;
    GridPadding padding;
    bool alignCorners;
    T maxVal, scale, low, twiceSpan;
    bool empty;

    Axis(int64_t n, GridPadding pad, bool ac)
        : size(n),
          padding(pad),
          alignCorners(ac),
          maxVal(static_cast<T>(n - 1)),
          scale(ac ? static_cast<T>(n - 1) / 2 : static_cast<T>(n) / 2),
          low(ac ? T(0) : T(-0.5)),
          twiceSpan(ac ? static_cast<T>(n - 1) * 2 : static_cast<T>(n) * 2),
          empty(ac ? n <= 1 : n <= 0) {}

    T unnormalize(T v) const { return alignCorners ? (v + T(1)) * scale : (v + T(1)) * scale - T(0.5); }

    // Clamp to [0, size-1]; NaN becomes 0 (PyTorch's clip_coordinates).
    T clip(T v) const { return v > T(0) ? (v < maxVal ? v : maxVal) : T(0); }

    T reflect(T v) const {
        if (empty) return T(0);
        const T a = std::fabs(v - low);
        const T extra = a - std::trunc(a / twiceSpan) * twiceSpan;
        const T other = twiceSpan - extra;
        return (other < extra ? other : extra) + low;  // NaN stays NaN (and is clipped to 0)
    }

    // Padding for nearest and for bicubic taps (PyTorch's compute_coordinates).
    T pad(T v) const {
        switch (padding) {
            case GridPadding::Border: return clip(v);
            case GridPadding::Reflection: return clip(reflect(v));
            default: return v;
        }
    }

    // Padding with its derivative for bilinear (PyTorch's apply_get_grad): coordinates on or
    // beyond the clip limits get multiplier 0; NaN passes through with its multiplier.
    T padWithGrad(T g, T* mult) const {
        T x = unnormalize(g);
        T m = scale;
        if (padding == GridPadding::Zeros) {
            *mult = m;
            return x;
        }
        if (padding == GridPadding::Reflection) {
            if (empty) {
                *mult = T(0);
                return T(0);
            }
            const T inl = x - low;
            const bool negative = inl < T(0);
            const T a = std::fabs(inl);
            const T extra = a - std::trunc(a / twiceSpan) * twiceSpan;
            const T reflected = twiceSpan - extra;
            const bool flip = extra > reflected;
            x = (flip ? reflected : extra) + low;
            m = flip != negative ? -scale : scale;
        }
        if (x <= T(0)) {
            x = T(0);
            m = T(0);
        } else if (x >= maxVal) {
            x = maxVal;
            m = T(0);
        }
        *mult = m;
        return x;
    }

    // The integer-valued coordinate c lies inside [0, size-1] (false for NaN and +-Inf).
    bool inside(T c) const { return c >= T(0) && c <= maxVal; }
};

template <class T>
struct Point {
    int taps = 0;
    bool zeroGridGrad = false;  // nearest: the grid gradient is 0
    T multX = 0, multY = 0;
    int64_t off[kMaxTaps];  // y * W + x, or -1 outside
    T w[kMaxTaps], kx[kMaxTaps], ky[kMaxTaps];
};

template <class T>
void cubicCoefficients(T t, T c[4]) {
    const T A = T(-0.75);
    T x = t + T(1);
    c[0] = ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A;
    x = t;
    c[1] = ((A + T(2)) * x - (A + T(3))) * x * x + T(1);
    x = T(1) - t;
    c[2] = ((A + T(2)) * x - (A + T(3))) * x * x + T(1);
    x = T(2) - t;
    c[3] = ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A;
}

// Minus the derivative of each coefficient with respect to t (PyTorch's sign convention).
template <class T>
void cubicCoefficientsGrad(T t, T c[4]) {
    const T A = T(-0.75);
    T x = T(-1) - t;
    c[0] = (T(-3) * A * x - T(10) * A) * x - T(8) * A;
    x = T(0) - t;
    c[1] = (T(-3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
    x = T(1) - t;
    c[2] = (T(3) * (A + T(2)) * x - T(2) * (A + T(3))) * x;
    x = T(2) - t;
    c[3] = (T(3) * A * x - T(10) * A) * x + T(8) * A;
}

template <class T>
class Locator {
public:
    Locator(const GridSamplerGradProblem& p)
        : p_(p), ax_(p.W, p.padding, p.alignCorners), ay_(p.H, p.padding, p.alignCorners) {}

    void locate(T gx, T gy, Point<T>& pt) const {
        switch (p_.interpolation) {
            case GridInterpolation::Nearest: return nearest(gx, gy, pt);
            case GridInterpolation::Bicubic: return bicubic(gx, gy, pt);
            default: return bilinear(gx, gy, pt);
        }
    }

private:
    void tap(Point<T>& pt, T cx, T cy, T w, T kx, T ky) const {
        const int k = pt.taps++;
        pt.off[k] = ax_.inside(cx) && ay_.inside(cy) ? static_cast<int64_t>(cy) * p_.W + static_cast<int64_t>(cx) : -1;
        pt.w[k] = w;
        pt.kx[k] = kx;
        pt.ky[k] = ky;
    }

    void bilinear(T gx, T gy, Point<T>& pt) const {
        const T x = ax_.padWithGrad(gx, &pt.multX);
        const T y = ay_.padWithGrad(gy, &pt.multY);
        const T xw = std::floor(x), yn = std::floor(y);
        const T w = x - xw, e = T(1) - w, n = y - yn, s = T(1) - n;
        pt.taps = 0;
        pt.zeroGridGrad = false;
        // gx = sum((ne - nw) * s + (se - sw) * n) * g, gy = sum((sw - nw) * e + (se - ne) * w) * g
        tap(pt, xw, yn, s * e, -s, -e);
        tap(pt, xw + T(1), yn, s * w, s, -w);
        tap(pt, xw, yn + T(1), n * e, -n, e);
        tap(pt, xw + T(1), yn + T(1), n * w, n, w);
    }

    void nearest(T gx, T gy, Point<T>& pt) const {
        const T x = std::nearbyint(ax_.pad(ax_.unnormalize(gx)));  // half to even
        const T y = std::nearbyint(ay_.pad(ay_.unnormalize(gy)));
        pt.taps = 0;
        pt.zeroGridGrad = true;
        pt.multX = pt.multY = T(0);
        tap(pt, x, y, T(1), T(0), T(0));
    }

    void bicubic(T gx, T gy, Point<T>& pt) const {
        const T x = ax_.unnormalize(gx), y = ay_.unnormalize(gy);
        pt.multX = ax_.scale;
        pt.multY = ay_.scale;
        pt.taps = 0;
        pt.zeroGridGrad = false;
        const T ix = std::floor(x), iy = std::floor(y);
        T cx[4], cy[4], gcx[4], gcy[4];
        cubicCoefficients(x - ix, cx);
        cubicCoefficients(y - iy, cy);
        cubicCoefficientsGrad(x - ix, gcx);
        cubicCoefficientsGrad(y - iy, gcy);
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
                tap(pt, ax_.pad(ix + T(i - 1)), ay_.pad(iy + T(j - 1)), cx[i] * cy[j], -(gcx[i] * cy[j]),
                    -(gcy[j] * cx[i]));
    }

    const GridSamplerGradProblem& p_;
    Axis<T> ax_, ay_;
};

template <class T>
constexpr int kLanes = 64 / static_cast<int>(sizeof(T));

template <class T>
void axpy(T* __restrict y, const T* __restrict x, T a, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

template <class T>
void gatherTap(const T* __restrict v, const T* __restrict g, T kx, T ky, int64_t n, T* __restrict ax,
               T* __restrict ay) {
    constexpr int L = kLanes<T>;
    int64_t i = 0;
    for (; i + L <= n; i += L)
        for (int l = 0; l < L; ++l) {
            const T t = v[i + l] * g[i + l];
            ax[l] += t * kx;
            ay[l] += t * ky;
        }
    for (int l = 0; i < n; ++i, ++l) {
        const T t = v[i] * g[i];
        ax[l] += t * kx;
        ay[l] += t * ky;
    }
}

struct Task {
    int64_t n, block, c0, c1;
};

template <class T>
class Runner {
public:
    Runner(const GridSamplerGradProblem& p, const TypedTensors<T>& t, const ChannelBlocks& b)
        : p_(p), t_(t), b_(b), locator_(p), P_(p.Ho * p.Wo), HW_(p.H * p.W) {}

    void run() {
        parallelFor(0, p_.N * b_.count, 1, [&](int64_t begin, int64_t end) {
            std::vector<T> zeros(p_.layout == GridLayout::NHWC ? static_cast<std::size_t>(b_.size) : 0, T(0));
            std::vector<Point<T>> points(p_.layout == GridLayout::NCHW ? kPointBlock : 1);
            for (int64_t k = begin; k < end; ++k) {
                Task task{k / b_.count, k % b_.count, 0, 0};
                task.c0 = task.block * b_.size;
                task.c1 = std::min(p_.C, task.c0 + b_.size);
                if (t_.inputGrad) zeroInputGrad(task);
                switch (p_.interpolation) {  // a fixed tap count lets the tap loops unroll
                    case GridInterpolation::Nearest: sweep<1>(task, zeros.data(), points); break;
                    case GridInterpolation::Bicubic: sweep<16>(task, zeros.data(), points); break;
                    default: sweep<4>(task, zeros.data(), points); break;
                }
            }
        });
        if (t_.gridGrad && b_.count > 1) reduceGridGrad();
    }

private:
    T* gridOut(const Task& task, int64_t point) const {
        return b_.count > 1 ? t_.gridPartials + ((task.block * p_.N + task.n) * P_ + point) * 2
                            : t_.gridGrad + (task.n * P_ + point) * 2;
    }

    void writeGrid(T* out, const Point<T>& pt, double gx, double gy) const {
        if (pt.zeroGridGrad) {
            out[0] = out[1] = T(0);
        } else {
            out[0] = static_cast<T>(gx) * pt.multX;
            out[1] = static_cast<T>(gy) * pt.multY;
        }
    }

    void zeroInputGrad(const Task& task) const {
        const int64_t nc = task.c1 - task.c0;
        if (p_.layout == GridLayout::NCHW) {
            std::memset(t_.inputGrad + (task.n * p_.C + task.c0) * HW_, 0,
                        static_cast<std::size_t>(nc * HW_) * sizeof(T));
        } else if (nc == p_.C) {
            std::memset(t_.inputGrad + task.n * HW_ * p_.C, 0, static_cast<std::size_t>(HW_ * p_.C) * sizeof(T));
        } else {
            for (int64_t px = 0; px < HW_; ++px)
                std::memset(t_.inputGrad + (task.n * HW_ + px) * p_.C + task.c0, 0,
                            static_cast<std::size_t>(nc) * sizeof(T));
        }
    }

    template <int kTaps>
    void sweep(const Task& task, const T* zeros, std::vector<Point<T>>& points) const {
        if (p_.layout == GridLayout::NHWC)
            channelsLast<kTaps>(task, zeros, points[0]);
        else
            channelsFirst<kTaps>(task, points);
    }

    template <int kTaps>
    void channelsLast(const Task& task, const T* zeros, Point<T>& pt) const {
        const int64_t C = p_.C, c0 = task.c0, nc = task.c1 - task.c0;
        const bool wantGrid = t_.gridGrad != nullptr;
        const T* grid = t_.grid + task.n * P_ * 2;
        T* gI = t_.inputGrad ? t_.inputGrad + task.n * HW_ * C + c0 : nullptr;
        const T* in = t_.input ? t_.input + task.n * HW_ * C + c0 : nullptr;
        for (int64_t q = 0; q < P_; ++q) {
            locator_.locate(grid[2 * q], grid[2 * q + 1], pt);
            const T* g = t_.gradOutput + (task.n * P_ + q) * C + c0;
            T ax[kLanes<T>] = {}, ay[kLanes<T>] = {};
            for (int k = 0; k < kTaps; ++k) {
                const int64_t off = pt.off[k];
                if (gI && off >= 0) axpy(gI + off * C, g, pt.w[k], nc);
                if (wantGrid && !pt.zeroGridGrad)
                    gatherTap(off >= 0 ? in + off * C : zeros, g, pt.kx[k], pt.ky[k], nc, ax, ay);
            }
            if (wantGrid) {
                double sx = 0, sy = 0;
                for (int l = 0; l < kLanes<T>; ++l) sx += static_cast<double>(ax[l]), sy += static_cast<double>(ay[l]);
                writeGrid(gridOut(task, q), pt, sx, sy);
            }
        }
    }

    // One channel plane at a time for a block of located points; the taps of a point are copied
    // to locals so the compiler keeps them in registers across the plane's stores.
    template <int kTaps>
    void channelsFirst(const Task& task, std::vector<Point<T>>& points) const {
        const bool wantGrid = t_.gridGrad != nullptr;
        const bool gather = wantGrid && p_.interpolation != GridInterpolation::Nearest;
        const T* grid = t_.grid + task.n * P_ * 2;
        T accX[kPointBlock], accY[kPointBlock];
        constexpr std::size_t kTapSlots = kTaps;  // GCC sees a sign change in an int template argument as a bound
        for (int64_t pb = 0; pb < P_; pb += kPointBlock) {
            const int64_t np = std::min(kPointBlock, P_ - pb);
            for (int64_t q = 0; q < np; ++q) {
                locator_.locate(grid[2 * (pb + q)], grid[2 * (pb + q) + 1], points[static_cast<std::size_t>(q)]);
                accX[q] = accY[q] = T(0);
            }
            for (int64_t c = task.c0; c < task.c1; ++c) {
                const T* __restrict g = t_.gradOutput + (task.n * p_.C + c) * P_ + pb;
                T* __restrict gI = t_.inputGrad ? t_.inputGrad + (task.n * p_.C + c) * HW_ : nullptr;
                const T* __restrict in = t_.input ? t_.input + (task.n * p_.C + c) * HW_ : nullptr;
                for (int64_t q = 0; q < np; ++q) {
                    const Point<T>& pt = points[static_cast<std::size_t>(q)];
                    int64_t off[kTapSlots];
                    T w[kTapSlots], kx[kTapSlots], ky[kTapSlots];
                    for (int k = 0; k < kTaps; ++k)
                        off[k] = pt.off[k], w[k] = pt.w[k], kx[k] = pt.kx[k], ky[k] = pt.ky[k];
                    const T gq = g[q];
                    if (gI)
                        for (int k = 0; k < kTaps; ++k)
                            if (off[k] >= 0) gI[off[k]] += w[k] * gq;
                    if (gather) {
                        T sx = accX[q], sy = accY[q];
                        for (int k = 0; k < kTaps; ++k) {
                            const T t = (off[k] >= 0 ? in[off[k]] : T(0)) * gq;
                            sx += t * kx[k];
                            sy += t * ky[k];
                        }
                        accX[q] = sx;
                        accY[q] = sy;
                    }
                }
            }
            if (wantGrid)
                for (int64_t q = 0; q < np; ++q)
                    writeGrid(gridOut(task, pb + q), points[static_cast<std::size_t>(q)], static_cast<double>(accX[q]),
                              static_cast<double>(accY[q]));
        }
    }

    void reduceGridGrad() const {
        const int64_t total = p_.N * P_ * 2;
        parallelFor(0, total, 1 << 14, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
                T s = t_.gridPartials[i];
                for (int64_t blk = 1; blk < b_.count; ++blk) s += t_.gridPartials[blk * total + i];
                t_.gridGrad[i] = s;
            }
        });
    }

    const GridSamplerGradProblem& p_;
    const TypedTensors<T>& t_;
    const ChannelBlocks& b_;
    Locator<T> locator_;
    int64_t P_, HW_;
};

}  // namespace

ChannelBlocks gridSamplerChannelBlocks(int64_t N, int64_t C, int threads) {
    ChannelBlocks b{std::max<int64_t>(C, 1), 1};
    if (threads <= 1 || N <= 0 || N % threads == 0 || N >= 4 * threads) return b;
    const int64_t wanted = (4 * threads + N - 1) / N;
    const int64_t possible = std::max<int64_t>(1, C / kBlockChannels);
    const int64_t count = std::min(wanted, possible);
    if (count <= 1) return b;
    const int64_t per = (C + count - 1) / count;
    b.size = (per + kBlockChannels - 1) / kBlockChannels * kBlockChannels;
    b.count = (C + b.size - 1) / b.size;
    return b;
}

void gridSamplerGrad(const GridSamplerGradProblem& p, const GridSamplerGradTensors& t, const ChannelBlocks& blocks) {
    dispatchKernel<Float32OrFloat64>(t.dtype, "GridSamplerGrad", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const TypedTensors<T> typed{static_cast<const T*>(t.gradOutput), static_cast<const T*>(t.input),
                                    static_cast<const T*>(t.grid),       static_cast<T*>(t.inputGrad),
                                    static_cast<T*>(t.gridGrad),         static_cast<T*>(t.gridPartials)};
        Runner<T>(p, typed, blocks).run();
    });
}

}  // namespace opscope::kernels
