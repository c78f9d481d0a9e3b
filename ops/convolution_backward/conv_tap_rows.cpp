// Design: along a row, Y position o reads X at o*stride - pad + tap*dil: for a fixed tap the
// tile's positions are a strided run of the window copy, i.e. B(k, cx) = window[cx*width +
// k*stride + tap*dil], an operand with plain strides that the GEMM packs as it packed the
// im2col rows (the same transposing pack, the same values). dy's tile is packed once for all taps.
// Measured (bench/README.md, conv1d k3 fp32, CPU per call): -2 to -4% against im2col.
#include "conv_tap_rows.h"

#include <algorithm>

namespace opscope::kernels {

bool rowsOnly(const ConvGeometry& g) {
    if (g.pointwise() || g.depthwise()) return false;
    for (int a = 0; a < 2; ++a)
        if (g.xs[a] != 1 || g.ys[a] != 1 || g.k[a] != 1 || g.pad[a] != 0) return false;
    return true;
}

bool filterByTapRows(const ConvGeometry& g, const ConvTiling& t) {
    if (!t.filterTapRows || t.filterPadded || !rowsOnly(g) || t.gemm != GemmKind::Float32 ||
        !packedGemmAvailable(t.gemm))
        return false;
    const int64_t width = (t.tile - 1) * g.stride[2] + (g.k[2] - 1) * g.dil[2] + 1;
    return width <= g.k[2] * t.tile;  // per channel: within the channel's K rows of the buffer
}

void filterTapRows(const ConvGeometry& g, const ConvTiling& t, const float* dyTile, const float* x, int64_t p0,
                   int64_t len, float* window, float* acc) {
    const int64_t X = g.xs[2], s = g.stride[2], CYg = g.CYg(), CXg = g.CXg;
    const int64_t start = p0 * s - g.pad[2], width = (len - 1) * s + (g.k[2] - 1) * g.dil[2] + 1;
    const int64_t lo = std::clamp<int64_t>(-start, 0, width), hi = std::clamp<int64_t>(X - start, lo, width);
    for (int64_t cx = 0; cx < CXg; ++cx) {
        float* row = window + cx * width;
        std::fill(row, row + lo, 0.0f);
        std::copy(x + cx * X + start + lo, x + cx * X + start + hi, row + lo);
        std::fill(row + hi, row + width, 0.0f);
    }
    thread_local PackedA dy;  // A(co, k) = dy[co, p0 + k], as gradWeight's im2col path packs it
    dy.pack(t.gemm, CYg, len, dyTile, g.ys[2], 1);
    for (int64_t tap = 0; tap < g.k[2]; ++tap)  // B(k, cx) = window[cx, k*s + tap*dil]
        gemm(dy, CXg, window + tap * g.dil[2], s, width, acc + tap * CYg * CXg, CXg, true);
}

}  // namespace opscope::kernels
