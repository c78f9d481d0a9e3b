// Design: padded coordinates are X's shifted by the leading padding, so Y position o reads tap k
// at o*stride + k*dilation on every axis. Split into stride phases, that is phase (k*dilation) %
// stride at position o + (k*dilation) / stride: a position offset plus a tap offset, no bounds
// checks, and consecutive positions of a row adjacent in memory whatever the stride.
// One copy of the whole input, made in parallel over channels and shared by every worker, so its
// size does not grow with the thread count.
#include "conv_padded_input.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "packed_gemm.h"
#include "opscope/parallel.h"

namespace opscope::kernels {
namespace {

constexpr int64_t kMinBudgetElements = 1 << 20;  // small inputs may pad more than 4x
// im2col costs a pass over X per tap, the copy about one: measured (bench/README.md, CPU per
// call, 2 threads, copy against im2col) conv3d (27 taps) -15%, today's 3x3 (9) -11%, but conv1d
// k3 (3 taps, its im2col rows copied as long runs) +10%: with few taps im2col stays.
constexpr int64_t kMinPaddedTaps = 4;

// Positions per phase along axis a: the padded extent over the stride, rounded up.
int64_t phaseExtent(const ConvGeometry& g, int a) {
    const int64_t extent = std::max(g.xs[a] + g.pad[a], (g.ys[a] - 1) * g.stride[a] + (g.k[a] - 1) * g.dil[a] + 1);
    return (extent + g.stride[a] - 1) / g.stride[a];
}

int64_t channelSizeOf(const ConvGeometry& g) {
    int64_t size = 1;
    for (int a = 0; a < 3; ++a) size *= phaseExtent(g, a) * g.stride[a];
    return size;
}

// One row of a phase: row[q] = src[q*s + a - pad] where that lies in [0, W), else zero.
template <class T>
void phaseRow(const T* src, int64_t W, int64_t s, int64_t first, int64_t n, T* row) {
    const int64_t lo = std::min(n, first >= 0 ? 0 : (-first + s - 1) / s);
    const int64_t hi = std::max(lo, std::min(n, first >= W ? 0 : (W - 1 - first) / s + 1));
    std::fill(row, row + lo, T{0});
    if (s == 1)
        std::memcpy(row + lo, src + first + lo, sizeof(T) * static_cast<std::size_t>(hi - lo));
    else
        for (int64_t q = lo; q < hi; ++q) row[q] = src[first + q * s];
    std::fill(row + hi, row + n, T{0});
}

// Per phase and row, the X values it holds or zeros (each element written once); one phase
// (stride 1) is zeroed and its rows copied.
template <class T>
void pad(const ConvGeometry& g, const PaddedX& px, const T* x, T* xp) {
    const int64_t Q0 = px.dims[0], Q1 = px.dims[1], Q2 = px.dims[2];
    const int64_t* s = g.stride;
    parallelFor(0, g.N * g.CX(), 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
            const T* src = x + c * g.xSize();
            T* dst = xp + c * px.channelSize;
            if (px.channelSize == px.phaseSize) {  // stride 1: one memset and the rows (measured faster)
                std::fill(dst, dst + px.channelSize, T{0});
                for (int64_t d = 0; d < g.xs[0]; ++d)
                    for (int64_t h = 0; h < g.xs[1]; ++h)
                        std::memcpy(dst + ((d + g.pad[0]) * Q1 + h + g.pad[1]) * Q2 + g.pad[2],
                                    src + (d * g.xs[1] + h) * g.xs[2], sizeof(T) * static_cast<std::size_t>(g.xs[2]));
                continue;
            }
            for (int64_t a0 = 0; a0 < s[0]; ++a0)
                for (int64_t a1 = 0; a1 < s[1]; ++a1)
                    for (int64_t a2 = 0; a2 < s[2]; ++a2, dst += px.phaseSize)
                        for (int64_t q0 = 0; q0 < Q0; ++q0)
                            for (int64_t q1 = 0; q1 < Q1; ++q1) {
                                T* row = dst + (q0 * Q1 + q1) * Q2;
                                const int64_t d = q0 * s[0] + a0 - g.pad[0], h = q1 * s[1] + a1 - g.pad[1];
                                if (d < 0 || d >= g.xs[0] || h < 0 || h >= g.xs[1])
                                    std::fill(row, row + Q2, T{0});
                                else
                                    phaseRow(src + (d * g.xs[1] + h) * g.xs[2], g.xs[2], s[2], a2 - g.pad[2], Q2, row);
                            }
        }
    });
}

}  // namespace

PaddedX paddedXOf(const ConvGeometry& g) {
    PaddedX px;
    for (int a = 0; a < 3; ++a) px.dims[a] = phaseExtent(g, a);
    px.phaseSize = px.dims[0] * px.dims[1] * px.dims[2];
    px.channelSize = channelSizeOf(g);
    px.rowOffset.reserve(static_cast<std::size_t>(g.colRows()));
    // Tap k reads padded position o*s + k*dil on each axis: phase (k*dil) % s, at o + (k*dil) / s.
    const int64_t* s = g.stride;
    for (int64_t c = 0; c < g.CXg; ++c)
        for (int64_t kd = 0; kd < g.k[0]; ++kd)
            for (int64_t kh = 0; kh < g.k[1]; ++kh)
                for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                    const int64_t d = kd * g.dil[0], h = kh * g.dil[1], w = kw * g.dil[2];
                    const int64_t phase = ((d % s[0]) * s[1] + h % s[1]) * s[2] + w % s[2];
                    px.rowOffset.push_back(c * px.channelSize + phase * px.phaseSize +
                                           ((d / s[0]) * px.dims[1] + h / s[1]) * px.dims[2] + w / s[2]);
                }
    return px;
}

bool paddedCopyFits(const ConvGeometry& g) {
    if (g.pointwise() || g.depthwise()) return false;
    for (int a = 0; a < 3; ++a)
        if (g.pad[a] < 0) return false;
    const int64_t size = channelSizeOf(g);
    return size * g.CXg <= std::numeric_limits<int32_t>::max() &&
           size * g.CX() * g.N <= std::max(kMinBudgetElements, 4 * g.xSize() * g.CX() * g.N);
}

int64_t paddedCopyElements(const ConvGeometry& g) { return g.N * g.CX() * channelSizeOf(g); }

bool paddedFilterApplies(const ConvGeometry& g, const ConvTiling& t) {
    // Each position of the copy is read by about taps / (product of strides) taps: below 4 (a
    // 3x3 stride-2 layer: 2.25) the copy costs more than the im2col it replaces.
    const int64_t strides = g.stride[0] * g.stride[1] * g.stride[2];
    if (g.kernelSize() < kMinPaddedTaps * strides || !paddedCopyFits(g)) return false;
    // Only the packed kernel reads A in place; without it (no AVX-512) the product would gather
    // the rows im2col writes and run transposed, with other bits than the im2col path's.
    if (!packedGemmAvailable(t.gemm)) return false;
    if (t.gemm == GemmKind::BFloat16)  // pairs of positions adjacent in the copy
        return g.stride[2] == 1 && g.ys[2] % 2 == 0 && t.tile % 2 == 0;
    return true;
}

void padInput(const ConvGeometry& g, const PaddedX& px, const float* x, float* xp) { pad(g, px, x, xp); }
void padInput(const ConvGeometry& g, const PaddedX& px, const uint16_t* x, uint16_t* xp) { pad(g, px, x, xp); }

void paddedPositions(const ConvGeometry& g, const PaddedX& px, int64_t p0, int64_t len, int32_t* kIndex) {
    int64_t ow = p0 % g.ys[2], oh = p0 / g.ys[2] % g.ys[1], od = p0 / g.ys[2] / g.ys[1];
    for (int64_t k = 0; k < len; ++k) {
        kIndex[k] = static_cast<int32_t>((od * px.dims[1] + oh) * px.dims[2] + ow);  // within the tap's phase
        if (++ow < g.ys[2]) continue;
        ow = 0;
        if (++oh < g.ys[1]) continue;
        oh = 0;
        ++od;
    }
}

}  // namespace opscope::kernels
