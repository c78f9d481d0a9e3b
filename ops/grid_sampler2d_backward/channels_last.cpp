// Tiled 2-D transposes of each batch's [C, HW] plane. A task owns a range of HW positions of
// one batch (all channels), so every output element has one writer. Within a task the channel
// axis is walked in tiles of 64: each tile's rows are widened to float32 contiguously (vector
// F16C / bit shifts for the 16-bit types), then written transposed. The way back gathers a
// tile and rounds each channel row once (round to nearest even, like Eigen's conversions).
#include "channels_last.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "opscope/dispatch.h"
#include "opscope/float16.h"
#include "opscope/parallel.h"
#include "opscope/widen.h"

namespace opscope::kernels {
namespace {

constexpr int64_t kTileC = 64;
constexpr int64_t kTileP = 64;

int64_t grainFor(int64_t C) { return std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(C * kTileP, 1)); }

using Tile = float[kTileC][kTileP];

// Runs body(tile, n, p0, np, c0, nc) for each tile of channels [c0, c0 + nc) x positions
// [p0, p0 + np) of batch n, tasks split over (n, position tile); `tile` is the task's scratch.
template <class Body>
void forEachTile(int64_t N, int64_t C, int64_t HW, Body&& body) {
    const int64_t tilesP = (HW + kTileP - 1) / kTileP;
    parallelFor(0, N * tilesP, grainFor(C), [&](int64_t b, int64_t e) {
        Tile tile;
        for (int64_t t = b; t < e; ++t) {
            const int64_t n = t / tilesP, p0 = (t % tilesP) * kTileP, np = std::min(kTileP, HW - p0);
            for (int64_t c0 = 0; c0 < C; c0 += kTileC) body(tile, n, p0, np, c0, std::min(kTileC, C - c0));
        }
    });
}

template <class S>
void toLast(const S* src, float* dst, int64_t N, int64_t C, int64_t HW) {
    forEachTile(N, C, HW, [&](Tile& tile, int64_t n, int64_t p0, int64_t np, int64_t c0, int64_t nc) {
        for (int64_t c = 0; c < nc; ++c) widenToFloat(src + (n * C + c0 + c) * HW + p0, tile[c], np);
        for (int64_t p = 0; p < np; ++p) {
            float* out = dst + (n * HW + p0 + p) * C + c0;
            for (int64_t c = 0; c < nc; ++c) out[c] = tile[c][p];
        }
    });
}

template <class D>
void toFirst(const float* src, D* dst, int64_t N, int64_t C, int64_t HW) {
    forEachTile(N, C, HW, [&](Tile& tile, int64_t n, int64_t p0, int64_t np, int64_t c0, int64_t nc) {
        for (int64_t p = 0; p < np; ++p) {
            const float* in = src + (n * HW + p0 + p) * C + c0;
            for (int64_t c = 0; c < nc; ++c) tile[c][p] = in[c];
        }
        for (int64_t c = 0; c < nc; ++c) narrowFromFloat(tile[c], dst + (n * C + c0 + c) * HW + p0, np);
    });
}

}  // namespace

void toChannelsLast(DType dtype, const void* src, float* dst, int64_t N, int64_t C, int64_t HW) {
    dispatchKernel<Float32Family>(dtype, "Transpose", [&](auto tag) {
        toLast(static_cast<const typename decltype(tag)::type*>(src), dst, N, C, HW);
    });
}

void toChannelsFirst(const float* src, DType dtype, void* dst, int64_t N, int64_t C, int64_t HW) {
    dispatchKernel<Float32Family>(
        dtype, "Transpose", [&](auto tag) { toFirst(src, static_cast<typename decltype(tag)::type*>(dst), N, C, HW); });
}

}  // namespace opscope::kernels
