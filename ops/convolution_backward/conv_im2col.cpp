// Design: a tile of Y positions is walked as row segments (fixed od, oh; consecutive ow). For
// each kernel tap a segment maps to one X row read at iw = ow*stride - pad + kw*dilation, so the
// valid part is found analytically: zeros, a contiguous (stride 1) or strided copy, zeros. The
// (tap, segment) pieces do not depend on the channel, so they are computed once per tile and
// replayed for every channel: no index arithmetic (divisions) in the per-channel loops.
// col2im is the same walk with += and no zeros; it touches only the channels it is given, which
// is what makes the scatter stage race-free. A piece is one output row, often shorter than 64
// values, so on AVX-512 both walks move it in masked vectors rather than memmove/memset calls.
#include "conv_im2col.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace opscope::kernels {
namespace {

// The j in [0, len) with 0 <= iw0 + j*s < W form [*lo, *hi).
void validRange(int64_t iw0, int64_t s, int64_t W, int64_t len, int64_t* lo, int64_t* hi) {
    int64_t a = iw0 >= 0 ? 0 : (-iw0 + s - 1) / s;
    int64_t b = iw0 >= W ? 0 : (W - 1 - iw0) / s + 1;
    a = std::min(a, len);
    b = std::min(b, len);
    *lo = a;
    *hi = std::max(a, b);
}

}  // namespace

const std::vector<Piece>& piecesOf(const ConvGeometry& g, int64_t p0, int64_t len) {
    thread_local std::vector<Piece> pieces;
    pieces.clear();
    int64_t row = 0;
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
        for (int64_t kh = 0; kh < g.k[1]; ++kh)
            for (int64_t kw = 0; kw < g.k[2]; ++kw, ++row) {
                int64_t ow = p0 % g.ys[2];
                const int64_t rest = p0 / g.ys[2];
                int64_t oh = rest % g.ys[1], od = rest / g.ys[1];
                for (int64_t t = 0; t < len;) {
                    const int64_t seg = std::min(len - t, g.ys[2] - ow);
                    const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
                    const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
                    Piece p{row, t, seg, -1, ow * g.stride[2] - g.pad[2] + kw * g.dil[2], 0, 0};
                    if (id >= 0 && id < g.xs[0] && ih >= 0 && ih < g.xs[1]) {
                        p.xOff = (id * g.xs[1] + ih) * g.xs[2];
                        validRange(p.iw0, g.stride[2], g.xs[2], seg, &p.lo, &p.hi);
                    }
                    pieces.push_back(p);
                    t += seg;
                    ow = 0;
                    if (++oh == g.ys[1]) {
                        oh = 0;
                        ++od;
                    }
                }
            }
    return pieces;
}

namespace {

// dst[j] = src[iw0 + j*s] for j in [lo, hi), zero for the rest of [0, n).
template <class T>
void copyPlain(const T* src, int64_t iw0, int64_t s, int64_t lo, int64_t hi, int64_t n, T* dst) {
    std::fill(dst, dst + lo, T{});
    if (s == 1) {
        std::copy(src + iw0 + lo, src + iw0 + hi, dst + lo);
    } else {
        for (int64_t j = lo; j < hi; ++j) dst[j] = src[iw0 + j * s];
    }
    std::fill(dst + hi, dst + n, T{});
}

template <class T>
void copySegment(const T* src, int64_t iw0, int64_t s, int64_t lo, int64_t hi, int64_t n, T* dst) {
    copyPlain(src, iw0, s, lo, hi, n, dst);
}

#if defined(__AVX512F__)
// Lanes [a, b) of 16 (of 32 with Mask = __mmask32).
template <class Mask, int Lanes>
inline Mask laneRange(int64_t a, int64_t b) {
    using Bits = std::conditional_t<Lanes == 32, uint64_t, uint32_t>;
    a = std::clamp<int64_t>(a, 0, Lanes);
    b = std::clamp<int64_t>(b, a, Lanes);
    return static_cast<Mask>(((Bits{1} << b) - 1) & ~((Bits{1} << a) - 1));
}

// Longer pieces (a 1D row) copy as fast with memmove, which measured slightly ahead there.
constexpr int64_t kLongSegment = 64;

// Lanes 2i of 32 for the i in [a, b) of 16: where stride-2 values sit in 32 consecutive floats.
inline uint32_t evenLanes(int64_t a, int64_t b) {
    return laneRange<uint32_t, 32>(2 * std::clamp<int64_t>(a, 0, 16), 2 * std::clamp<int64_t>(b, 0, 16)) & 0x55555555u;
}

// Stride 2 (a stride-2 layer's im2col: ResNet's downsampling 3x3): per 16 outputs, the even
// values of 32 source floats (only those lanes read: the odd ones may lie past X's end), picked
// by one two-source permute; masked-off lanes load as zero, which is the padding.
[[gnu::always_inline]] inline void copyStride2(const float* src, int64_t lo, int64_t hi, int64_t n, float* dst) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t j = 0; j < n; j += 16) {
        const uint32_t lanes = evenLanes(lo - j, hi - j);
        const float* s = src + 2 * j;
        const __m512 v = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(static_cast<__mmask16>(lanes), s), even,
                                                _mm512_maskz_loadu_ps(static_cast<__mmask16>(lanes >> 16), s + 16));
        if (n - j >= 16)
            _mm512_storeu_ps(dst + j, v);
        else
            _mm512_mask_storeu_ps(dst + j, laneRange<__mmask16, 16>(0, n - j), v);
    }
}

// One vector of T under a lane mask: 16 floats, or 32 bf16 values (their bits).
template <class T>
struct Lanes;
template <>
struct Lanes<float> {
    static constexpr int kCount = 16;
    using Mask = __mmask16;
    static __m512i load(Mask m, const float* p) { return _mm512_castps_si512(_mm512_maskz_loadu_ps(m, p)); }
    static void store(float* p, Mask m, __m512i v) { _mm512_mask_storeu_ps(p, m, _mm512_castsi512_ps(v)); }
};
#if defined(__AVX512BW__)
template <>
struct Lanes<uint16_t> {
    static constexpr int kCount = 32;
    using Mask = __mmask32;
    static __m512i load(Mask m, const uint16_t* p) { return _mm512_maskz_loadu_epi16(m, p); }
    static void store(uint16_t* p, Mask m, __m512i v) { _mm512_mask_storeu_epi16(p, m, v); }
};
#endif

// Stride 1 on AVX-512: segments are one output row (often 7-56 values), too short for memmove
// and memset calls to pay; one load per vector, masked at the padding (masked-off lanes are
// neither read nor faulted on) brings values and zeros at once. Inlined: a call (and its
// vzeroupper) per row segment measured slower.
template <class T>
[[gnu::always_inline]] inline void copyUnitStride(const T* src, int64_t lo, int64_t hi, int64_t n, T* dst) {
    using L = Lanes<T>;
    constexpr int V = L::kCount;
    for (int64_t j = 0; j < n; j += V) {
        const __m512i v = lo <= j && hi - j >= V ? _mm512_loadu_si512(src + j)
                                                 : L::load(laneRange<typename L::Mask, V>(lo - j, hi - j), src + j);
        if (n - j >= V)
            _mm512_storeu_si512(dst + j, v);
        else
            L::store(dst + j, laneRange<typename L::Mask, V>(0, n - j), v);
    }
}

template <>
[[gnu::always_inline]] inline void copySegment(const float* src, int64_t iw0, int64_t s, int64_t lo, int64_t hi,
                                               int64_t n, float* dst) {
    if (s == 2) return copyStride2(src + iw0, lo, hi, n, dst);
    if (s != 1 || n > kLongSegment) return copyPlain(src, iw0, s, lo, hi, n, dst);
    copyUnitStride(src + iw0, lo, hi, n, dst);
}
#if defined(__AVX512BW__)
template <>
[[gnu::always_inline]] inline void copySegment(const uint16_t* src, int64_t iw0, int64_t s, int64_t lo, int64_t hi,
                                               int64_t n, uint16_t* dst) {
    if (s != 1 || n > kLongSegment) return copyPlain(src, iw0, s, lo, hi, n, dst);
    copyUnitStride(src + iw0, lo, hi, n, dst);
}
#endif
#endif

// A tile reads (col2im: updates) the same short span of every channel, the channels ~X apart:
// too few lines per channel for the hardware prefetcher to follow, so each channel's span is
// prefetched two channels ahead. Measured (bench/README.md, ResNet 3x3 s2 fp32, 1 thread, CPU per
// call): im2col -3%, col2im another -2%; one channel ahead -2.5% for im2col.
constexpr int64_t kPrefetchChannels = 2;

// [*lo, *hi): the offsets within a channel that the tile's pieces read.
void channelSpan(const std::vector<Piece>& pieces, int64_t sw, int64_t* lo, int64_t* hi) {
    *lo = INT64_MAX;
    *hi = 0;
    for (const Piece& p : pieces)
        if (p.xOff >= 0 && p.hi > p.lo) {
            *lo = std::min(*lo, p.xOff + p.iw0 + p.lo * sw);
            *hi = std::max(*hi, p.xOff + p.iw0 + (p.hi - 1) * sw + 1);
        }
}

// Prefetches the span [lo, hi) of a channel, one request per 64-byte line.
template <int Write, class T>
void prefetchSpan(const T* channel, int64_t lo, int64_t hi) {
    for (int64_t at = lo; at < hi; at += 64 / static_cast<int64_t>(sizeof(T))) __builtin_prefetch(channel + at, Write);
}

template <class T>
void im2colOf(const ConvGeometry& g, const T* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len, T* cols,
              int64_t ld) {
    const int64_t K = g.kernelSize(), X = g.xSize(), sw = g.stride[2];
    const std::vector<Piece>& pieces = piecesOf(g, p0, len);
    int64_t spanLo, spanHi;
    channelSpan(pieces, sw, &spanLo, &spanHi);
    for (int64_t cx = cx0; cx < cx1; ++cx) {
        const T* xc = x + cx * X;
        if (cx + kPrefetchChannels < cx1) prefetchSpan<0>(xc + kPrefetchChannels * X, spanLo, spanHi);
        T* block = cols + (cx - cx0) * K * ld;
        for (const Piece& p : pieces) {
            T* dst = block + p.row * ld + p.t;
            if (p.xOff < 0)
                copySegment(xc, 0, sw, 0, 0, p.len, dst);  // all zeros
            else
                copySegment(xc + p.xOff, p.iw0, sw, p.lo, p.hi, p.len, dst);
        }
    }
}

}  // namespace

void im2colTile(const ConvGeometry& g, const float* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len, float* cols,
                int64_t ld) {
    im2colOf(g, x, cx0, cx1, p0, len, cols, ld);
}

void im2colTile(const ConvGeometry& g, const uint16_t* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len,
                uint16_t* cols, int64_t ld) {
    im2colOf(g, x, cx0, cx1, p0, len, cols, ld);
}

namespace {

// d[j] += c[j] for j in [0, n): one float add per element, so any vector width gives the same
// bits. Segments are one output row (often 7-56 values): a masked tail, not a scalar loop.
inline void addSegment(const float* __restrict c, int64_t n, float* __restrict d) {
#if defined(__AVX512F__)
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(d + j, _mm512_add_ps(_mm512_loadu_ps(d + j), _mm512_loadu_ps(c + j)));
    if (j < n) {
        const __mmask16 m = laneRange<__mmask16, 16>(0, n - j);
        _mm512_mask_storeu_ps(d + j, m,
                              _mm512_add_ps(_mm512_maskz_loadu_ps(m, d + j), _mm512_maskz_loadu_ps(m, c + j)));
    }
#else
    for (int64_t j = 0; j < n; ++j) d[j] += c[j];
#endif
}

// d[2j] += c[j] for j in [lo, hi): stride 2, the same one add per element. On AVX-512 each 16
// values of c are spread over the even lanes of two vectors of d, added and stored under the
// even-lane mask (the odd elements belong to other positions and are neither read nor written).
inline void addStride2(const float* __restrict c, int64_t lo, int64_t hi, float* __restrict d) {
#if defined(__AVX512F__)
    const __m512i first = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    const __m512i second = _mm512_add_epi32(first, _mm512_set1_epi32(8));
    for (int64_t j = lo; j < hi; j += 16) {
        const int64_t n = std::min<int64_t>(16, hi - j);
        const __m512 v = _mm512_maskz_loadu_ps(laneRange<__mmask16, 16>(0, n), c + j);
        const uint32_t lanes = evenLanes(0, n);
        float* p = d + 2 * j;
        const auto m0 = static_cast<__mmask16>(lanes), m1 = static_cast<__mmask16>(lanes >> 16);
        _mm512_mask_storeu_ps(p, m0, _mm512_add_ps(_mm512_maskz_loadu_ps(m0, p), _mm512_permutex2var_ps(v, first, v)));
        if (m1)
            _mm512_mask_storeu_ps(
                p + 16, m1, _mm512_add_ps(_mm512_maskz_loadu_ps(m1, p + 16), _mm512_permutex2var_ps(v, second, v)));
    }
#else
    for (int64_t j = lo; j < hi; ++j) d[2 * j] += c[j];
#endif
}

}  // namespace

void col2imTile(const ConvGeometry& g, const float* cols, int64_t ld, int64_t cx0, int64_t cx1, int64_t p0, int64_t len,
                float* x) {
    const int64_t K = g.kernelSize(), X = g.xSize(), sw = g.stride[2];
    const std::vector<Piece>& pieces = piecesOf(g, p0, len);
    int64_t spanLo, spanHi;
    channelSpan(pieces, sw, &spanLo, &spanHi);
    for (int64_t cx = cx0; cx < cx1; ++cx) {
        float* xc = x + cx * X;
        if (cx + kPrefetchChannels < cx1) prefetchSpan<1>(xc + kPrefetchChannels * X, spanLo, spanHi);
        const float* block = cols + (cx - cx0) * K * ld;
        for (const Piece& p : pieces) {
            if (p.xOff < 0 || p.hi <= p.lo) continue;
            const float* src = block + p.row * ld + p.t;
            float* dst = xc + p.xOff;
            if (sw == 1) {
                addSegment(src + p.lo, p.hi - p.lo, dst + (p.iw0 + p.lo));
            } else if (sw == 2) {
                addStride2(src, p.lo, p.hi, dst + p.iw0);
            } else {
                for (int64_t j = p.lo; j < p.hi; ++j) dst[p.iw0 + j * sw] += src[j];
            }
        }
    }
}

}  // namespace opscope::kernels
