// Sixteen float32 lanes loaded from and stored to float32, float16 or bfloat16 memory, so that
// memory-bound kernels widen and narrow in registers instead of through float scratch copies.
// AVX-512 when the compiler targets it, else a portable array version (vec16::Portable, always
// compiled so tests can compare the two). Both give the same bits:
// - loads are exact; float16 NaNs load quiet (as F16C loads them);
// - bfloat16 stores round to nearest even exactly like widen.h (NaN -> the quiet NaN 0x7fc0 with
//   its sign, subnormals kept; the AVX512-BF16 instruction keeps payloads and flushes
//   subnormals, so it only serves vectors free of both);
// - the arithmetic is plain IEEE float (which payload survives an operation on two NaNs is the
//   compiler's choice). Files using these are compiled with -ffp-contract=off (ops/CMakeLists.txt)
//   so that neither version gets a fused multiply-add the other lacks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "opscope/float16.h"
#include "opscope/widen.h"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#define OPSCOPE_VEC16_AVX512 1
#endif

namespace opscope::vec16 {

constexpr int kLanes = 16;

// The reference implementation: one float per lane, element by element.
struct Portable {
    float v[kLanes];

    static Portable broadcast(float f) {
        Portable r;
        for (float& x : r.v) x = f;
        return r;
    }
    // Lanes [0, n) from p, the rest zero.
    template <class T>
    static Portable load(const T* p, int n = kLanes) {
        Portable r = broadcast(0.f);
        for (int i = 0; i < n; ++i) r.v[i] = toFloat(p[i]);
        return r;
    }
    // Lanes [0, n) to p, rounded to T.
    template <class T>
    void store(T* p, int n = kLanes) const {
        for (int i = 0; i < n; ++i) p[i] = fromFloat<T>(v[i]);
    }
    template <class T>
    void stream(T* p) const {
        store(p);
    }
    friend Portable operator+(const Portable& a, const Portable& b) {
        return zip(a, b, [](float x, float y) { return x + y; });
    }
    friend Portable operator-(const Portable& a, const Portable& b) {
        return zip(a, b, [](float x, float y) { return x - y; });
    }
    friend Portable operator*(const Portable& a, const Portable& b) {
        return zip(a, b, [](float x, float y) { return x * y; });
    }
    void copyTo(float* out) const { std::memcpy(out, v, sizeof v); }

private:
    template <class F>
    static Portable zip(const Portable& a, const Portable& b, F f) {
        Portable r;
        for (int i = 0; i < kLanes; ++i) r.v[i] = f(a.v[i], b.v[i]);
        return r;
    }
    static float toFloat(float x) { return x; }
    static float toFloat(half x) {  // a signaling NaN comes out quiet, as from F16C
        const float f = static_cast<float>(x);
        return std::isnan(f) ? floatFromBits(floatBits(f) | 0x00400000u) : f;
    }
    static float toFloat(bfloat16 x) { return bfloat16BitsToFloat(Eigen::numext::bit_cast<uint16_t>(x)); }
    template <class T>
    static T fromFloat(float x) {
        if constexpr (std::is_same_v<T, bfloat16>) {
            return Eigen::numext::bit_cast<bfloat16>(floatToBFloat16Bits(x));
        } else {
            return T(x);
        }
    }
};

#if defined(OPSCOPE_VEC16_AVX512)
struct Avx512 {
    __m512 v;

    static Avx512 broadcast(float f) { return {_mm512_set1_ps(f)}; }
    static Avx512 load(const float* p) { return {_mm512_loadu_ps(p)}; }
    static Avx512 load(const float* p, int n) { return {_mm512_maskz_loadu_ps(mask(n), p)}; }
    static Avx512 load(const bfloat16* p) { return widenBf16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
    static Avx512 load(const bfloat16* p, int n) { return widenBf16(_mm256_maskz_loadu_epi16(mask(n), p)); }
    static Avx512 load(const half* p) {
        return {_mm512_maskz_cvtph_ps(kAll, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)))};
    }
    static Avx512 load(const half* p, int n) {
        return {_mm512_maskz_cvtph_ps(kAll, _mm256_maskz_loadu_epi16(mask(n), p))};
    }

    void store(float* p) const { _mm512_storeu_ps(p, v); }
    void store(float* p, int n) const { _mm512_mask_storeu_ps(p, mask(n), v); }
    void store(bfloat16* p) const { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), narrowBf16()); }
    void store(bfloat16* p, int n) const { _mm256_mask_storeu_epi16(p, mask(n), narrowBf16()); }
    void store(half* p) const { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), narrowHalf()); }
    void store(half* p, int n) const { _mm256_mask_storeu_epi16(p, mask(n), narrowHalf()); }
    // Non-temporal stores; p must be aligned to 16 elements.
    void stream(float* p) const { _mm512_stream_ps(p, v); }
    void stream(bfloat16* p) const { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), narrowBf16()); }
    void stream(half* p) const { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), narrowHalf()); }

    friend Avx512 operator+(Avx512 a, Avx512 b) { return {_mm512_add_ps(a.v, b.v)}; }
    friend Avx512 operator-(Avx512 a, Avx512 b) { return {_mm512_sub_ps(a.v, b.v)}; }
    friend Avx512 operator*(Avx512 a, Avx512 b) { return {_mm512_mul_ps(a.v, b.v)}; }
    void copyTo(float* out) const { _mm512_storeu_ps(out, v); }

private:
    // The maskz forms with every lane set: GCC 12 warns (falsely) about the undefined operand of
    // the unmasked intrinsics once inlined.
    static constexpr __mmask16 kAll = 0xffff;
    static __mmask16 mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
    static Avx512 widenBf16(__m256i h) {
        return {_mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, _mm512_maskz_cvtepu16_epi32(kAll, h), 16))};
    }
    // floatToBFloat16Bits on 16 lanes. The AVX512-BF16 instruction gives the same bits unless a
    // lane is NaN (it keeps the payload) or subnormal (it flushes it): then the integer rounding.
    __m256i narrowBf16() const {
#if defined(__AVX512BF16__) && defined(__AVX512DQ__)
        constexpr int kNanOrSubnormal = 0x01 | 0x20 | 0x80;  // quiet NaN, subnormal, signaling NaN
        if (_mm512_fpclass_ps_mask(v, kNanOrSubnormal) == 0) {
            const __m256bh h = _mm512_cvtneps_pbh(v);
            __m256i r;
            std::memcpy(&r, &h, sizeof r);
            return r;
        }
#endif
        return narrowBf16Integer();
    }
    __m256i narrowBf16Integer() const {
        const __m512i b = _mm512_castps_si512(v);
        const __m512i odd = _mm512_and_si512(_mm512_maskz_srli_epi32(kAll, b, 16), _mm512_set1_epi32(1));
        const __m512i rounded =
            _mm512_maskz_srli_epi32(kAll, _mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7fff)), odd), 16);
        const __m512i nan =
            _mm512_or_si512(_mm512_and_si512(_mm512_maskz_srli_epi32(kAll, b, 16), _mm512_set1_epi32(0x8000)),
                            _mm512_set1_epi32(0x7fc0));
        const __mmask16 isNan =
            _mm512_cmpgt_epu32_mask(_mm512_and_si512(b, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
        return _mm512_maskz_cvtepi32_epi16(kAll, _mm512_mask_blend_epi32(isNan, rounded, nan));
    }
    __m256i narrowHalf() const { return _mm512_maskz_cvtps_ph(kAll, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
};
using Vec = Avx512;
#else
using Vec = Portable;
#endif

// How many lanes a vector step over the last `left` elements uses.
inline int lanesFor(int64_t left) { return static_cast<int>(std::min<int64_t>(kLanes, left)); }

// The lanes of acc[0], acc[1], ... summed in double, in that order.
template <class V, std::size_t N>
double sumLanesInDouble(const V (&acc)[N]) {
    float lanes[N * kLanes];
    for (std::size_t i = 0; i < N; ++i) acc[i].copyTo(lanes + i * kLanes);
    double s = 0;
    for (float l : lanes) s += static_cast<double>(l);
    return s;
}

// Software prefetch of p[j + ahead, j + ahead + count), one request per cache line, clipped to
// the first `valid` elements of p. Streaming kernels call it as they go: on its own the hardware
// prefetcher keeps too few lines in flight for one core to read at full memory speed.
template <class T>
void prefetchAhead(const T* p, int64_t j, int64_t count, int64_t valid, int64_t ahead = 1024) {
    constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
    for (int64_t q = j + ahead; q < std::min(j + ahead + count, valid); q += kLine) __builtin_prefetch(p + q, 0, 3);
}

// How many elements of T past p the first address aligned for Vec::stream lies (< kLanes).
template <class T>
int elementsToStreamAlignment(const T* p) {
    const auto bytes = static_cast<uintptr_t>(kLanes * sizeof(T));
    const auto mis = reinterpret_cast<uintptr_t>(p) % bytes;
    return static_cast<int>(((bytes - mis) % bytes) / sizeof(T));
}

}  // namespace opscope::vec16
