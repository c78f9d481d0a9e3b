// Design: the pieces of a whole Y plane (one per kernel tap and Y row) are computed once per
// chunk and replayed for every plane. Within a piece, stride 1 is a contiguous multiply-add the
// compiler vectorises; other strides step through the X row. The filter keeps 16 lane sums per
// tap (lane j mod 16 of each row segment) over all segments and images of a channel, added in
// lane order at the end: a fixed order, with no reduction per segment.
#include "conv_depthwise.h"

#include <algorithm>

#include "conv_im2col.h"
#include "opscope/parallel.h"

namespace opscope::kernels {
namespace {

constexpr int kLanes = 16;

// lane[j mod 16] += a[j] · b[j*s] for j in [0, n): the lanes run on across a tap's pieces and
// images and are added in lane order once per channel.
void dotLanes(float* __restrict lane, const float* __restrict a, const float* __restrict b, int64_t s, int64_t n) {
    int64_t j = 0;
    if (s == 1) {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l) lane[l] += a[j + l] * b[j + l];
    } else {
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l) lane[l] += a[j + l] * b[(j + l) * s];
    }
    for (int l = 0; j < n; ++j, ++l) lane[l] += a[j] * b[j * s];
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

// Every plane of `out` (X planes when scattering from Y, else Y planes gathered from X) as the
// sum over the taps of w[c, tap] times the plane of `in`, shifted.
void planeProducts(const ConvGeometry& g, const float* w, const float* in, float* out, bool scatter) {
    const int64_t K = g.kernelSize(), X = g.xSize(), Y = g.ySize(), sw = g.stride[2], planes = g.N * g.G;
    const int64_t inSize = scatter ? Y : X, outSize = scatter ? X : Y;
    parallelFor(0, planes, grainOf(planes), [&](int64_t b, int64_t e) {
        const std::vector<Piece>& pieces = piecesOf(g, 0, Y);
        for (int64_t plane = b; plane < e; ++plane) {
            const float* wc = w + (plane % g.G) * K;
            const float* src = in + plane * inSize;
            float* dst = out + plane * outSize;
            std::fill(dst, dst + outSize, 0.0f);
            for (const Piece& p : pieces) {
                if (p.xOff < 0 || p.hi <= p.lo) continue;
                const int64_t xAt = p.xOff + p.iw0 + p.lo * sw, yAt = p.t + p.lo, n = p.hi - p.lo;
                if (scatter)
                    scatterRow(dst + xAt, sw, wc[p.row], src + yAt, n);
                else
                    gatherRow(dst + yAt, wc[p.row], src + xAt, sw, n);
            }
        }
    });
}

}  // namespace

void depthwiseScatterInput(const ConvGeometry& g, const float* w, const float* y, float* x) {
    planeProducts(g, w, y, x, true);
}

void depthwiseGatherOutput(const ConvGeometry& g, const float* w, const float* x, float* y) {
    planeProducts(g, w, x, y, false);
}

void depthwiseFilterGrad(const ConvGeometry& g, const float* y, const float* x, float* dw) {
    const int64_t K = g.kernelSize(), X = g.xSize(), Y = g.ySize(), sw = g.stride[2];
    parallelFor(0, g.G, grainOf(g.G), [&](int64_t b, int64_t e) {
        const std::vector<Piece>& pieces = piecesOf(g, 0, Y);
        std::vector<float> lanes(static_cast<std::size_t>(K * kLanes));
        for (int64_t c = b; c < e; ++c) {
            std::fill(lanes.begin(), lanes.end(), 0.0f);
            for (int64_t n = 0; n < g.N; ++n) {
                const float* xc = x + (n * g.G + c) * X;
                const float* yc = y + (n * g.G + c) * Y;
                for (const Piece& p : pieces)
                    if (p.xOff >= 0 && p.hi > p.lo)
                        dotLanes(lanes.data() + p.row * kLanes, yc + p.t + p.lo, xc + p.xOff + p.iw0 + p.lo * sw, sw,
                                 p.hi - p.lo);
            }
            for (int64_t tap = 0; tap < K; ++tap) {
                float sum = 0;
                for (int l = 0; l < kLanes; ++l) sum += lanes[static_cast<std::size_t>(tap * kLanes + l)];
                dw[c * K + tap] = sum;
            }
        }
    });
}

}  // namespace opscope::kernels
