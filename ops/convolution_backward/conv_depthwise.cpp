// Design: the pieces of a whole Y plane (one per kernel tap and Y row) are computed once per
// chunk and replayed for every plane. Within a piece, stride 1 is a contiguous multiply-add the
// compiler vectorises; other strides step through the X row. The filter keeps 16 lane sums per
// tap (lane j mod 16 of each row segment) over all segments and images of a channel, added in
// lane order at the end: a fixed order, with no reduction per segment. On AVX-512 the same sums
// in the same order run in registers where the strides allow (conv_depthwise_registers.h). bf16
// planes are widened into a buffer of the chunk (L1/L2-sized, read by every tap) as they are used,
// so the plan needs no widening Cast of the inputs.
#include "conv_depthwise.h"

#include <algorithm>
#include <vector>

#include "conv_depthwise_registers.h"
#include "conv_im2col.h"
#include "opscope/parallel.h"
#include "opscope/widen.h"

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

// n values of T as float32: float is used in place, bf16 bits are widened (exactly) into buf.
const float* asFloat(const float* p, int64_t, std::vector<float>&) { return p; }
const float* asFloat(const uint16_t* p, int64_t n, std::vector<float>& buf) {
    buf.resize(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) buf[static_cast<std::size_t>(i)] = bfloat16BitsToFloat(p[i]);
    return buf.data();
}

// One plane of `out` from one plane of `in` by the row loops: zero, then each piece in order.
void rowProducts(const ConvGeometry& g, const std::vector<Piece>& pieces, const float* wc, const float* src, float* dst,
                 int64_t outSize, bool scatter) {
    const int64_t sw = g.stride[2];
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

// Every plane of `out` (X planes when scattering from Y, else Y planes gathered from X) as the
// sum over the taps of w[c, tap] times the plane of `in`, shifted: in registers where every
// stride is 1 (conv_depthwise_registers.h), else by the row loops; the same bits either way.
template <class T>
void planeProducts(const ConvGeometry& g, const T* w, const T* in, float* out, bool scatter) {
    const int64_t K = g.kernelSize(), X = g.xSize(), Y = g.ySize(), planes = g.N * g.G;
    const int64_t inSize = scatter ? Y : X, outSize = scatter ? X : Y;
    std::vector<float> wBuf;
    const float* wf = asFloat(w, g.G * K, wBuf);
    const bool registers = depthwiseRegisterKernelsAvailable() && depthwiseStencilApplies(g);
    parallelFor(0, planes, grainOf(planes), [&](int64_t b, int64_t e) {
        const std::vector<Piece>* pieces = registers ? nullptr : &piecesOf(g, 0, Y);
        std::vector<float> buf;  // the chunk's widened input plane (bf16)
        for (int64_t plane = b; plane < e; ++plane) {
            const float* wc = wf + (plane % g.G) * K;
            const float* src = asFloat(in + plane * inSize, inSize, buf);
            float* dst = out + plane * outSize;
            if (registers)
                depthwiseStencilPlane(g, scatter, wc, src, dst);
            else
                rowProducts(g, *pieces, wc, src, dst, outSize, scatter);
        }
    });
}

// lanes[tap * 16 + l] += the products of one (image, channel) plane by the row loops.
void pieceLanes(const ConvGeometry& g, const std::vector<Piece>& pieces, const float* yc, const float* xc,
                float* lanes) {
    const int64_t sw = g.stride[2];
    for (const Piece& p : pieces)
        if (p.xOff >= 0 && p.hi > p.lo)
            dotLanes(lanes + p.row * kLanes, yc + p.t + p.lo, xc + p.xOff + p.iw0 + p.lo * sw, sw, p.hi - p.lo);
}

}  // namespace

template <class T>
void depthwiseScatterInput(const ConvGeometry& g, const T* w, const T* y, float* x) {
    planeProducts(g, w, y, x, true);
}

template <class T>
void depthwiseGatherOutput(const ConvGeometry& g, const T* w, const T* x, float* y) {
    planeProducts(g, w, x, y, false);
}

template <class T>
void depthwiseFilterGrad(const ConvGeometry& g, const T* y, const T* x, float* dw) {
    const int64_t K = g.kernelSize(), X = g.xSize(), Y = g.ySize();
    const bool registers = depthwiseRegisterKernelsAvailable() && depthwiseFilterLanesApply(g);
    parallelFor(0, g.G, grainOf(g.G), [&](int64_t b, int64_t e) {
        const std::vector<Piece>* pieces = registers ? nullptr : &piecesOf(g, 0, Y);
        std::vector<float> lanes(static_cast<std::size_t>(K * kLanes)), xBuf, yBuf;
        for (int64_t c = b; c < e; ++c) {
            std::fill(lanes.begin(), lanes.end(), 0.0f);
            for (int64_t n = 0; n < g.N; ++n) {
                const float* xc = asFloat(x + (n * g.G + c) * X, X, xBuf);
                const float* yc = asFloat(y + (n * g.G + c) * Y, Y, yBuf);
                if (registers)
                    depthwiseFilterLanesPlane(g, yc, xc, lanes.data());
                else
                    pieceLanes(g, *pieces, yc, xc, lanes.data());
            }
            for (int64_t tap = 0; tap < K; ++tap) {
                float sum = 0;
                for (int l = 0; l < kLanes; ++l) sum += lanes[static_cast<std::size_t>(tap * kLanes + l)];
                dw[c * K + tap] = sum;
            }
        }
    });
}

template void depthwiseScatterInput(const ConvGeometry&, const float*, const float*, float*);
template void depthwiseScatterInput(const ConvGeometry&, const uint16_t*, const uint16_t*, float*);
template void depthwiseGatherOutput(const ConvGeometry&, const float*, const float*, float*);
template void depthwiseGatherOutput(const ConvGeometry&, const uint16_t*, const uint16_t*, float*);
template void depthwiseFilterGrad(const ConvGeometry&, const float*, const float*, float*);
template void depthwiseFilterGrad(const ConvGeometry&, const uint16_t*, const uint16_t*, float*);

}  // namespace opscope::kernels
