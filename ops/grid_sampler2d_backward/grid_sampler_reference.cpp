// The textbook formulation: pixel coordinates from the normalised grid, padding by clamping or
// by reflecting (fmod), bilinear / nearest / bicubic weights from their kernels, and gradients
// as the analytic derivatives of those weights, accumulated one (n, c, point) at a time.
#include <cmath>
#include <cstddef>
#include <limits>

#include "opscope/reference/grid_sampler.h"

namespace opscope::reference {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kA = -0.75;  // cubic convolution constant (PyTorch, OpenCV)

struct Axis {
    int64_t size;
    const GridSamplerOptions& o;

    // Pixel coordinate of a normalised value, and its derivative.
    double unnormalize(double g, double* d) const {
        if (o.alignCorners) {
            *d = static_cast<double>(size - 1) / 2;
            return (g + 1) / 2 * static_cast<double>(size - 1);
        }
        *d = static_cast<double>(size) / 2;
        return ((g + 1) * static_cast<double>(size) - 1) / 2;
    }

    // Reflect into [lo, hi] (the pixel centres with alignCorners, else the image edges);
    // *d is +1 or -1. Non-finite coordinates have no reflection: NaN.
    double reflect(double x, double* d) const {
        const double lo = o.alignCorners ? 0.0 : -0.5;
        const double hi = o.alignCorners ? static_cast<double>(size - 1) : static_cast<double>(size) - 0.5;
        *d = 1;
        if (lo == hi) {
            *d = 0;
            return 0;
        }
        if (!std::isfinite(x)) return kNaN;
        const double span = hi - lo;
        double in = x - lo;
        if (in < 0) {
            *d = -1;
            in = -in;
        }
        const double extra = std::fmod(in, span);
        const bool odd = std::fmod(std::floor(in / span), 2.0) != 0;
        if (!odd) return extra + lo;
        *d = -*d;
        return span - extra + lo;
    }

    // Clamp into [0, size-1]; the clamped coordinate does not move with x (*d = 0 on and
    // beyond the limits). NaN passes through unchanged.
    double clipWithGrad(double x, double* d) const {
        if (std::isnan(x)) return x;
        if (x <= 0) {
            *d = 0;
            return 0;
        }
        if (x >= static_cast<double>(size - 1)) {
            *d = 0;
            return static_cast<double>(size - 1);
        }
        return x;
    }

    // The bilinear sampling coordinate and d coordinate / d grid value.
    double sampleCoordinate(double g, double* mult) const {
        double x = unnormalize(g, mult);
        if (o.padding == 1) {
            double c = 1;
            x = clipWithGrad(x, &c);
            *mult *= c;
        } else if (o.padding == 2) {
            double r = 1, c = 1;
            x = clipWithGrad(reflect(x, &r), &c);
            *mult *= r * c;
        }
        return x;
    }

    // Padding of a position for nearest and for bicubic taps; NaN becomes 0 when padding.
    double padPosition(double x) const {
        if (o.padding == 0) return x;
        double unused = 1;
        if (o.padding == 2) x = reflect(x, &unused);
        if (std::isnan(x)) return 0;
        return std::fmin(std::fmax(x, 0.0), static_cast<double>(size - 1));
    }

    bool inside(double i) const { return i >= 0 && i <= static_cast<double>(size - 1); }
};

double cubic(double d) {
    if (std::isnan(d)) return kNaN;
    const double a = std::fabs(d);
    if (a <= 1) return ((kA + 2) * a - (kA + 3)) * a * a + 1;
    if (a < 2) return ((kA * a - 5 * kA) * a + 8 * kA) * a - 4 * kA;
    return 0;
}

double cubicDerivative(double d) {
    if (std::isnan(d)) return kNaN;
    const double a = std::fabs(d), sign = d < 0 ? -1.0 : 1.0;
    if (a <= 1) return sign * (3 * (kA + 2) * a * a - 2 * (kA + 3) * a);
    if (a < 2) return sign * (3 * kA * a * a - 10 * kA * a + 8 * kA);
    return 0;
}

// One input plane [H, W] with bounds-checked access.
struct Plane {
    const Axis& ax;
    const Axis& ay;
    double at(const std::vector<double>& v, std::size_t base, double x, double y) const {
        if (!ax.inside(x) || !ay.inside(y)) return 0;
        return v[base + static_cast<std::size_t>(static_cast<int64_t>(y) * ax.size + static_cast<int64_t>(x))];
    }
    void add(std::vector<double>& v, std::size_t base, double x, double y, double delta) const {
        if (!ax.inside(x) || !ay.inside(y)) return;
        v[base + static_cast<std::size_t>(static_cast<int64_t>(y) * ax.size + static_cast<int64_t>(x))] += delta;
    }
};

std::size_t idx(int64_t i) { return static_cast<std::size_t>(i); }

}  // namespace

std::vector<double> gridSampler2D(const std::vector<double>& input, const std::vector<double>& grid,
                                  const GridSamplerShape& s, const GridSamplerOptions& o) {
    std::vector<double> out(idx(s.N * s.C * s.Ho * s.Wo), 0.0);
    const Axis ax{s.W, o}, ay{s.H, o};
    const Plane plane{ax, ay};
    for (int64_t n = 0; n < s.N; ++n)
        for (int64_t p = 0; p < s.Ho * s.Wo; ++p) {
            double unused;
            const double gx = grid[idx((n * s.Ho * s.Wo + p) * 2)], gy = grid[idx((n * s.Ho * s.Wo + p) * 2 + 1)];
            for (int64_t c = 0; c < s.C; ++c) {
                const std::size_t base = idx((n * s.C + c) * s.H * s.W);
                double v = 0;
                if (o.interpolation == 0) {
                    const double x = ax.padPosition(ax.unnormalize(gx, &unused));
                    const double y = ay.padPosition(ay.unnormalize(gy, &unused));
                    const double x0 = std::floor(x), y0 = std::floor(y);
                    for (int dy = 0; dy < 2; ++dy)
                        for (int dx = 0; dx < 2; ++dx) {
                            const double wx = dx ? x - x0 : x0 + 1 - x, wy = dy ? y - y0 : y0 + 1 - y;
                            v += wx * wy * plane.at(input, base, x0 + dx, y0 + dy);
                        }
                } else if (o.interpolation == 1) {
                    const double x = std::nearbyint(ax.padPosition(ax.unnormalize(gx, &unused)));
                    const double y = std::nearbyint(ay.padPosition(ay.unnormalize(gy, &unused)));
                    v = plane.at(input, base, x, y);
                } else {
                    const double x = ax.unnormalize(gx, &unused), y = ay.unnormalize(gy, &unused);
                    const double x0 = std::floor(x), y0 = std::floor(y), fx = x - x0, fy = y - y0;
                    for (int i = 0; i < 4; ++i)
                        for (int j = 0; j < 4; ++j)
                            v += cubic(fx + 1 - i) * cubic(fy + 1 - j) *
                                 plane.at(input, base, ax.padPosition(x0 + i - 1), ay.padPosition(y0 + j - 1));
                }
                out[idx(((n * s.C + c) * s.Ho * s.Wo) + p)] = v;
            }
        }
    return out;
}

GridSamplerBackwardResult gridSampler2DBackward(const std::vector<double>& gradOutput, const std::vector<double>& input,
                                                const std::vector<double>& grid, const GridSamplerShape& s,
                                                const GridSamplerOptions& o) {
    GridSamplerBackwardResult r;
    r.inputGrad.assign(idx(s.N * s.C * s.H * s.W), 0.0);
    r.gridGrad.assign(idx(s.N * s.Ho * s.Wo * 2), 0.0);
    const Axis ax{s.W, o}, ay{s.H, o};
    const Plane plane{ax, ay};
    for (int64_t n = 0; n < s.N; ++n)
        for (int64_t p = 0; p < s.Ho * s.Wo; ++p) {
            const double gxv = grid[idx((n * s.Ho * s.Wo + p) * 2)], gyv = grid[idx((n * s.Ho * s.Wo + p) * 2 + 1)];
            double dLdx = 0, dLdy = 0, multX = 0, multY = 0;
            for (int64_t c = 0; c < s.C; ++c) {
                const std::size_t base = idx((n * s.C + c) * s.H * s.W);
                const double g = gradOutput[idx((n * s.C + c) * s.Ho * s.Wo + p)];
                if (o.interpolation == 0) {
                    const double x = ax.sampleCoordinate(gxv, &multX), y = ay.sampleCoordinate(gyv, &multY);
                    const double x0 = std::floor(x), y0 = std::floor(y), x1 = x0 + 1, y1 = y0 + 1;
                    const double vnw = plane.at(input, base, x0, y0), vne = plane.at(input, base, x1, y0);
                    const double vsw = plane.at(input, base, x0, y1), vse = plane.at(input, base, x1, y1);
                    plane.add(r.inputGrad, base, x0, y0, (x1 - x) * (y1 - y) * g);
                    plane.add(r.inputGrad, base, x1, y0, (x - x0) * (y1 - y) * g);
                    plane.add(r.inputGrad, base, x0, y1, (x1 - x) * (y - y0) * g);
                    plane.add(r.inputGrad, base, x1, y1, (x - x0) * (y - y0) * g);
                    dLdx += (-vnw * (y1 - y) + vne * (y1 - y) - vsw * (y - y0) + vse * (y - y0)) * g;
                    dLdy += (-vnw * (x1 - x) - vne * (x - x0) + vsw * (x1 - x) + vse * (x - x0)) * g;
                } else if (o.interpolation == 1) {
                    double unused;
                    const double x = std::nearbyint(ax.padPosition(ax.unnormalize(gxv, &unused)));
                    const double y = std::nearbyint(ay.padPosition(ay.unnormalize(gyv, &unused)));
                    plane.add(r.inputGrad, base, x, y, g);
                } else {
                    // Tap i sits at x0 + i - 1, at distance fx + 1 - i from the sample (computed from
                    // the fraction, so it stays exact for huge coordinates).
                    const double x = ax.unnormalize(gxv, &multX), y = ay.unnormalize(gyv, &multY);
                    const double x0 = std::floor(x), y0 = std::floor(y), fx = x - x0, fy = y - y0;
                    for (int i = 0; i < 4; ++i)
                        for (int j = 0; j < 4; ++j) {
                            const double px = ax.padPosition(x0 + i - 1), py = ay.padPosition(y0 + j - 1);
                            const double wx = cubic(fx + 1 - i), wy = cubic(fy + 1 - j);
                            plane.add(r.inputGrad, base, px, py, wx * wy * g);
                            const double v = plane.at(input, base, px, py);
                            dLdx += v * g * cubicDerivative(fx + 1 - i) * wy;
                            dLdy += v * g * wx * cubicDerivative(fy + 1 - j);
                        }
                }
            }
            if (o.interpolation != 1 && s.C > 0) {
                r.gridGrad[idx((n * s.Ho * s.Wo + p) * 2)] = multX * dLdx;
                r.gridGrad[idx((n * s.Ho * s.Wo + p) * 2 + 1)] = multY * dLdy;
            }
        }
    return r;
}

}  // namespace opscope::reference
