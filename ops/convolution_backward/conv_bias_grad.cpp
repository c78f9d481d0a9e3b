// Design: gradBias sums each channel in double, one order for every path and thread count: per
// (image, channel) plane 8 double lanes (lane l takes positions l, l + 8, ...; the last n mod 8
// values go to lanes 0, 1, ...), the lanes added in order, then the planes in image order.
// Summing one plane is a chain of dependent adds per lane, so the AVX-512 path runs the planes of
// 8 (channel, image) pairs side by side (their chains are independent) and reads bf16 in place.
// Which NaN survives an add of two NaNs is the hardware's choice of operand (x86: the first), and
// the compiler may swap the operands of any add, so a NaN result is not taken from the fast paths:
// its channel is summed again by sumInOrder, which names the first operand of every add as the
// lane loops this file replaced had it (GCC 12): the lane inside the blocks of 8, the value in
// the tail, the running sum in the lane and plane sums. Without NaN the order of the two
// operands does not change a sum, and any NaN makes the channel's result NaN.
#include "conv_bias_grad.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "convolution_backward_kernel.h"
#include "opscope/parallel.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#include <immintrin.h>
#define OPSCOPE_BIAS_AVX512 1
#endif

namespace opscope::kernels {
namespace {

constexpr int kLanes = 8;   // double lanes per plane
constexpr int kChains = 8;  // planes summed side by side (AVX-512)

inline double widened(float v) { return static_cast<double>(v); }
inline double widened(uint16_t bits) {  // bf16 storage: the value's float32 bits are bits << 16
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return static_cast<double>(f);
}

// a + b where a NaN wins over b's (both are quiet: widening quiets), as x86 adds them.
inline double addFirstNanWins(double a, double b) { return std::isnan(a) ? a : a + b; }

// One channel's sum with every add's first operand fixed (see the design note): for NaN results.
template <class T>
double sumInOrder(const T* p, int64_t N, int64_t imageStride, int64_t positions) {
    double sum = 0;
    for (int64_t n = 0; n < N; ++n) {
        const T* q = p + n * imageStride;
        double lane[kLanes] = {};
        int64_t i = 0;
        for (; i + kLanes <= positions; i += kLanes)
            for (int l = 0; l < kLanes; ++l) lane[l] = addFirstNanWins(lane[l], widened(q[i + l]));
        for (int l = 0; i < positions; ++i, ++l) lane[l] = addFirstNanWins(widened(q[i]), lane[l]);
        double plane = 0;
        for (double v : lane) plane = addFirstNanWins(plane, v);
        sum = addFirstNanWins(sum, plane);
    }
    return sum;
}

// One plane's sum, portable: the lane loops as they were.
template <class T>
double planeSumPortable(const T* __restrict p, int64_t n) {
    double lane[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l) lane[l] += widened(p[i + l]);
    for (int l = 0; i < n; ++i, ++l) lane[l] += widened(p[i]);
    double sum = 0;
    for (double v : lane) sum += v;
    return sum;
}

#if defined(OPSCOPE_BIAS_AVX512)
// The 8 values at p (those of mask m, zeros for the others), widened to double. (The maskz forms
// with every lane set: GCC 12 warns falsely about the unmasked ones' undefined operand.)
constexpr __mmask8 kAll = 0xff;
inline __m512d load8(const float* p) { return _mm512_maskz_cvtps_pd(kAll, _mm256_loadu_ps(p)); }
inline __m512d load8(const float* p, __mmask8 m) { return _mm512_maskz_cvtps_pd(kAll, _mm256_maskz_loadu_ps(m, p)); }
inline __m512d widenBf16(__m128i h) {
    return _mm512_maskz_cvtps_pd(kAll, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)));
}
inline __m512d load8(const uint16_t* p) { return widenBf16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline __m512d load8(const uint16_t* p, __mmask8 m) { return widenBf16(_mm_maskz_loadu_epi16(m, p)); }

// The sums of K planes of n values, each one zmm of 8 double lanes (lane l is lane l above).
template <std::size_t K, class T>
void planeSumsAvx512(const T* const* planes, int64_t n, double* out) {
    __m512d acc[K];
    for (std::size_t k = 0; k < K; ++k) acc[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (std::size_t k = 0; k < K; ++k) acc[k] = _mm512_add_pd(acc[k], load8(planes[k] + i));
    if (i < n) {  // the tail into lanes 0, 1, ...; the other lanes keep their sums
        const auto m = static_cast<__mmask8>((1u << (n - i)) - 1u);
        for (std::size_t k = 0; k < K; ++k) acc[k] = _mm512_mask_add_pd(acc[k], m, acc[k], load8(planes[k] + i, m));
    }
    for (std::size_t k = 0; k < K; ++k) {
        double lane[kLanes];
        _mm512_storeu_pd(lane, acc[k]);
        double sum = 0;
        for (double v : lane) sum += v;
        out[k] = sum;
    }
}
#endif

template <class T>
void planeSums(const T* const* planes, int count, int64_t n, bool vectorised, double* out) {
#if defined(OPSCOPE_BIAS_AVX512)
    if (vectorised) {
        switch (count) {
            case 8: return planeSumsAvx512<8>(planes, n, out);
            case 7: return planeSumsAvx512<7>(planes, n, out);
            case 6: return planeSumsAvx512<6>(planes, n, out);
            case 5: return planeSumsAvx512<5>(planes, n, out);
            case 4: return planeSumsAvx512<4>(planes, n, out);
            case 3: return planeSumsAvx512<3>(planes, n, out);
            case 2: return planeSumsAvx512<2>(planes, n, out);
            default: return planeSumsAvx512<1>(planes, n, out);
        }
    }
#else
    (void)vectorised;
#endif
    for (int k = 0; k < count; ++k) out[k] = planeSumPortable(planes[k], n);
}

}  // namespace

template <class T>
void biasSums(const T* dy, int64_t N, int64_t C, int64_t positions, int64_t c0, int64_t c1, float* db,
              bool vectorised) {
    if (N <= 0) {
        std::fill(db + c0, db + c1, 0.f);
        return;
    }
    // The (channel, image) pairs of [c0, c1) in order, kChains planes at a time; each channel's
    // plane sums are added in image order as they come.
    const int64_t pairs = (c1 - c0) * N;
    double sum = 0;
    for (int64_t j = 0; j < pairs; j += kChains) {
        const int count = static_cast<int>(std::min<int64_t>(kChains, pairs - j));
        const T* planes[kChains];
        double planeSum[kChains];
        for (int k = 0; k < count; ++k) {
            const int64_t c = c0 + (j + k) / N, n = (j + k) % N;
            planes[k] = dy + (n * C + c) * positions;
        }
        planeSums(planes, count, positions, vectorised, planeSum);
        for (int k = 0; k < count; ++k) {
            const int64_t c = c0 + (j + k) / N, n = (j + k) % N;
            if (n == 0) sum = 0;
            sum += planeSum[k];
            if (n == N - 1) {
                if (std::isnan(sum)) sum = sumInOrder(dy + c * positions, N, C * positions, positions);
                db[c] = static_cast<float>(sum);
            }
        }
    }
}

template <class T>
void biasGrad(int64_t N, int64_t C, int64_t positions, const T* dy, float* db) {
    const int64_t grain = std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, N * positions));
    parallelFor(0, C, grain, [&](int64_t b, int64_t e) { biasSums(dy, N, C, positions, b, e, db, true); });
}

template void biasSums(const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*, bool);
template void biasSums(const uint16_t*, int64_t, int64_t, int64_t, int64_t, int64_t, float*, bool);
template void biasGrad(int64_t, int64_t, int64_t, const float*, float*);
template void biasGrad(int64_t, int64_t, int64_t, const uint16_t*, float*);

}  // namespace opscope::kernels
