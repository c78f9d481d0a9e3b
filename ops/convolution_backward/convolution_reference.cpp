// Float64 convolution references: the forward pass and its three gradients written as the
// textbook loops, one multiply-add per (output, kernel tap), nothing shared with the GEMM
// kernels. 1D and 2D are padded to 3 spatial axes (size-one leading axes) locally.
#include "opscope/reference/convolution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "opscope/error.h"

namespace opscope::reference {
namespace {

struct Dims {
    int64_t N, C, s[3];  // s: D, H, W (missing leading axes are 1)
};

Dims dimsOf(const std::vector<int64_t>& shape) {
    if (shape.size() < 3 || shape.size() > 5) throw UsageError("convolution tensors have rank 3..5");
    Dims d{shape[0], shape[1], {1, 1, 1}};
    const std::size_t spatial = shape.size() - 2;
    for (std::size_t i = 0; i < spatial; ++i) d.s[3 - spatial + i] = shape[2 + i];
    return d;
}

struct Attr {
    int64_t stride[3], pad[3], dil[3];
};

Attr attrOf(const ConvParams& p, std::size_t spatial) {
    Attr a{{1, 1, 1}, {0, 0, 0}, {1, 1, 1}};
    for (std::size_t i = 0; i < spatial; ++i) {
        a.stride[3 - spatial + i] = p.stride.at(i);
        a.pad[3 - spatial + i] = p.padBegin.at(i);
        a.dil[3 - spatial + i] = p.dilation.at(i);
    }
    return a;
}

std::size_t at(const Dims& d, int64_t n, int64_t c, int64_t z, int64_t y, int64_t x) {
    return static_cast<std::size_t>((((n * d.C + c) * d.s[0] + z) * d.s[1] + y) * d.s[2] + x);
}

bool inside(const Dims& d, int64_t z, int64_t y, int64_t x) {
    return z >= 0 && z < d.s[0] && y >= 0 && y < d.s[1] && x >= 0 && x < d.s[2];
}

// Calls f(big index, small index, weight index) for every multiply of the convolution. "Small"
// is the side indexed by the positions o and "big" the side read at o*stride - pad + k*dilation:
// a convolution's output and input, or a transposed convolution's input and output. In both
// layouts the weight is [small channels, big channels / groups, k...].
template <class F>
void forEachTap(const Dims& big, const Dims& small, const Dims& wd, const Attr& a, int64_t groups, F&& f) {
    const int64_t smallPerGroup = small.C / groups;
    const int64_t bigPerGroup = big.C / groups;
    for (int64_t n = 0; n < small.N; ++n)
        for (int64_t cs = 0; cs < small.C; ++cs) {
            const int64_t g = cs / smallPerGroup;
            for (int64_t oz = 0; oz < small.s[0]; ++oz)
                for (int64_t oy = 0; oy < small.s[1]; ++oy)
                    for (int64_t ox = 0; ox < small.s[2]; ++ox)
                        for (int64_t cl = 0; cl < bigPerGroup; ++cl)
                            for (int64_t kz = 0; kz < wd.s[0]; ++kz)
                                for (int64_t ky = 0; ky < wd.s[1]; ++ky)
                                    for (int64_t kx = 0; kx < wd.s[2]; ++kx) {
                                        const int64_t z = oz * a.stride[0] - a.pad[0] + kz * a.dil[0];
                                        const int64_t y = oy * a.stride[1] - a.pad[1] + ky * a.dil[1];
                                        const int64_t x = ox * a.stride[2] - a.pad[2] + kx * a.dil[2];
                                        if (!inside(big, z, y, x)) continue;
                                        const int64_t cb = g * bigPerGroup + cl;
                                        f(at(big, n, cb, z, y, x), at(small, n, cs, oz, oy, ox),
                                          at(wd, cs, cl, kz, ky, kx));
                                    }
        }
}

}  // namespace

ConvParams convParams(int spatial, int64_t stride, int64_t pad, int64_t dilation, int64_t groups, bool transposed,
                      int64_t outputPadding) {
    const auto n = static_cast<std::size_t>(spatial);
    ConvParams p;
    p.stride.assign(n, stride);
    p.padBegin.assign(n, pad);
    p.padEnd.assign(n, pad);
    p.dilation.assign(n, dilation);
    p.outputPadding.assign(n, outputPadding);
    p.groups = groups;
    p.transposed = transposed;
    return p;
}

std::vector<int64_t> convOutputShape(const std::vector<int64_t>& inputShape, const std::vector<int64_t>& weightShape,
                                     const ConvParams& p) {
    std::vector<int64_t> out = {inputShape.at(0), p.transposed ? weightShape.at(1) * p.groups : weightShape.at(0)};
    for (std::size_t i = 2; i < inputShape.size(); ++i) {
        const std::size_t a = i - 2;
        const int64_t span = p.dilation.at(a) * (weightShape.at(i) - 1);
        if (p.transposed)
            out.push_back((inputShape[i] - 1) * p.stride.at(a) - p.padBegin.at(a) - p.padEnd.at(a) + span +
                          p.outputPadding.at(a) + 1);
        else
            out.push_back((inputShape[i] + p.padBegin.at(a) + p.padEnd.at(a) - span - 1) / p.stride.at(a) + 1);
    }
    return out;
}

std::vector<double> convForward(const std::vector<double>& x, const std::vector<int64_t>& xShape,
                                const std::vector<double>& w, const std::vector<int64_t>& wShape,
                                const std::vector<double>& bias, const ConvParams& p) {
    const std::vector<int64_t> yShape = convOutputShape(xShape, wShape, p);
    const Dims xd = dimsOf(xShape), yd = dimsOf(yShape), wd = dimsOf(wShape);
    const Attr a = attrOf(p, xShape.size() - 2);
    int64_t count = 1;
    for (int64_t v : yShape) count *= v;
    std::vector<double> y(static_cast<std::size_t>(count), 0.0);
    if (!bias.empty())
        for (int64_t n = 0; n < yd.N; ++n)
            for (int64_t c = 0; c < yd.C; ++c)
                for (int64_t z = 0; z < yd.s[0]; ++z)
                    for (int64_t r = 0; r < yd.s[1]; ++r)
                        for (int64_t q = 0; q < yd.s[2]; ++q)
                            y[at(yd, n, c, z, r, q)] = bias[static_cast<std::size_t>(c)];
    if (!p.transposed) {
        // y[n, co, o] += x[n, g*Cin_g + ci, o*s - p + k*d] * w[co, ci, k]: small side = y.
        forEachTap(xd, yd, wd, a, p.groups,
                   [&](std::size_t xi, std::size_t yi, std::size_t wi) { y[yi] += x[xi] * w[wi]; });
    } else {
        // y[n, g*Cout_g + co, i*s - p + k*d] += x[n, ci, i] * w[ci, co, k]: small side = x.
        forEachTap(yd, xd, wd, a, p.groups,
                   [&](std::size_t yi, std::size_t xi, std::size_t wi) { y[yi] += x[xi] * w[wi]; });
    }
    return y;
}

ConvBackwardResult convBackward(const std::vector<double>& gradOut, const std::vector<int64_t>& gradOutShape,
                                const std::vector<double>& x, const std::vector<int64_t>& xShape,
                                const std::vector<double>& w, const std::vector<int64_t>& wShape, const ConvParams& p) {
    const Dims xd = dimsOf(xShape), yd = dimsOf(gradOutShape), wd = dimsOf(wShape);
    const Attr a = attrOf(p, xShape.size() - 2);
    ConvBackwardResult r;
    r.gradInput.assign(x.size(), 0.0);
    r.gradWeight.assign(w.size(), 0.0);
    // Each forward multiply y[yi] += x[xi] * w[wi] contributes dy[yi]*w[wi] to dx[xi] and
    // dy[yi]*x[xi] to dw[wi].
    auto tap = [&](std::size_t xi, std::size_t yi, std::size_t wi) {
        r.gradInput[xi] += gradOut[yi] * w[wi];
        r.gradWeight[wi] += gradOut[yi] * x[xi];
    };
    if (!p.transposed)
        forEachTap(xd, yd, wd, a, p.groups, tap);
    else
        forEachTap(yd, xd, wd, a, p.groups, [&](std::size_t yi, std::size_t xi, std::size_t wi) { tap(xi, yi, wi); });
    r.gradBias = convBiasGrad(gradOut, gradOutShape);
    return r;
}

std::vector<double> convBiasGrad(const std::vector<double>& gradOut, const std::vector<int64_t>& gradOutShape) {
    const Dims yd = dimsOf(gradOutShape);
    std::vector<double> gradBias(static_cast<std::size_t>(yd.C), 0.0);
    for (int64_t n = 0; n < yd.N; ++n)
        for (int64_t c = 0; c < yd.C; ++c)
            for (int64_t z = 0; z < yd.s[0]; ++z)
                for (int64_t q = 0; q < yd.s[1]; ++q)
                    for (int64_t s = 0; s < yd.s[2]; ++s)
                        gradBias[static_cast<std::size_t>(c)] += gradOut[at(yd, n, c, z, q, s)];
    return gradBias;
}

double roundToHFloat32(double v) {
    if (!std::isfinite(v) || v == 0) return v;
    // 12 significant bits for a normal float32; below float32's smallest normal the quantum stays
    // that of the smallest normal binade (2^-137), as the low mantissa bits of a subnormal go.
    const int exponent = std::max(std::ilogb(v), -126);
    const double quantum = std::ldexp(1.0, exponent - 11);
    const double r = std::nearbyint(v / quantum) * quantum;  // ties to even: the default rounding mode
    return std::fabs(r) > static_cast<double>(std::numeric_limits<float>::max()) ? std::copysign(INFINITY, v) : r;
}

}  // namespace opscope::reference
