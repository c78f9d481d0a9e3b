// Design: RmsNormGrad is memory-bound, so everything happens in one pass over the rows. The
// rows are split into P partitions fixed when the plan is built (P = threads while each keeps
// >= 32K elements); a partition is processed by one thread, row after row:
//   sweep 1: s = sum dy*gamma*x in 32 float lanes (summed in double at the end of the row),
//            and dgamma partial[p] += dy*x*rstd in the partition's float buffer;
//   sweep 2: dx = rstd*dy*gamma - x*(rstd^3*s/cols), stored in the output dtype.
// Sweep 1 reads the row from memory with software prefetch 1024 elements ahead; sweep 2
// re-reads it from cache (a 4096-wide bf16 row pair is 16 KiB), so dy and x leave memory once
// and dx is written once (with streaming stores when dx is large). fp16/bf16 elements are widened and dx rounded in
// registers (vec16.h: 16 lanes, AVX-512 or portable with the same bits; round to nearest even), with no float copies of
// rows. A second tiny step adds the P partial buffers in partition order. Nothing depends on timing: same P => same
// bits.
#include "rms_norm_grad_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "opscope/dispatch.h"
#include "opscope/float16.h"
#include "opscope/parallel.h"
#include "opscope/vec16.h"

namespace opscope::kernels {
namespace {

using vec16::Vec;
constexpr int kV = vec16::kLanes;
// The operands of row r (row r starts at r * cols); `left` elements of dy and x from the row's
// start on belong to the partition (the prefetch stays inside them).
template <class T>
struct Row {
    const T *dy, *x;
    const float* gamma;
    float rstd;
    T* dx;
    int64_t cols, left;
};

// Sweep 1: returns s = sum dy*gamma*x (element j in float lane j % 32; the lanes summed in
// double) and adds dy*x*rstd to the partition's dgamma partial.
template <class T>
double rowDotAndPartial(const Row<T>& w, float* part) {
    const Vec r = Vec::broadcast(w.rstd);
    Vec acc[2] = {Vec::broadcast(0.f), Vec::broadcast(0.f)};
    int64_t j = 0;
    for (; j + 2 * kV <= w.cols; j += 2 * kV) {
        vec16::prefetchAhead(w.dy, j, 2 * kV, w.left);  // into the next row near the row's end
        vec16::prefetchAhead(w.x, j, 2 * kV, w.left);
        for (int h = 0; h < 2; ++h) {
            const int64_t at = j + h * kV;
            const Vec a = Vec::load(w.dy + at), b = Vec::load(w.x + at);
            acc[h] = acc[h] + a * Vec::load(w.gamma + at) * b;
            (Vec::load(part + at) + a * b * r).store(part + at);
        }
    }
    for (int h = 0; j < w.cols; j += kV, ++h) {
        const int n = vec16::lanesFor(w.cols - j);
        const Vec a = Vec::load(w.dy + j, n), b = Vec::load(w.x + j, n);
        acc[h] = acc[h] + a * Vec::load(w.gamma + j, n) * b;
        (Vec::load(part + j, n) + a * b * r).store(part + j, n);
    }
    return vec16::sumLanesInDouble(acc);
}

// dx = r*(dy*gamma) - c*x over columns [j0, j1), rounded once to T; kStream: j0 is aligned for
// streaming stores, and whole vectors are streamed.
template <class T, bool kStream>
void inputGradSpan(const Row<T>& w, Vec r, Vec c, int64_t j0, int64_t j1) {
    int64_t j = j0;
    for (; j + kV <= j1; j += kV) {
        const Vec v = r * (Vec::load(w.dy + j) * Vec::load(w.gamma + j)) - c * Vec::load(w.x + j);
        if constexpr (kStream)
            v.stream(w.dx + j);
        else
            v.store(w.dx + j);
    }
    if (j < j1) {
        const int n = vec16::lanesFor(j1 - j);
        (r * (Vec::load(w.dy + j, n) * Vec::load(w.gamma + j, n)) - c * Vec::load(w.x + j, n)).store(w.dx + j, n);
    }
}

// Sweep 2, from cache: dx = rstd*(dy*gamma) - x*(rstd^3*s/cols). kStream: the columns before
// dx's first aligned one with ordinary stores, the rest streamed.
template <class T, bool kStream>
void rowInputGrad(const Row<T>& w, double s) {
    const double rd = static_cast<double>(w.rstd);  // rstd^3 * s / cols in double
    const Vec c = Vec::broadcast(static_cast<float>(rd * rd * rd * s / static_cast<double>(w.cols)));
    const Vec r = Vec::broadcast(w.rstd);
    const int64_t head = kStream ? std::min<int64_t>(w.cols, vec16::elementsToStreamAlignment(w.dx)) : 0;
    inputGradSpan<T, false>(w, r, c, 0, head);
    inputGradSpan<T, kStream>(w, r, c, head, w.cols);
}

void streamFence() {
#if defined(__AVX__)
    _mm_sfence();
#endif
}

template <class T, bool kStream>
void rowsTyped(const RmsNormGradShape& s, const T* dy, const T* x, const float* rstd, const float* gamma, T* dx,
               float* partials, int partitions) {
    parallelChunks(partitions, 1, [&](int, int64_t pb, int64_t pe) {
        for (int64_t p = pb; p < pe; ++p) {
            float* part = partials + p * s.cols;
            std::memset(part, 0, static_cast<std::size_t>(s.cols) * sizeof(float));
            const int64_t r0 = s.rows * p / partitions, r1 = s.rows * (p + 1) / partitions;
            for (int64_t r = r0; r < r1; ++r) {
                const int64_t at = r * s.cols;
                const Row<T> w{dy + at, x + at, gamma, rstd[r], dx + at, s.cols, (r1 - r) * s.cols};
                rowInputGrad<T, kStream>(w, rowDotAndPartial(w, part));
            }
        }
        if (kStream) streamFence();
    });
}

// dx larger than this is written with streaming stores.
constexpr int64_t kStreamBytes = int64_t{16} << 20;

template <class T>
void rowsDispatch(const RmsNormGradShape& s, const void* dy, const void* x, const float* rstd, const float* gamma,
                  void* dx, float* partials, int partitions) {
    const auto* tdy = static_cast<const T*>(dy);
    const auto* tx = static_cast<const T*>(x);
    auto* tdx = static_cast<T*>(dx);
    if (s.rows * s.cols * static_cast<int64_t>(sizeof(T)) >= kStreamBytes)
        rowsTyped<T, true>(s, tdy, tx, rstd, gamma, tdx, partials, partitions);
    else
        rowsTyped<T, false>(s, tdy, tx, rstd, gamma, tdx, partials, partitions);
}

}  // namespace

int rmsNormGradPartitions(const RmsNormGradShape& s, int threads) {
    constexpr int64_t kMinElementsPerPartition = 1 << 15;
    const int64_t minRows = std::max<int64_t>(1, kMinElementsPerPartition / std::max<int64_t>(s.cols, 1));
    const int64_t byWork = std::max<int64_t>(1, s.rows / minRows);
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, byWork)));
}

void rmsNormGradRows(const RmsNormGradShape& s, DType dtype, const void* dy, const void* x, const float* rstd,
                     const float* gamma, void* dx, float* partials, int partitions) {
    dispatchKernel<Float32Family>(dtype, "RmsNormGrad", [&](auto tag) {
        rowsDispatch<typename decltype(tag)::type>(s, dy, x, rstd, gamma, dx, partials, partitions);
    });
}

void rmsNormGradGammaReduce(const RmsNormGradShape& s, const float* partials, int partitions, float* dgamma) {
    parallelFor(0, s.cols, 1 << 12, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) {
            double acc = 0;
            for (int p = 0; p < partitions; ++p) acc += static_cast<double>(partials[p * s.cols + j]);
            dgamma[j] = static_cast<float>(acc);
        }
    });
}

int64_t findNonFinite(DType dtype, const void* data, int64_t n) {
    return dispatchKernel<Float32Family>(dtype, "CheckFinite", [&](auto tag) -> int64_t {
        using T = typename decltype(tag)::type;
        const T* p = static_cast<const T*>(data);
        for (int64_t i = 0; i < n; ++i)
            if (!std::isfinite(convertValue<double>(p[i]))) return i;
        return -1;
    });
}

}  // namespace opscope::kernels
