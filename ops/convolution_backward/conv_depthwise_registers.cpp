// Design: the stencil keeps up to 64 output values of one row (4 zmm) in registers and runs the
// taps over them in order, each a masked fused multiply-add: lanes whose input lies outside the
// plane keep their sum (a skipped tap, as in the row loops; no 0 · w that could turn Inf into NaN).
// The filter keeps the 16 lane sums of up to 12 taps in registers for a whole plane: each tap is
// its own chain of fused multiply-adds (rows in order, 16 positions at a time, the last
// positions of a row masked onto lanes 0..), and the taps of a block run side by side.
#include "conv_depthwise_registers.h"

#include <algorithm>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace opscope::kernels {
namespace {
constexpr int kMaxTaps = 64;  // the per-tap tables live on the stack; larger kernels take the row loops
}  // namespace

bool depthwiseStencilApplies(const ConvGeometry& g) {
    return g.stride[0] == 1 && g.stride[1] == 1 && g.stride[2] == 1 && g.kernelSize() <= kMaxTaps;
}

bool depthwiseFilterLanesApply(const ConvGeometry& g) { return g.stride[2] == 1 && g.kernelSize() <= kMaxTaps; }

#if defined(__AVX512F__)

namespace {

constexpr int kLanes = 16;
constexpr int kStencilVectors = 4;  // output values per register block: 4 x 16
constexpr int kFilterBlock = 12;    // taps whose lane sums stay in registers at once

// Lanes [a, b) of 16.
inline __mmask16 laneRange(int64_t a, int64_t b) {
    a = std::clamp<int64_t>(a, 0, kLanes);
    b = std::clamp<int64_t>(b, a, kLanes);
    return static_cast<__mmask16>(((1u << b) - 1u) & ~((1u << a) - 1u));
}

// One kernel tap: where it reads, per axis, relative to the position it serves (stride 1 along W).
struct Tap {
    int64_t reachD, reachH;  // X row - Y row along D and H (k * dilation - pad)
    int64_t colOff;          // input column = output column + colOff
    int64_t lo, hi;          // the output columns whose input column lies in the plane
};

// The taps in order (a table on the stack: no allocation per plane).
struct Taps {
    Tap tap[kMaxTaps];
    std::size_t size = 0;
    const Tap& operator[](std::size_t t) const { return tap[t]; }
};

// scatter: the output is the X side (its columns read Y at - reach), else the Y side.
Taps tapsOf(const ConvGeometry& g, int64_t inW, int64_t outW, bool scatter) {
    Taps taps;
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
        for (int64_t kh = 0; kh < g.k[1]; ++kh)
            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                const int64_t reach = kw * g.dil[2] - g.pad[2];  // X column - Y column
                const int64_t off = scatter ? -reach : reach;
                const int64_t lo = std::min(outW, std::max<int64_t>(0, -off));
                const int64_t hi = std::max(lo, std::min(outW, inW - off));
                taps.tap[taps.size++] = {kd * g.dil[0] - g.pad[0], kh * g.dil[1] - g.pad[1], off, lo, hi};
            }
    return taps;
}

// Row (id, ih) of a plane with dims inDims, or -1 outside it.
inline int64_t inputRow(int64_t id, int64_t ih, const int64_t* inDims) {
    if (id < 0 || id >= inDims[0] || ih < 0 || ih >= inDims[1]) return -1;
    return id * inDims[1] + ih;
}

// The lanes of output columns [c0 + 16v, c0 + 16v + 16) that each tap reads inside its input
// row: masks[t * kStencilVectors + v]. The same for every row of the plane.
void stencilMasks(const Taps& taps, int64_t c0, __mmask16* masks) {
    for (std::size_t t = 0; t < taps.size; ++t)
        for (int v = 0; v < kStencilVectors; ++v) {
            const int64_t c = c0 + v * kLanes;
            masks[t * kStencilVectors + static_cast<std::size_t>(v)] = laneRange(taps[t].lo - c, taps[t].hi - c);
        }
}

// V vectors of output columns from c0 of one row: acc = Σ taps w · in, masked per tap. src[t] is
// where tap t reads (at column c0), null when that input row is padding.
template <int V>
void stencilBlock(std::size_t taps, const float* const* src, const __mmask16* masks, const float* w, int64_t c0,
                  int64_t outW, float* outRow) {
    __m512 acc[static_cast<std::size_t>(V)];
    for (__m512& a : acc) a = _mm512_setzero_ps();
    for (std::size_t t = 0; t < taps; ++t) {
        if (!src[t]) continue;
        const __m512 wv = _mm512_set1_ps(w[t]);
        const __mmask16* m = masks + t * static_cast<std::size_t>(kStencilVectors);
        for (int v = 0; v < V; ++v)
            acc[v] = _mm512_mask3_fmadd_ps(wv, _mm512_maskz_loadu_ps(m[v], src[t] + v * kLanes), acc[v], m[v]);
    }
    for (int v = 0; v < V; ++v)
        _mm512_mask_storeu_ps(outRow + c0 + v * kLanes, laneRange(0, outW - c0 - v * kLanes), acc[v]);
}

// One column block of every row of the plane.
template <int V>
void stencilColumns(const ConvGeometry& g, bool scatter, const Taps& taps, const __mmask16* masks, const float* w,
                    const float* in, float* out, int64_t c0) {
    const int64_t* outDims = scatter ? g.xs : g.ys;
    const int64_t* inDims = scatter ? g.ys : g.xs;
    const int64_t sign = scatter ? -1 : 1;  // the input row is the output row -/+ the tap's reach
    const float* src[kMaxTaps];
    for (int64_t od = 0; od < outDims[0]; ++od)
        for (int64_t oh = 0; oh < outDims[1]; ++oh) {
            for (std::size_t t = 0; t < taps.size; ++t) {
                const int64_t row = inputRow(od + sign * taps[t].reachD, oh + sign * taps[t].reachH, inDims);
                src[t] = row < 0 ? nullptr : in + row * inDims[2] + taps[t].colOff + c0;
            }
            stencilBlock<V>(taps.size, src, masks, w, c0, outDims[2], out + (od * outDims[1] + oh) * outDims[2]);
        }
}

// A tap's fixed part of the filter loop: its valid columns [lo, lo + len) of every Y row (read
// from X at + colOff), as `full` vectors and a masked tail.
struct TapRun {
    int64_t lo, colOff, full;
    __mmask16 tail;
};

// acc += a[j] · x[j] for j in [0, 16·full) 16 at a time, then the tail lanes: dotLanes's order.
[[gnu::always_inline]] inline __m512 dotRun(__m512 acc, const float* a, const float* x, int64_t full, __mmask16 tail) {
    for (int64_t q = 0; q < full; ++q, a += kLanes, x += kLanes)
        acc = _mm512_fmadd_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(x), acc);
    if (tail) acc = _mm512_mask3_fmadd_ps(_mm512_maskz_loadu_ps(tail, a), _mm512_maskz_loadu_ps(tail, x), acc, tail);
    return acc;
}

}  // namespace

bool depthwiseRegisterKernelsAvailable() { return true; }

void depthwiseStencilPlane(const ConvGeometry& g, bool scatter, const float* w, const float* in, float* out) {
    const int64_t outW = (scatter ? g.xs : g.ys)[2];
    const Taps taps = tapsOf(g, (scatter ? g.ys : g.xs)[2], outW, scatter);
    __mmask16 masks[kMaxTaps * kStencilVectors];
    for (int64_t c0 = 0; c0 < outW; c0 += kStencilVectors * kLanes) {
        stencilMasks(taps, c0, masks);
        switch (std::min<int64_t>(kStencilVectors, (outW - c0 + kLanes - 1) / kLanes)) {
            case 1: stencilColumns<1>(g, scatter, taps, masks, w, in, out, c0); break;
            case 2: stencilColumns<2>(g, scatter, taps, masks, w, in, out, c0); break;
            case 3: stencilColumns<3>(g, scatter, taps, masks, w, in, out, c0); break;
            default: stencilColumns<4>(g, scatter, taps, masks, w, in, out, c0); break;
        }
    }
}

void depthwiseFilterLanesPlane(const ConvGeometry& g, const float* y, const float* x, float* lanes) {
    const Taps taps = tapsOf(g, g.xs[2], g.ys[2], false);
    const int64_t K = static_cast<int64_t>(taps.size);
    const int64_t blocks = (K + kFilterBlock - 1) / kFilterBlock, perBlock = (K + blocks - 1) / blocks;
    TapRun runs[kMaxTaps];
    for (std::size_t t = 0; t < taps.size; ++t) {
        const int64_t len = taps[t].hi - taps[t].lo;
        runs[t] = {taps[t].lo, taps[t].colOff + taps[t].lo, len / kLanes, laneRange(0, len % kLanes)};
    }
    for (int64_t t0 = 0; t0 < K; t0 += perBlock) {
        const int64_t n = std::min(perBlock, K - t0);
        __m512 acc[kFilterBlock];  // fully unrolled below (no break), so they stay in registers
        for (int b = 0; b < kFilterBlock; ++b)
            acc[b] = b < n ? _mm512_loadu_ps(lanes + (t0 + b) * kLanes) : _mm512_setzero_ps();
        for (int64_t od = 0; od < g.ys[0]; ++od)
            for (int64_t oh = 0; oh < g.ys[1]; ++oh) {
                const float* yRow = y + (od * g.ys[1] + oh) * g.ys[2];
                const int64_t id0 = od * g.stride[0], ih0 = oh * g.stride[1];
#pragma GCC unroll 12
                for (int b = 0; b < kFilterBlock; ++b) {
                    if (b >= n) continue;
                    const Tap& tap = taps[static_cast<std::size_t>(t0 + b)];
                    const int64_t row = inputRow(id0 + tap.reachD, ih0 + tap.reachH, g.xs);
                    if (row < 0) continue;
                    const TapRun& run = runs[t0 + b];
                    acc[b] = dotRun(acc[b], yRow + run.lo, x + row * g.xs[2] + run.colOff, run.full, run.tail);
                }
            }
        for (int b = 0; b < kFilterBlock; ++b)
            if (b < n) _mm512_storeu_ps(lanes + (t0 + b) * kLanes, acc[b]);
    }
}

#else  // no AVX-512: conv_depthwise.cpp keeps its row loops

bool depthwiseRegisterKernelsAvailable() { return false; }
void depthwiseStencilPlane(const ConvGeometry&, bool, const float*, const float*, float*) {}
void depthwiseFilterLanesPlane(const ConvGeometry&, const float*, const float*, float*) {}

#endif

}  // namespace opscope::kernels
