// Design: the pieces of a whole Y plane (one per kernel tap and Y row) are computed once per
// chunk and replayed for every plane. Within a piece, stride 1 is a contiguous multiply-add the
// compiler vectorises; other strides step through the X row. The filter's dot products keep 16
// lane sums (one per j mod 16) added in lane order, so the order never depends on the machine.
#include "conv_depthwise.h"

#include <algorithm>

#include "conv_im2col.h"
#include "opscope/parallel.h"

namespace opscope::kernels {
namespace {

constexpr int kLanes = 16;

// Σ_j a[j] · b[j*s] for j in [0, n), in 16 lane sums combined in order.
float dot(const float* __restrict a, const float* __restrict b, int64_t s, int64_t n) {
    float lane[kLanes] = {};
    int64_t j = 0;
    if (s == 1) {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l) lane[l] += a[j + l] * b[j + l];
    } else {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l) lane[l] += a[j + l] * b[(j + l) * s];
    }
    for (int l = 0; j < n; ++j, ++l) lane[l] += a[j] * b[j * s];
    float sum = 0;
    for (float v : lane) sum += v;
    return sum;
}

// dst[j*s] += wv · src[j] for j in [0, n).
void scatterRow(float* __restrict dst, int64_t s, float wv, const float* __restrict src, int64_t n) {
    if (s == 1) {
        for (int64_t j = 0; j < n; ++j) dst[j] += wv * src[j];
    } else {
        for (int64_t j = 0; j < n; ++j) dst[j * s] += wv * src[j];
    }
}

// dst[j] += wv · src[j*s] for j in [0, n).
void gatherRow(float* __restrict dst, float wv, const float* __restrict src, int64_t s, int64_t n) {
    if (s == 1) {
        for (int64_t j = 0; j < n; ++j) dst[j] += wv * src[j];
    } else {
        for (int64_t j = 0; j < n; ++j) dst[j] += wv * src[j * s];
    }
}

// The grain that gives each thread about the same number of planes.
int64_t grainOf(int64_t items) { return std::max<int64_t>(1, (items + numThreads() - 1) / numThreads()); }

}  // namespace

void depthwiseScatterInput(const ConvGeometry& g, const float* w, const float* y, float* x) {
    const int64_t K = g.kernelSize(), X = g.xSize(), Y = g.ySize(), sw = g.stride[2], planes = g.N * g.G;
    parallelFor(0, planes, grainOf(planes), [&](int64_t b, int64_t e) {
        const std::vector<Piece>& pieces = piecesOf(g, 0, Y);
        for (int64_t plane = b; plane < e; ++plane) {
            const int64_t c = plane % g.G;
            float* xc = x + plane * X;
            const float* yc = y + plane * Y;
            std::fill(xc, xc + X, 0.0f);
            for (const Piece& p : pieces)
                if (p.xOff >= 0 && p.hi > p.lo)
                    scatterRow(xc + p.xOff + p.iw0 + p.lo * sw, sw, w[c * K + p.row], yc + p.t + p.lo, p.hi - p.lo);
        }
    });
}

void depthwiseGatherOutput(const ConvGeometry& g, const float* w, const float* x, float* y) {
    const int64_t K = g.kernelSize(), X = g.xSize(), Y = g.ySize(), sw = g.stride[2], planes = g.N * g.G;
    parallelFor(0, planes, grainOf(planes), [&](int64_t b, int64_t e) {
        const std::vector<Piece>& pieces = piecesOf(g, 0, Y);
        for (int64_t plane = b; plane < e; ++plane) {
            const int64_t c = plane % g.G;
            const float* xc = x + plane * X;
            float* yc = y + plane * Y;
            std::fill(yc, yc + Y, 0.0f);
            for (const Piece& p : pieces)
                if (p.xOff >= 0 && p.hi > p.lo)
                    gatherRow(yc + p.t + p.lo, w[c * K + p.row], xc + p.xOff + p.iw0 + p.lo * sw, sw, p.hi - p.lo);
        }
    });
}

void depthwiseFilterGrad(const ConvGeometry& g, const float* y, const float* x, float* dw) {
    const int64_t K = g.kernelSize(), X = g.xSize(), Y = g.ySize(), sw = g.stride[2];
    parallelFor(0, g.G, grainOf(g.G), [&](int64_t b, int64_t e) {
        const std::vector<Piece>& pieces = piecesOf(g, 0, Y);
        for (int64_t c = b; c < e; ++c) {
            float* acc = dw + c * K;
            std::fill(acc, acc + K, 0.0f);
            for (int64_t n = 0; n < g.N; ++n) {
                const float* xc = x + (n * g.G + c) * X;
                const float* yc = y + (n * g.G + c) * Y;
                for (const Piece& p : pieces)
                    if (p.xOff >= 0 && p.hi > p.lo)
                        acc[p.row] += dot(yc + p.t + p.lo, xc + p.xOff + p.iw0 + p.lo * sw, sw, p.hi - p.lo);
            }
        }
    });
}

}  // namespace opscope::kernels
