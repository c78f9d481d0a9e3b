// Design: every stage is a sequence of single-threaded packed GEMMs on blocks (packed_gemm.h),
// parallelised with opscope::parallelChunks over independent work items.
//  - Scatter (BackpropInput): items (image, group, X-channel block); GEMM W^T·dy into an im2col
//    buffer tile by tile and col2im it straight into the item's own X channels: race-free, and
//    the item split depends only on the shapes, so gradInput has the same bits for any thread
//    count.
//  - Gather (forward conv, gradInput of a transposed conv): items (image, group, tile); im2col
//    then W·cols written into disjoint output columns.
//  - Filter (BackpropFilter): with at least as many groups as workers, parallel over groups
//    (each owns its dW rows). Otherwise items (image, tile) cut into slices with one float32
//    partial dW each, summed in slice order afterwards: fixed bits for a fixed thread count.
// Weights are packed once per (group, channel block) and reused for every image and tile.
// For the bf16 cube precision (tiling.gemm) the same call sites run AVX512-BF16 dot products.
// Column tiles keep an im2col block near 512 KiB so it stays in L2 between im2col and GEMM.
// A pointwise convolution skips im2col/col2im and maps X directly; a depthwise one runs the
// direct kernels of conv_depthwise.h (no buffers, parallel over planes or channels).
#include "convolution_backward_kernel.h"

#include <algorithm>
#include <type_traits>

#include "conv_depthwise.h"
#include "conv_im2col.h"
#include "conv_padded_input.h"
#include "conv_tap_rows.h"
#include "opscope/parallel.h"

namespace opscope::kernels {
namespace {

constexpr int64_t kColsBudgetFloats = 128 * 1024;  // 512 KiB per im2col tile
constexpr int64_t kMinTile = 64;
constexpr int64_t kScatterItemsWanted = 8;                  // split X channels until there are this many items
constexpr int64_t kPartialBudgetFloats = 32 * 1024 * 1024;  // gradWeight partial sums: <= 128 MiB

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A chunk grain that yields at most `workers` chunks, so chunk c may use buffer c.
int64_t grainFor(int64_t items, int64_t workers) { return std::max<int64_t>(1, ceilDiv(items, workers)); }

int64_t tilesPerImage(const ConvGeometry& g, const ConvTiling& t) { return ceilDiv(g.ySize(), t.tile); }

// C (+)= A · B with A packed on the fly, from float32 or from bf16 storage.
void gemmOnTheFly(GemmKind kind, int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs,
                  const float* b, int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    gemm(kind, M, N, K, a, ars, acs, b, brs, bcs, c, ldc, accumulate);
}
void gemmOnTheFly(GemmKind kind, int64_t M, int64_t N, int64_t K, const uint16_t* a, int64_t ars, int64_t acs,
                  const uint16_t* b, int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    gemmBf16Storage(kind, M, N, K, a, ars, acs, b, brs, bcs, c, ldc, accumulate);
}

// How a group's block of gradWeight partial sums is laid out: [CYg, colRows] as dw itself,
// [colRows, CYg] (computed transposed), or [K, CYg, CXg] (by tap, conv_tap_rows.h).
enum class BlockLayout { Rows, Transposed, TapMajor };

BlockLayout blockLayoutOf(const ConvGeometry& g, const ConvTiling& t) {
    if (t.filterPadded) return BlockLayout::Transposed;
    return filterByTapRows(g, t) ? BlockLayout::TapMajor : BlockLayout::Rows;
}

// Rows [co0, co1) of one group's block of dw (CYg x colRows) = Σ_s of its block in each slice
// (slice stride sliceStride), in slice order: the float32 adds of summing the slices in dw's own
// layout.
void addSlices(const float* src, int64_t slices, int64_t sliceStride, const ConvGeometry& g, BlockLayout layout,
               float* dw, int64_t co0, int64_t co1) {
    const int64_t rows = g.colRows(), K = g.kernelSize(), CXg = g.CXg, CYg = g.CYg();
    auto add = [&](int64_t at, float* out) {
        float v = src[at];
        for (int64_t s = 1; s < slices; ++s) v += src[s * sliceStride + at];
        *out = v;
    };
    for (int64_t co = co0; co < co1; ++co) {
        float* row = dw + co * rows;
        if (layout == BlockLayout::TapMajor) {  // read in its own order
            for (int64_t tap = 0; tap < K; ++tap)
                for (int64_t cx = 0; cx < CXg; ++cx) add((tap * CYg + co) * CXg + cx, row + cx * K + tap);
            continue;
        }
        for (int64_t j = 0; j < rows; ++j)
            add(layout == BlockLayout::Transposed ? j * CYg + co : co * rows + j, row + j);
    }
}

}  // namespace

bool ConvGeometry::pointwise() const {
    for (int a = 0; a < 3; ++a)
        if (k[a] != 1 || stride[a] != 1 || pad[a] != 0 || xs[a] != ys[a]) return false;
    return true;
}

ConvTiling chooseTiling(const ConvGeometry& g, int threads) {
    ConvTiling t;
    const int64_t Y = std::max<int64_t>(1, g.ySize());
    int64_t tile = std::max(kMinTile, kColsBudgetFloats / std::max<int64_t>(1, g.colRows()));
    if (tile >= Y) {
        tile = Y;
    } else {
        tile = std::max<int64_t>(16, tile / 16 * 16);
    }
    t.tile = tile;
    const int64_t N = std::max<int64_t>(1, g.N), tiles = ceilDiv(Y, tile);
    t.cxBlocks = std::clamp<int64_t>(ceilDiv(kScatterItemsWanted, N * g.G), 1, std::max<int64_t>(1, g.CXg));
    const int64_t mostItems = std::max({N * tiles, N * g.G * t.cxBlocks, N * g.G * tiles});
    t.workers = std::clamp<int64_t>(threads, 1, mostItems);
    t.filterByGroup = g.depthwise() || (g.G > 1 && g.G >= t.workers);
    if (!t.filterByGroup) {
        const int64_t dwFloats = std::max<int64_t>(1, g.CY * g.colRows());
        t.slices = std::clamp<int64_t>(std::min(t.workers, N * tiles), 1, 1 + kPartialBudgetFloats / dwFloats);
    }
    return t;
}

int64_t colsBufferFloats(const ConvGeometry& g, const ConvTiling& t) {
    if (g.pointwise() || g.depthwise()) return 0;
    return t.workers * g.colRows() * t.tile;
}

int64_t filterPartialFloats(const ConvGeometry& g, const ConvTiling& t) {
    return g.depthwise() ? 0 : t.slices * g.CY * g.colRows();
}

// The column tile of the stages whose GEMM has positions as its columns (the scatter, the
// gather): t.tile rounded down to whole 32-column panels of the GEMM, whose micro-kernel computes
// 32 columns whatever the tile leaves in the last panel. ResNet 3x3 s2's tile of 112 positions
// ran 128 columns, 12.5% of its FMAs on nothing (the scatter's GEMM alone, 8 images: 13.0 ms at
// 112, 11.6 ms at 96). A column's sums do not depend on the tile; col2im's order of adds into
// one gradInput element does (tile, then tap), so the scatter's gradInput bits follow the tile.
constexpr int64_t kGemmPanelColumns = 32;
int64_t panelTile(const ConvTiling& t) {
    return t.tile >= kGemmPanelColumns ? t.tile / kGemmPanelColumns * kGemmPanelColumns : t.tile;
}

template <class T>
void convScatterInput(const ConvGeometry& g, const ConvTiling& t, const T* w, const T* y, float* x, float* cols) {
    if (g.depthwise()) return depthwiseScatterInput(g, w, y, x);
    const int64_t K = g.kernelSize(), CYg = g.CYg(), CXg = g.CXg, X = g.xSize(), Y = g.ySize(), tile = panelTile(t);
    const int64_t rowsW = g.colRows();
    const int64_t perBlock = ceilDiv(CXg, t.cxBlocks);
    const int64_t items = g.N * g.G * t.cxBlocks;
    const bool direct = g.pointwise();
    parallelChunks(items, grainFor(items, t.workers), [&](int chunk, int64_t b, int64_t e) {
        float* buf = direct ? nullptr : cols + static_cast<int64_t>(chunk) * rowsW * t.tile;
        PackedA wT;  // W_g^T of the current (group, block), packed once for all its images and tiles
        int64_t packedFor = -1;
        for (int64_t item = b; item < e; ++item) {
            const int64_t blk = item % t.cxBlocks, ng = item / t.cxBlocks;
            const int64_t n = ng / g.G, grp = ng % g.G;
            const int64_t cx0 = blk * perBlock, cx1 = std::min(CXg, cx0 + perBlock);
            if (cx0 >= cx1) continue;
            if (packedFor != grp * t.cxBlocks + blk) {  // A(i, k) = W_g[k, cx0*K + i]
                wT.pack(t.gemm, (cx1 - cx0) * K, CYg, w + grp * CYg * rowsW + cx0 * K, 1, rowsW);
                packedFor = grp * t.cxBlocks + blk;
            }
            float* xg = x + (n * g.CX() + grp * CXg) * X;
            if (!direct) std::fill(xg + cx0 * X, xg + cx1 * X, 0.0f);
            for (int64_t p0 = 0; p0 < Y; p0 += tile) {
                const int64_t len = std::min(tile, Y - p0);
                const T* dyp = y + (n * g.CY + grp * CYg) * Y + p0;  // B = dy
                if (direct) {
                    gemm(wT, len, dyp, Y, 1, xg + cx0 * X + p0, X, false);
                } else {
                    gemm(wT, len, dyp, Y, 1, buf, len, false);
                    col2imTile(g, buf, len, cx0, cx1, p0, len, xg);
                }
            }
        }
    });
}

template <class T>
void convGatherOutput(const ConvGeometry& g, const ConvTiling& t, const T* w, const T* x, float* y, T* cols) {
    if (g.depthwise()) return depthwiseGatherOutput(g, w, x, y);
    const int64_t CYg = g.CYg(), CXg = g.CXg, X = g.xSize(), Y = g.ySize();
    const int64_t rowsW = g.colRows(), tile = panelTile(t);
    const int64_t tiles = ceilDiv(Y, tile);
    const int64_t items = g.N * g.G * tiles;
    const bool direct = g.pointwise();
    parallelChunks(items, grainFor(items, t.workers), [&](int chunk, int64_t b, int64_t e) {
        T* buf = direct ? nullptr : cols + static_cast<int64_t>(chunk) * rowsW * t.tile;
        PackedA wg;  // W_g, packed once per group for all its tiles
        int64_t packedFor = -1;
        for (int64_t item = b; item < e; ++item) {
            const int64_t tileIdx = item % tiles, ng = item / tiles;
            const int64_t n = ng / g.G, grp = ng % g.G;
            const int64_t p0 = tileIdx * tile, len = std::min(tile, Y - p0);
            const T* xg = x + (n * g.CX() + grp * CXg) * X;
            if (packedFor != grp) {
                wg.pack(t.gemm, CYg, rowsW, w + grp * CYg * rowsW, rowsW, 1);
                packedFor = grp;
            }
            if (!direct) im2colTile(g, xg, 0, CXg, p0, len, buf, len);
            gemm(wg, len, direct ? xg + p0 : buf, direct ? X : len, 1, y + (n * g.CY + grp * CYg) * Y + p0, Y, false);
        }
    });
}

namespace {

// gradWeight's column block for one chunk, of an (image, group, tile): the padded copy of the
// input all chunks share (t.filterPadded: padInput before the chunks start; rowOffset()/kIndex()
// locate its elements), the image itself (pointwise) or the chunk's im2col block (row stride ld()).
template <class T>
class FilterRows {
public:
    FilterRows(const ConvGeometry& g, const ConvTiling& t, const PaddedX& px, T* scratch, int chunk)
        : g_(g), t_(t), px_(px), kIndex_(static_cast<std::size_t>(t.filterPadded ? t.tile : 0)) {
        if (t.filterPadded)
            buf_ = scratch;
        else if (!g.pointwise())
            buf_ = scratch + static_cast<int64_t>(chunk) * g.colRows() * t.tile;
    }

    const T* operator()(const T* x, int64_t n, int64_t grp, int64_t p0, int64_t len) {
        const int64_t channel0 = n * g_.CX() + grp * g_.CXg;
        if (t_.filterPadded) {
            paddedPositions(g_, px_, p0, len, kIndex_.data());
            return buf_ + channel0 * px_.channelSize;
        }
        ld_ = g_.pointwise() ? g_.xSize() : len;
        const T* xg = x + channel0 * g_.xSize();
        if (g_.pointwise()) return xg + p0;
        im2colTile(g_, xg, 0, g_.CXg, p0, len, buf_, len);
        return buf_;
    }
    T* buffer() const { return buf_; }  // the chunk's im2col buffer
    const int64_t* rowOffset() const { return px_.rowOffset.data(); }
    const int32_t* kIndex() const { return kIndex_.data(); }
    int64_t ld() const { return ld_; }

private:
    const ConvGeometry& g_;
    const ConvTiling& t_;
    const PaddedX& px_;
    T* buf_ = nullptr;
    int64_t ld_ = 0;
    std::vector<int32_t> kIndex_;
};

}  // namespace

template <class T>
void convFilterGrad(const ConvGeometry& g, const ConvTiling& t, const T* y, const T* x, float* dw, float* partials,
                    T* scratch) {
    if (g.depthwise()) return depthwiseFilterGrad(g, y, x, dw);
    const int64_t CYg = g.CYg(), Y = g.ySize(), rowsW = g.colRows(), dwSize = g.CY * rowsW;
    const int64_t tiles = tilesPerImage(g, t), items = g.N * tiles;
    const PaddedX px = t.filterPadded ? paddedXOf(g) : PaddedX{};
    if (t.filterPadded) padInput(g, px, x, scratch);
    // With the padded copy: acc[grp block, rowsW x CYg] += cols · dy^T, A = the columns read in
    // place (FilterRows: packing them would be a transpose), only dy packed. Otherwise, as the
    // measurements preferred: acc[grp block, CYg x rowsW] += dy · cols^T, both packed.
    const BlockLayout layout = std::is_same_v<T, float> ? blockLayoutOf(g, t)
                               : t.filterPadded         ? BlockLayout::Transposed
                                                        : BlockLayout::Rows;
    auto accumulate = [&](float* acc, int64_t item, int64_t grp, FilterRows<T>& rows) {
        const int64_t n = item / tiles, p0 = (item % tiles) * t.tile, len = std::min(t.tile, Y - p0);
        const T* dyp = y + (n * g.CY + grp * CYg) * Y + p0;
        if constexpr (std::is_same_v<T, float>) {
            if (layout == BlockLayout::TapMajor)  // 1D: per tap from a copy of the tile's window
                return filterTapRows(g, t, dyp, x + (n * g.CX() + grp * g.CXg) * g.xSize(), p0, len, rows.buffer(),
                                     acc + grp * rowsW * CYg);
        }
        const T* a = rows(x, n, grp, p0, len);
        if (t.filterPadded)
            gemmInPlaceA(t.gemm, rowsW, CYg, len, a, rows.rowOffset(), rows.kIndex(), dyp, 1, Y,
                         acc + grp * rowsW * CYg, CYg, true);
        else  // B(k = position, j = column row) = cols[j, k]
            gemmOnTheFly(t.gemm, CYg, rowsW, len, dyp, Y, 1, a, 1, rows.ld(), acc + grp * CYg * rowsW, rowsW, true);
    };
    if (t.filterByGroup) {
        parallelChunks(g.G, grainFor(g.G, t.workers), [&](int chunk, int64_t b, int64_t e) {
            FilterRows<T> rows(g, t, px, scratch, chunk);
            for (int64_t grp = b; grp < e; ++grp) {
                float* accT = partials + grp * rowsW * CYg;
                std::fill(accT, accT + rowsW * CYg, 0.0f);
                for (int64_t item = 0; item < items; ++item) accumulate(partials, item, grp, rows);
                addSlices(accT, 1, dwSize, g, layout, dw + grp * CYg * rowsW, 0, CYg);
            }
        });
        return;
    }
    const int64_t slices = t.slices;
    parallelChunks(slices, 1, [&](int chunk, int64_t sb, int64_t se) {
        FilterRows<T> rows(g, t, px, scratch, chunk);
        for (int64_t s = sb; s < se; ++s) {
            float* accT = partials + s * dwSize;
            std::fill(accT, accT + dwSize, 0.0f);
            for (int64_t grp = 0; grp < g.G; ++grp)  // each group's block sums its items in order
                for (int64_t item = items * s / slices; item < items * (s + 1) / slices; ++item)
                    accumulate(accT, item, grp, rows);
        }
    });
    // By dW rows, not groups: a single group (the common case) was summed by one thread, 0.1-0.2
    // ms of the call with the other idle (ResNet 3x3 s2, conv1d: 150-200 K floats a slice).
    parallelFor(0, g.G * CYg, 1, [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e;) {
            const int64_t grp = row / CYg, co0 = row % CYg, co1 = std::min(CYg, co0 + (e - row));
            addSlices(partials + grp * rowsW * CYg, slices, dwSize, g, layout, dw + grp * CYg * rowsW, co0, co1);
            row += co1 - co0;
        }
    });
}

template void convScatterInput(const ConvGeometry&, const ConvTiling&, const float*, const float*, float*, float*);
template void convScatterInput(const ConvGeometry&, const ConvTiling&, const uint16_t*, const uint16_t*, float*,
                               float*);
template void convGatherOutput(const ConvGeometry&, const ConvTiling&, const float*, const float*, float*, float*);
template void convGatherOutput(const ConvGeometry&, const ConvTiling&, const uint16_t*, const uint16_t*, float*,
                               uint16_t*);
template void convFilterGrad(const ConvGeometry&, const ConvTiling&, const float*, const float*, float*, float*,
                             float*);
template void convFilterGrad(const ConvGeometry&, const ConvTiling&, const uint16_t*, const uint16_t*, float*, float*,
                             uint16_t*);

}  // namespace opscope::kernels
