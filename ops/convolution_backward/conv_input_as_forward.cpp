// Design: the flipped weight is a permutation of the weight (no arithmetic), written once per
// call into the workspace; the GEMM stage is convGatherOutput on the flipped geometry.
#include "conv_input_as_forward.h"

#include <algorithm>
#include <vector>

#include "conv_padded_input.h"
#include "simd_transpose.h"
#include "opscope/parallel.h"

namespace opscope::kernels {

bool gradInputAsForward(const ConvGeometry& g) {
    if (g.pointwise() || g.depthwise()) return false;
    for (int a = 0; a < 3; ++a)
        if (g.stride[a] != 1) return false;
    return true;
}

ConvGeometry flippedGeometry(const ConvGeometry& g) {
    ConvGeometry f = g;
    f.CY = g.CX();
    f.CXg = g.CYg();
    for (int a = 0; a < 3; ++a) {
        f.xs[a] = g.ys[a];
        f.ys[a] = g.xs[a];
        f.pad[a] = g.dil[a] * (g.k[a] - 1) - g.pad[a];
    }
    return f;
}

namespace {

template <class T>
void flip(const ConvGeometry& g, const T* w, T* flipped) {
    const int64_t K = g.kernelSize(), CYg = g.CYg(), CXg = g.CXg;
    parallelFor(0, g.CY, 1, [&](int64_t b, int64_t e) {
        for (int64_t cy = b; cy < e; ++cy) {
            const int64_t grp = cy / CYg, co = cy % CYg;
            for (int64_t ci = 0; ci < CXg; ++ci) {
                const T* src = w + (cy * CXg + ci) * K;
                T* dst = flipped + ((grp * CXg + ci) * CYg + co) * K;
                for (int64_t k = 0; k < K; ++k) dst[K - 1 - k] = src[k];
            }
        }
    });
}

}  // namespace

// ---- the padded gather (Float32) ----

// The scatter's GEMM has depth CYg (f.CXg). Measured (bench/README.md, CPU per call of the whole
// backward, this path against the scatter, 2 threads): first conv3d (CYg = 32) -5% (1 thread
// -13%), today's 3x3 (CYg = 64) +15%, conv1d (CYg = 256) +25%; after the in-place kernel's row
// runs and 512-position tiles, today's 3x3 -5% (4 alternating runs), conv1d still +15%. A deeper
// scatter keeps its micro-kernel busy; a shallow one spends it on storing its column block, which
// col2im then reads back.
constexpr int64_t kShallowScatterDepth = 64;

bool paddedGatherApplies(const ConvGeometry& f, const ConvTiling& t) {
    return t.gemm == GemmKind::Float32 && f.CXg <= kShallowScatterDepth && paddedCopyFits(f);
}

// Positions per work item. The gather has no im2col block, so the tile is not bound by its budget;
// each item packs the flipped weights once (B: CYg x taps·CXg), so longer tiles pack less often.
// Measured (the in-place GEMM alone, conv3d, 1 thread): 144 positions 6.2 ms, 512 5.7 ms. Where
// that leaves fewer than kItemsPerWorker items a worker, the tile halves, down to t.tile at the
// least: conv3d (2 images of 16384 positions, t.tile 144) keeps 512 on 2 threads and takes 144
// (228 items) on 64. A position's sums do not depend on its tile, so the bits do not depend on the
// thread count.
constexpr int64_t kGatherTile = 512;
constexpr int64_t kItemsPerWorker = 4;

int64_t gatherTile(const ConvGeometry& f, const ConvTiling& t) {
    const int64_t Y = std::max<int64_t>(1, f.ySize()), images = std::max<int64_t>(1, f.N * f.G);
    int64_t tile = std::max(t.tile, kGatherTile);
    while (tile > t.tile && images * ((Y + tile - 1) / tile) < kItemsPerWorker * t.workers)
        tile = std::max(t.tile, tile / 2);
    return std::min(Y, tile);
}

int64_t paddedGatherFloats(const ConvGeometry& f, const ConvTiling& t) {
    return paddedCopyElements(f) + t.workers * gatherTile(f, t) * f.CYg();
}

void convGatherOutputPadded(const ConvGeometry& f, const ConvTiling& t, const float* w, const float* x, float* y,
                            float* scratch) {
    const int64_t CYg = f.CYg(), CXg = f.CXg, Y = f.ySize(), rowsW = f.colRows(), tile = gatherTile(f, t);
    const int64_t tiles = (Y + tile - 1) / tile, items = f.N * f.G * tiles;
    const PaddedX px = paddedXOf(f);
    padInput(f, px, x, scratch);  // shared by every chunk
    // A(position, (channel, tap)): the positions are A's rows, the (channel, tap) offsets its k.
    const std::vector<int32_t> tapOffset(px.rowOffset.begin(), px.rowOffset.end());
    float* yTiles = scratch + paddedCopyElements(f);
    parallelChunks(
        items, std::max<int64_t>(1, (items + t.workers - 1) / t.workers), [&](int chunk, int64_t b, int64_t e) {
            float* yT = yTiles + chunk * tile * CYg;  // one tile of y^T: [len, CYg]
            std::vector<int32_t> at(static_cast<std::size_t>(tile));
            std::vector<int64_t> rowOffset(static_cast<std::size_t>(tile));
            for (int64_t item = b; item < e; ++item) {
                const int64_t tileIdx = item % tiles, ng = item / tiles, n = ng / f.G, grp = ng % f.G;
                const int64_t p0 = tileIdx * tile, len = std::min(tile, Y - p0);
                paddedPositions(f, px, p0, len, at.data());
                std::copy(at.begin(), at.begin() + len, rowOffset.begin());
                // B(k = (channel, tap), j = y channel) = w_g[j, k], stored along j (flipWeightsByTap)
                gemmInPlaceA(GemmKind::Float32, len, CYg, rowsW, scratch + (n * f.CX() + grp * CXg) * px.channelSize,
                             rowOffset.data(), tapOffset.data(), w + grp * rowsW * CYg, CYg, 1, yT, CYg, false);
                float* yg = y + (n * f.CY + grp * CYg) * Y + p0;
                transposeFloats(yT, len, CYg, CYg, yg, Y, true);
            }
        });
}

void flipWeights(const ConvGeometry& g, const float* w, float* flipped) { flip(g, w, flipped); }
void flipWeights(const ConvGeometry& g, const uint16_t* w, uint16_t* flipped) { flip(g, w, flipped); }

// Along ci, so that the padded gather's B panels (32 of ci at each (co, tap)) pack as plain copies.
void flipWeightsByTap(const ConvGeometry& g, const float* w, float* flipped) {
    const int64_t K = g.kernelSize(), CXg = g.CXg;
    parallelFor(0, g.CY, 1, [&](int64_t b, int64_t e) {
        for (int64_t cy = b; cy < e; ++cy)
            for (int64_t ci = 0; ci < CXg; ++ci)
                for (int64_t k = 0; k < K; ++k) flipped[(cy * K + K - 1 - k) * CXg + ci] = w[(cy * CXg + ci) * K + k];
    });
}

}  // namespace opscope::kernels
