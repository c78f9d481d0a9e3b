// Design: RmsNormGrad is memory-bound, so everything happens in one pass over the rows. The
// rows are split into P partitions fixed when the plan is built (P = threads while each keeps
// >= 32K elements); a partition is processed by one thread, row after row:
//   sweep 1: s = sum dy*gamma*x in 32 float lanes (summed in double at the end of the row);
//   sweep 2: dx = rstd*dy*gamma - x*(rstd^3*s/cols), stored in the output dtype, and
//            dgamma partial[p] += dy*x*rstd in the partition's float buffer.
// Sweep 2 re-reads the row from cache (a 4096-wide float32 row pair is 32 KiB) while it
// prefetches the next row, so dy and x leave memory once and dx is written once (with
// streaming stores when dx is large). fp16/bf16 rows are widened once (vector F16C / bit
// shifts) in sweep 1 into row buffers that sweep 2 reads again (rows over kWholeRow are
// widened chunk by chunk in both sweeps), and dx is rounded once on the way out (round to
// nearest even, bit-identical to Eigen's scalar conversions). A second tiny step adds the P partial
// buffers in partition order. Nothing depends on timing: same P => same bits.
#include "rms_norm_grad_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__AVX__) || defined(__F16C__)
#include <immintrin.h>
#endif

#include "opscope/dispatch.h"
#include "opscope/float16.h"
#include "opscope/parallel.h"
#include "opscope/widen.h"

namespace opscope::kernels {
namespace {

constexpr int64_t kChunk = 1024;  // elements widened at a time (4 KiB of float per operand)
constexpr int kLanes = 32;        // independent float accumulators for the row sums

// Float view of [src, src+n): the data itself for float32, else widened into `buf`.
template <class T>
const float* asFloat(const T* src, float* buf, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
        return src;
    } else {
        widenToFloat(src, buf, n);
        return buf;
    }
}

// lanes[l] += sum of a*g*b over the elements l, l + kLanes, ... (local accumulators, so they
// stay in registers).
void dotLanes(const float* __restrict a, const float* __restrict g, const float* __restrict b, int64_t n,
              float* __restrict lanes) {
    float acc[kLanes];
    for (int l = 0; l < kLanes; ++l) acc[l] = lanes[l];
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l) acc[l] += a[i + l] * g[i + l] * b[i + l];
    for (int l = 0; i < n; ++i, ++l) acc[l] += a[i] * g[i] * b[i];
    for (int l = 0; l < kLanes; ++l) lanes[l] = acc[l];
}

// Stores that bypass the caches, for outputs too large to stay in them: they spare the read
// a normal store of a cold line costs (a third of dx's traffic).
void streamBytes(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
#if defined(__AVX__)
    std::size_t head = (32 - (reinterpret_cast<std::uintptr_t>(d) & 31)) & 31;
    head = std::min(head, bytes);
    std::memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 32; bytes -= 32, d += 32, s += 32)
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
#endif
    std::memcpy(d, s, bytes);
}

void streamFence() {
#if defined(__AVX__)
    _mm_sfence();
#endif
}

// fp16/bf16 rows up to this many elements are widened once, whole, into L2-resident buffers
// that sweep 2 reads again; longer rows are widened chunk by chunk in each sweep.
constexpr int64_t kWholeRow = 16384;

template <class T>
struct RowBuffers {
    std::vector<float> dy, x, dx;
    std::vector<T> narrowed;
    explicit RowBuffers(int64_t cols)
        : dy(static_cast<std::size_t>(std::is_same_v<T, float> || cols > kWholeRow ? kChunk : std::max(cols, kChunk))),
          x(dy.size()),
          dx(kChunk),
          narrowed(kChunk) {}
};

// Asks for [p, p + bytes) ahead of use, one request per cache line.
void prefetch(const void* p, std::size_t bytes) {
    const auto* c = static_cast<const char*>(p);
    for (std::size_t i = 0; i < bytes; i += 64) __builtin_prefetch(c + i, 0, 2);
}

// next/nextX: the following row, prefetched while sweep 2 works from the cache (null at the end).
template <class T, bool kStream>
void rowGrad(const T* dy, const T* x, float r, const float* g, T* dx, float* part, int64_t cols, RowBuffers<T>& b,
             const T* nextDy, const T* nextX) {
    float lanes[kLanes] = {};
    const bool whole = !std::is_same_v<T, float> && cols <= kWholeRow;
    for (int64_t k = 0; k < cols; k += kChunk) {
        const int64_t n = std::min(kChunk, cols - k);
        const int64_t at = whole ? k : 0;
        dotLanes(asFloat(dy + k, b.dy.data() + at, n), g + k, asFloat(x + k, b.x.data() + at, n), n, lanes);
    }
    double s = 0;
    for (float l : lanes) s += static_cast<double>(l);
    const double rd = r;
    const float c = static_cast<float>(rd * rd * rd * s / static_cast<double>(cols));
    constexpr bool kDirect = std::is_same_v<T, float> && !kStream;
    for (int64_t k = 0; k < cols; k += kChunk) {
        const int64_t n = std::min(kChunk, cols - k);
        if (nextDy) {
            prefetch(nextDy + k, static_cast<std::size_t>(n) * sizeof(T));
            prefetch(nextX + k, static_cast<std::size_t>(n) * sizeof(T));
        }
        const float* a = whole ? b.dy.data() + k : asFloat(dy + k, b.dy.data(), n);
        const float* xv = whole ? b.x.data() + k : asFloat(x + k, b.x.data(), n);
        const float* gk = g + k;
        float* pk = part + k;
        float* out = kDirect ? reinterpret_cast<float*>(dx + k) : b.dx.data();
        for (int64_t i = 0; i < n; ++i) {
            out[i] = r * (a[i] * gk[i]) - c * xv[i];
            pk[i] += a[i] * xv[i] * r;
        }
        if constexpr (kDirect) {
        } else if constexpr (std::is_same_v<T, float>) {
            streamBytes(dx + k, out, static_cast<std::size_t>(n) * sizeof(float));
        } else if constexpr (kStream) {
            narrowFromFloat(out, b.narrowed.data(), n);
            streamBytes(dx + k, b.narrowed.data(), static_cast<std::size_t>(n) * sizeof(T));
        } else {
            narrowFromFloat(out, dx + k, n);
        }
    }
}

template <class T, bool kStream>
void rowsTyped(const RmsNormGradShape& s, const T* dy, const T* x, const float* rstd, const float* gamma, T* dx,
               float* partials, int partitions) {
    parallelChunks(partitions, 1, [&](int, int64_t pb, int64_t pe) {
        RowBuffers<T> bufs(s.cols);
        for (int64_t p = pb; p < pe; ++p) {
            float* part = partials + p * s.cols;
            std::memset(part, 0, static_cast<std::size_t>(s.cols) * sizeof(float));
            const int64_t r0 = s.rows * p / partitions, r1 = s.rows * (p + 1) / partitions;
            for (int64_t r = r0; r < r1; ++r) {
                const bool more = r + 1 < r1;
                rowGrad<T, kStream>(dy + r * s.cols, x + r * s.cols, rstd[r], gamma, dx + r * s.cols, part, s.cols,
                                    bufs, more ? dy + (r + 1) * s.cols : nullptr,
                                    more ? x + (r + 1) * s.cols : nullptr);
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
