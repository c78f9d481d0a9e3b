// Design: BLIS-style. A is packed into panels of 12 rows and B into panels of 32 columns, both
// along k in k blocks (fp32: 256 values; bf16: 512 values as 256 pairs, an odd k padded with
// zero), so the A panel (12 KiB) and the B panel (32 KiB) of one micro-kernel call stay in
// L1/L2. The 12x32 micro-kernel keeps 24 zmm accumulators; per k step it loads two B vectors,
// broadcasts 12 A values and issues 24 vfmadd (fp32) or vdpbf16ps (bf16, two k per step).
// The two unit-stride operand layouts (rows contiguous, or k contiguous) pack with vector
// loads; others element by element. The operands of the bf16 kind are bf16-exact float32
// values, so taking their high 16 bits is the exact conversion.
#include "packed_gemm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

// (GCC's false -Wmaybe-uninitialized in Eigen and the AVX-512 intrinsics: ops/CMakeLists.txt.)
#include <Eigen/Core>

#if defined(__AVX512F__)
#include <immintrin.h>

#include "simd_transpose.h"
#define OPSCOPE_PACKED_FP32 1
#if defined(__AVX512BF16__) && defined(__AVX512BW__)
#define OPSCOPE_PACKED_BF16 1
#endif
#endif

namespace opscope::kernels {
namespace {

void eigenGemm(int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs, const float* b, int64_t brs,
               int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Strides = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
    using Idx = Eigen::Index;
    const Eigen::Map<const Mat, 0, Strides> A(a, Idx(M), Idx(K), Strides(Idx(ars), Idx(acs)));
    const Eigen::Map<const Mat, 0, Strides> B(b, Idx(K), Idx(N), Strides(Idx(brs), Idx(bcs)));
    Eigen::Map<Mat, 0, Eigen::OuterStride<>> C(c, Idx(M), Idx(N), Eigen::OuterStride<>(Idx(ldc)));
    if (accumulate)
        C.noalias() += A * B;
    else
        C.noalias() = A * B;
}

#ifdef OPSCOPE_PACKED_FP32

constexpr int64_t kMR = 12, kNR = 32;

// k values per packed unit, and per k block.
int64_t kPerUnit(GemmKind kind) { return kind == GemmKind::BFloat16 ? 2 : 1; }
int64_t kBlock(GemmKind kind) { return kind == GemmKind::BFloat16 ? 512 : 256; }
int64_t unitsOf(GemmKind kind, int64_t kc) { return (kc + kPerUnit(kind) - 1) / kPerUnit(kind); }

inline __mmask16 firstLanes(int64_t n) {
    return n >= 16  ? static_cast<__mmask16>(0xFFFF)
           : n <= 0 ? static_cast<__mmask16>(0)
                    : static_cast<__mmask16>((1u << n) - 1);
}

// The first n of 16 lanes: plain loads and stores for full vectors, the common case (masked
// stores are much slower on Zen 4 even with every lane set), masked ones for the tails.
inline __m512 loadFirst(const float* p, int64_t n) {
    return n >= 16 ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(firstLanes(n), p);
}
inline void storeFirst(float* p, int64_t n, __m512 v) {
    if (n >= 16)
        _mm512_storeu_ps(p, v);
    else
        _mm512_mask_storeu_ps(p, firstLanes(n), v);
}
inline void storeFirst(uint32_t* p, int64_t n, __m512i v) {
    if (n >= 16)
        _mm512_storeu_si512(p, v);
    else
        _mm512_mask_storeu_epi32(p, firstLanes(n), v);
}

inline uint32_t bitsOf(float v) {
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}

// One packed unit of a row at k (bf16: the pair k, k+1; `last` says k+1 is past the block).
template <GemmKind Kind>
inline uint32_t unitOf(const float* atK, int64_t ks, bool last) {
    if constexpr (Kind == GemmKind::BFloat16)
        return (bitsOf(atK[0]) >> 16) | (last ? 0u : bitsOf(atK[ks]) & 0xFFFF0000u);
    else
        return bitsOf(atK[0]);
}

// Units of 16 rows at k (rows contiguous): fp32 the values; bf16 the pairs (k, k+1).
template <GemmKind Kind>
inline __m512i unitsAcrossRows(int64_t live, const float* atK, const float* atK1) {
    const __m512i lo = _mm512_castps_si512(loadFirst(atK, live));
    if constexpr (Kind == GemmKind::Float32) {
        return lo;
    } else {
        const __m512i hi = atK1 ? _mm512_castps_si512(loadFirst(atK1, live)) : _mm512_setzero_si512();
        return _mm512_or_si512(_mm512_srli_epi32(lo, 16),
                               _mm512_and_si512(hi, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
    }
}

// 16 units of one row from consecutive k (k contiguous), `left` values remaining in the block.
template <GemmKind Kind>
inline __m512i unitsAlongK(const float* row, int64_t left) {
    if constexpr (Kind == GemmKind::Float32) {
        return _mm512_castps_si512(loadFirst(row, left));
    } else {
#ifdef OPSCOPE_PACKED_BF16
        const __m512 lo = loadFirst(row, left);
        const __m512 hi = left > 16 ? loadFirst(row + 16, left - 16) : _mm512_setzero_ps();
        return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);  // exact: the values are bf16-representable
#else
        (void)row, (void)left;
        return _mm512_setzero_si512();
#endif
    }
}

#ifdef OPSCOPE_PACKED_BF16
// The same three from bf16 storage (the bits of each value): a unit is the pair (k, k+1), k in
// the low half, exactly what the float32 versions extract.
template <GemmKind Kind>
inline uint32_t unitOf(const uint16_t* atK, int64_t ks, bool last) {
    static_assert(Kind == GemmKind::BFloat16, "bf16 storage feeds the bf16 kind only");
    return atK[0] | (last ? 0u : static_cast<uint32_t>(atK[ks]) << 16);
}

template <GemmKind Kind>
inline __m512i unitsAcrossRows(int64_t live, const uint16_t* atK, const uint16_t* atK1) {
    static_assert(Kind == GemmKind::BFloat16, "bf16 storage feeds the bf16 kind only");
    auto load = [live](const uint16_t* p) {
        return _mm512_cvtepu16_epi32(live >= 16 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                                                : _mm256_maskz_loadu_epi16(firstLanes(live), p));
    };
    const __m512i lo = load(atK);
    if (!atK1) return lo;
    const __m512i hi = load(atK1);
    return _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
}

// 32 full units of rows k and k+1 (32 columns each): the two rows' values interleaved by two
// permutes, the units unitsAcrossRows builds for 16 columns at a time.
inline void interleaveRows(const uint16_t* atK, const uint16_t* atK1, uint32_t* dst) {
    alignas(64) static constexpr uint16_t kIdx[2][32] = {
        {0, 32, 1, 33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
         8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47},
        {16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
         24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63}};
    const __m512i a = _mm512_loadu_si512(atK), b = _mm512_loadu_si512(atK1);
    _mm512_storeu_si512(dst, _mm512_permutex2var_epi16(a, _mm512_load_si512(kIdx[0]), b));
    _mm512_storeu_si512(dst + 16, _mm512_permutex2var_epi16(a, _mm512_load_si512(kIdx[1]), b));
}

template <GemmKind Kind>
inline __m512i unitsAlongK(const uint16_t* row, int64_t left) {  // 32 consecutive values are 16 pairs
    static_assert(Kind == GemmKind::BFloat16, "bf16 storage feeds the bf16 kind only");
    if (left >= 32) return _mm512_loadu_si512(row);
    return _mm512_maskz_loadu_epi16(left <= 0 ? __mmask32{0} : (__mmask32{1} << left) - 1, row);
}
#endif

// Where packed units go: unit u of row r at panel[u*R + r]; or, for the Float32Fmas engine of
// the BFloat16 kind (Wide), the pair's two values as float32 slots, k+1 first (the order
// vdpbf16ps adds them in): panel[2u*R + r] = value at k+1, panel[(2u+1)*R + r] = value at k.
template <int64_t R, bool Wide>
inline void putUnits(uint32_t* panel, int64_t u, int64_t r, int64_t n, __m512i units) {
    if constexpr (Wide) {
        storeFirst(panel + 2 * u * R + r, n, _mm512_and_si512(units, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
        storeFirst(panel + (2 * u + 1) * R + r, n, _mm512_slli_epi32(units, 16));
    } else {
        storeFirst(panel + u * R + r, n, units);
    }
}

template <int64_t R, bool Wide>
inline void putUnit(uint32_t* panel, int64_t u, int64_t r, uint32_t unit) {
    if constexpr (Wide) {
        panel[2 * u * R + r] = unit & 0xFFFF0000u;
        panel[(2 * u + 1) * R + r] = unit << 16;
    } else {
        panel[u * R + r] = unit;
    }
}

// Rows [0, rows) x k [k0, k0 + kc) of m (element (r, k) at m[r*s + k*ks]) into panels of R rows
// (putUnits' layout), zero past the end.
template <GemmKind Kind, int64_t R, bool Wide = false, class T>
void pack(int64_t rows, int64_t k0, int64_t kc, const T* m, int64_t s, int64_t ks, uint32_t* out) {
    static_assert(!Wide || Kind == GemmKind::BFloat16, "only bf16 pairs widen");
    constexpr int64_t per = Kind == GemmKind::BFloat16 ? 2 : 1;
    const int64_t units = (kc + per - 1) / per;
    for (int64_t r0 = 0; r0 < rows; r0 += R) {
        uint32_t* panel = out + (r0 / R) * units * R * (Wide ? 2 : 1);
        const int64_t live = std::min(R, rows - r0);
        if (s == 1) {
            for (int64_t u = 0; u < units; ++u) {
                const T* atK = m + r0 + (k0 + per * u) * ks;
                const T* atK1 = per * u + 1 < kc ? atK + ks : nullptr;
#ifdef OPSCOPE_PACKED_BF16
                if constexpr (std::is_same_v<T, uint16_t> && R == 32 && !Wide) {
                    if (live == R && atK1) {
                        interleaveRows(atK, atK1, panel + u * R);
                        continue;
                    }
                }
#endif
                for (int64_t q = 0; q < R; q += 16)
                    putUnits<R, Wide>(panel, u, q, R - q,
                                      unitsAcrossRows<Kind>(live - q, atK + q, atK1 ? atK1 + q : nullptr));
            }
            continue;
        }
        if (ks == 1) {  // 16 rows x 16 units at a time, transposed in registers
            for (int64_t q = 0; q < R; q += 16)
                for (int64_t u0 = 0; u0 < units; u0 += 16) {
                    __m512i v[16];
                    for (int64_t r = 0; r < 16; ++r)
                        v[r] = q + r < live ? unitsAlongK<Kind>(m + (r0 + q + r) * s + k0 + per * u0, kc - per * u0)
                                            : _mm512_setzero_si512();
                    transpose16x16(v);
                    const int64_t n = std::min<int64_t>(16, units - u0);
                    for (int64_t j = 0; j < n; ++j) putUnits<R, Wide>(panel, u0 + j, q, R - q, v[j]);
                }
            continue;
        }
        for (int64_t r = 0; r < R; ++r) {  // neither stride 1: element by element
            const T* row = m + (r0 + r) * s + k0 * ks;
            for (int64_t u = 0; u < units; ++u)
                putUnit<R, Wide>(panel, u, r, r < live ? unitOf<Kind>(row + per * u * ks, ks, per * u + 1 >= kc) : 0u);
        }
    }
}

template <GemmKind Kind>
inline __m512 step(__m512 acc, __m512i a, __m512i b) {
    if constexpr (Kind == GemmKind::Float32) {
        return _mm512_fmadd_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), acc);
    } else {
#ifdef OPSCOPE_PACKED_BF16
        return _mm512_dpbf16_ps(acc, (__m512bh)a, (__m512bh)b);
#else
        (void)a, (void)b;
        return acc;
#endif
    }
}

// C[mr x nr] = or += the 12x32 sums (rows past mr, columns past nr dropped).
// c + sum, c's NaN kept where both are NaN: vaddps with c as its first source, pinned in asm
// because the compiler may commute the operands (then each kernel would keep a different NaN).
inline __m512 addToC(__m512 c, __m512 sum) {
    asm("vaddps %[sum], %[c], %[c]" : [c] "+v"(c) : [sum] "v"(sum));
    return c;
}

inline void storeTile(const __m512 acc[kMR][2], float* c, int64_t ldc, int64_t mr, int64_t nr, bool accumulate) {
    for (int64_t r = 0; r < mr; ++r) {
        float* cr = c + r * ldc;
        __m512 v0 = acc[r][0], v1 = acc[r][1];
        if (accumulate) {
            v0 = addToC(loadFirst(cr, nr), v0);
            v1 = addToC(loadFirst(cr + 16, nr - 16), v1);
        }
        storeFirst(cr, nr, v0);
        storeFirst(cr + 16, nr - 16, v1);
    }
}

// acc + a·b with vdpbf16ps's choice among NaNs (a's, else b's, else acc's): vfmadd231ps with a as
// its second source, pinned in asm because the compiler may commute a and b or pick another form.
inline __m512 fmaLikeDot(__m512 acc, __m512 a, __m512 b) {
    asm("vfmadd231ps %[b], %[a], %[acc]" : [acc] "+v"(acc) : [a] "v"(a), [b] "v"(b));
    return acc;
}

// The 12x32 sums of a packed A panel (units x 12) and a packed B panel (units x 32); `DotOnFmas`
// runs float32 units with fmaLikeDot (the Float32Fmas engine of the BFloat16 kind).
template <GemmKind Kind, int64_t Rows, bool DotOnFmas = false>
inline void sumUnits(int64_t units, const uint32_t* pa, const uint32_t* pb, __m512 acc[kMR][2]) {
    for (int64_t u = 0; u < units; ++u) {
        const __m512i b0 = _mm512_loadu_si512(pb + u * kNR);
        const __m512i b1 = _mm512_loadu_si512(pb + u * kNR + 16);
        const uint32_t* ap = pa + u * kMR;
        for (int64_t r = 0; r < Rows; ++r) {
            const __m512i av = _mm512_set1_epi32(static_cast<int>(ap[r]));
            if constexpr (DotOnFmas) {
                acc[r][0] = fmaLikeDot(acc[r][0], _mm512_castsi512_ps(av), _mm512_castsi512_ps(b0));
                acc[r][1] = fmaLikeDot(acc[r][1], _mm512_castsi512_ps(av), _mm512_castsi512_ps(b1));
            } else {
                acc[r][0] = step<Kind>(acc[r][0], av, b0);
                acc[r][1] = step<Kind>(acc[r][1], av, b1);
            }
        }
    }
}

template <int64_t Rows>
inline void zeroTile(__m512 acc[kMR][2]) {
    for (int64_t r = 0; r < Rows; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
}

// C[mr x nr] (+)= packed A panel (units x 12) . packed B panel (units x 32).
template <GemmKind Kind, int64_t Rows>
void microKernel(int64_t units, const uint32_t* pa, const uint32_t* pb, float* c, int64_t ldc, int64_t mr, int64_t nr,
                 bool accumulate) {
    __m512 acc[kMR][2];
    zeroTile<Rows>(acc);
    sumUnits<Kind, Rows>(units, pa, pb, acc);
    storeTile(acc, c, ldc, mr, nr, accumulate);
}

// --- The Float32Fmas engine of the BFloat16 kind (packed_gemm.h) ---
// Its panels hold each pair as two float32 slots, k+1 first (pack<..., Wide>): the order
// vdpbf16ps adds its two products in, so two FMAs per pair give its bits.

// vdpbf16ps ignores MXCSR: it always rounds to nearest even, flushes denormal inputs and
// results (as DAZ and FTZ do) and raises nothing. The stand-in FMAs run in exactly that mode,
// whatever the caller's (a rounding mode or unmasked exceptions of its own), and the caller's
// mode and flags come back before anything else (storeTile's addition). The compiler does not
// see ldmxcsr as a dependency of arithmetic: empty asm statements pin the accumulators on each
// side of it.
constexpr unsigned kDotProductMode = 0x8000u | 0x1F80u | 0x0040u;  // FTZ, all exceptions masked, DAZ, nearest

template <int64_t Rows>
inline void pinTile(__m512 acc[kMR][2]) {
    for (int64_t r = 0; r < Rows; ++r) asm volatile("" : "+v"(acc[r][0]), "+v"(acc[r][1]));
}

// Zeroes the sums and enters vdpbf16ps's mode; returns the caller's for leaveFlushed. (Plain
// functions, not an RAII guard: a guard holding a pointer to the sums keeps them in memory.)
template <int64_t Rows>
inline unsigned enterFlushed(__m512 acc[kMR][2]) {
    zeroTile<Rows>(acc);
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(kDotProductMode);
    pinTile<Rows>(acc);
    return csr;
}

template <int64_t Rows>
inline void leaveFlushed(unsigned csr, __m512 acc[kMR][2]) {
    pinTile<Rows>(acc);
    _mm_setcsr(csr);
    pinTile<Rows>(acc);
}

// microKernel<BFloat16>'s bits from widened panels (2 x units slots).
template <int64_t Rows>
void microKernelFmas(int64_t units, const uint32_t* pa, const uint32_t* pb, float* c, int64_t ldc, int64_t mr,
                     int64_t nr, bool accumulate) {
    __m512 acc[kMR][2];
    const unsigned csr = enterFlushed<Rows>(acc);
    sumUnits<GemmKind::Float32, Rows, true>(2 * units, pa, pb, acc);
    leaveFlushed<Rows>(csr, acc);
    storeTile(acc, c, ldc, mr, nr, accumulate);
}

// One unit of A read in place at `at`: fp32 the value; bf16 the pair (at[0], at[1]), or
// (at[0], 0) for the half unit at the end of an odd k block.
template <GemmKind Kind>
inline __m512i unitAt(const float* at, bool half) {
    if constexpr (Kind == GemmKind::Float32) {
        (void)half;
        return _mm512_castps_si512(_mm512_set1_ps(at[0]));
    } else {
        return _mm512_set1_epi32(static_cast<int>(unitOf<Kind>(at, 1, half)));
    }
}
#ifdef OPSCOPE_PACKED_BF16
template <GemmKind Kind>
inline __m512i unitAt(const uint16_t* at, bool half) {
    static_assert(Kind == GemmKind::BFloat16, "bf16 storage feeds the bf16 kind only");
    if (half) return _mm512_set1_epi32(at[0]);
    uint32_t pair;  // k in the low half: the unit unitOf builds
    std::memcpy(&pair, at, sizeof pair);
    return _mm512_set1_epi32(static_cast<int>(pair));
}
#endif

// The same product with A read in place: A(r, k) at rows[r] + kIndex[k] (rows past mr repeat
// row mr-1; their sums are not stored). Each element's sum is the same chain of steps as
// microKernel's, so the same bits as packing A first.
// Run > 1: the rows come in runs of Run consecutive offsets (row r at runs[r / Run] + r % Run:
// the taps along one axis of a window, or the positions along one output row), so the kernel
// holds 12 / Run pointers and reaches the other rows by a constant displacement. With 12 row
// pointers the loop runs out of general registers and spills them to vector registers, whose
// moves back take the FMA ports (measured: 120-130 GFLOP/s in L1 against the packed kernel's 165).
template <GemmKind Kind, int64_t Rows, int64_t Run, class T>
void microKernelInPlaceA(int64_t units, bool halfLast, const T* a, const int64_t* rowOffset, const int32_t* kIndex,
                         const uint32_t* pb, float* c, int64_t ldc, int64_t mr, int64_t nr, bool accumulate) {
    static_assert(Rows % Run == 0, "runs tile the panel");
    constexpr int64_t kRuns = Rows / Run;
    const T* runs[static_cast<std::size_t>(kRuns)];
    for (int64_t g = 0; g < kRuns; ++g) runs[g] = a + rowOffset[std::min(g * Run, mr - 1)];
    __m512 acc[kMR][2];
    zeroTile<Rows>(acc);
    for (int64_t u = 0; u < units; ++u) {
        const __m512i b0 = _mm512_loadu_si512(pb + u * kNR);
        const __m512i b1 = _mm512_loadu_si512(pb + u * kNR + 16);
        const bool half = halfLast && u + 1 == units;
        const int64_t at = kIndex[u * kPerUnit(Kind)];
        for (int64_t r = 0; r < Rows; ++r) {
            const __m512i av = unitAt<Kind>(runs[r / Run] + at + r % Run, half);
            acc[r][0] = step<Kind>(acc[r][0], av, b0);
            acc[r][1] = step<Kind>(acc[r][1], av, b1);
        }
    }
    storeTile(acc, c, ldc, mr, nr, accumulate);
}

// Runs `kernel` with the longest run (12, 4 or 3 rows; else 1) that every row of a full 12-row
// panel keeps, as withRows picks the rows: a short panel (mr < 12) repeats row mr-1 past its end,
// so it stays general.
template <class Kernel>
inline void withRowRun(const int64_t* rowOffset, int64_t mr, Kernel&& kernel) {
    auto holds = [&](int64_t run) {
        if (mr != kMR) return false;  // rowOffset has only mr rows here
        for (int64_t r = 0; r < kMR; ++r)
            if (rowOffset[r] != rowOffset[r - r % run] + r % run) return false;
        return true;
    };
    if (holds(kMR)) return kernel(std::integral_constant<int64_t, kMR>{});
    if (holds(4)) return kernel(std::integral_constant<int64_t, 4>{});
    if (holds(3)) return kernel(std::integral_constant<int64_t, 3>{});
    kernel(std::integral_constant<int64_t, 1>{});
}

#ifdef OPSCOPE_PACKED_BF16
// A's pair at `at` split into its two values (k+1, k) as float32 broadcasts; the half unit at the
// end of an odd k block has no k+1 (zero, as in its packed unit).
inline void splitPair(const float* at, bool half, __m512& hi, __m512& lo) {
    hi = half ? _mm512_setzero_ps() : _mm512_set1_ps(at[1]);
    lo = _mm512_set1_ps(at[0]);
}
inline void splitPair(const uint16_t* at, bool half, __m512& hi, __m512& lo) {
    uint32_t pair = at[0];  // k in the low half, as unitAt reads it
    if (!half) std::memcpy(&pair, at, sizeof pair);
    const __m512i p = _mm512_set1_epi32(static_cast<int>(pair));
    hi = _mm512_castsi512_ps(_mm512_and_si512(p, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
    lo = _mm512_castsi512_ps(_mm512_slli_epi32(p, 16));
}

// Units [u0, u0 + n) (n <= 16) of bf16-storage rows, each pair at row + kIndex[2u], split into
// float32 slots: split[r][0][i] the value at k+1, split[r][1][i] the value at k. One load per row
// where the pairs follow each other, else one gather; then one and and one shift for 16 units
// (splitPair spends both per unit, on the ports the FMAs need).
template <int64_t Rows>
void splitUnits(const uint16_t* const rows[kMR], const int32_t* kIndex, int64_t n, float split[kMR][2][16]) {
    alignas(64) static constexpr int32_t kEven[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
    const __mmask16 live = firstLanes(n);
    const __m512i even = _mm512_load_si512(kEven);
    const __m512i idx = _mm512_permutex2var_epi32(_mm512_maskz_loadu_epi32(firstLanes(2 * n), kIndex), even,
                                                  _mm512_maskz_loadu_epi32(firstLanes(2 * n - 16), kIndex + 16));
    const __m512i consecutiveIdx = _mm512_add_epi32(_mm512_set1_epi32(kIndex[0]), even);
    const bool consecutive = _mm512_mask_cmpneq_epi32_mask(live, idx, consecutiveIdx) == 0;
    const __mmask32 halves = n >= 16 ? ~__mmask32{0} : (__mmask32{1} << (2 * n)) - 1;
    const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
    for (int64_t r = 0; r < Rows; ++r) {
        const __m512i pairs = consecutive ? _mm512_maskz_loadu_epi16(halves, rows[r] + kIndex[0])
                                          : _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), live, idx, rows[r], 2);
        _mm512_store_si512(split[r][0], _mm512_and_si512(pairs, high));
        _mm512_store_si512(split[r][1], _mm512_slli_epi32(pairs, 16));
    }
}

// The whole units [0, whole) of microKernelInPlaceAFmas from bf16 storage, 16 at a time through
// splitUnits: the inner loop then broadcasts A's values from memory, as the packed kernel does.
template <int64_t Rows>
void sumBf16RowsOnFmas(int64_t whole, const uint16_t* const rows[kMR], const int32_t* kIndex, const uint32_t* pb,
                       __m512 acc[kMR][2]) {
    alignas(64) float split[kMR][2][16];
    for (int64_t u0 = 0; u0 < whole; u0 += 16) {
        const int64_t n = std::min<int64_t>(16, whole - u0);
        splitUnits<Rows>(rows, kIndex + 2 * u0, n, split);
        for (int64_t i = 0; i < n; ++i) {
            const float* bu = reinterpret_cast<const float*>(pb + 2 * (u0 + i) * kNR);
            const __m512 h0 = _mm512_loadu_ps(bu), h1 = _mm512_loadu_ps(bu + 16);
            const __m512 l0 = _mm512_loadu_ps(bu + kNR), l1 = _mm512_loadu_ps(bu + kNR + 16);
            for (int64_t r = 0; r < Rows; ++r) {
                const __m512 hi = _mm512_set1_ps(split[r][0][i]), lo = _mm512_set1_ps(split[r][1][i]);
                acc[r][0] = fmaLikeDot(fmaLikeDot(acc[r][0], hi, h0), lo, l0);
                acc[r][1] = fmaLikeDot(fmaLikeDot(acc[r][1], hi, h1), lo, l1);
            }
        }
    }
}

// microKernelInPlaceA<BFloat16>'s bits on the FMAs, from a widened B panel (2 x units slots).
template <int64_t Rows, class T>
void microKernelInPlaceAFmas(int64_t units, bool halfLast, const T* a, const int64_t* rowOffset, const int32_t* kIndex,
                             const uint32_t* pb, float* c, int64_t ldc, int64_t mr, int64_t nr, bool accumulate) {
    const T* rows[kMR];
    for (int64_t r = 0; r < Rows; ++r) rows[r] = a + rowOffset[std::min(r, mr - 1)];
    __m512 acc[kMR][2];
    auto sumUnit = [&](int64_t u, bool half) {
        const float* bu = reinterpret_cast<const float*>(pb + 2 * u * kNR);
        const __m512 h0 = _mm512_loadu_ps(bu), h1 = _mm512_loadu_ps(bu + 16);
        const __m512 l0 = _mm512_loadu_ps(bu + kNR), l1 = _mm512_loadu_ps(bu + kNR + 16);
        const int64_t at = kIndex[2 * u];
        for (int64_t r = 0; r < Rows; ++r) {
            __m512 hi, lo;
            splitPair(rows[r] + at, half, hi, lo);
            acc[r][0] = fmaLikeDot(fmaLikeDot(acc[r][0], hi, h0), lo, l0);
            acc[r][1] = fmaLikeDot(fmaLikeDot(acc[r][1], hi, h1), lo, l1);
        }
    };
    const unsigned csr = enterFlushed<Rows>(acc);
    const int64_t whole = halfLast ? units - 1 : units;
    if constexpr (std::is_same_v<T, uint16_t>) {
        sumBf16RowsOnFmas<Rows>(whole, rows, kIndex, pb, acc);
    } else {
        for (int64_t u = 0; u < whole; ++u) sumUnit(u, false);
    }
    if (halfLast) sumUnit(whole, true);
    leaveFlushed<Rows>(csr, acc);
    storeTile(acc, c, ldc, mr, nr, accumulate);
}
#endif

// Runs `kernel` with the fewest rows (4, 8 or 12) that cover mr: a short last panel (M = 64 is 5
// panels and 4 rows) then costs a third of a full one. Rows never change an element's sum.
template <class Kernel>
inline void withRows(int64_t mr, Kernel&& kernel) {
    if (mr <= 4)
        kernel(std::integral_constant<int64_t, 4>{});
    else if (mr <= 8)
        kernel(std::integral_constant<int64_t, 8>{});
    else
        kernel(std::integral_constant<int64_t, kMR>{});
}

// B's k block [k0, k0 + kc) into panels of 32 columns, widened for the FMAs when `fmas`. The
// products pack one panel at a time, right before the micro-kernels that read it: it is then
// still in L1 (a whole block of B packed first went out to L3 and came back once per panel).
template <GemmKind Kind, class T>
void packB(int64_t N, int64_t k0, int64_t kc, const T* b, int64_t brs, int64_t bcs, bool fmas,
           std::vector<uint32_t>& pb) {
    const int64_t slots = (N + kNR - 1) / kNR * unitsOf(Kind, kc) * kNR;
    pb.resize(static_cast<std::size_t>(fmas ? 2 * slots : slots));
    if constexpr (Kind == GemmKind::BFloat16) {
        if (fmas) return pack<Kind, kNR, true>(N, k0, kc, b, bcs, brs, pb.data());
    }
    pack<Kind, kNR>(N, k0, kc, b, bcs, brs, pb.data());
}

// The blocking both products share, so that their sums have the same steps (and bits): k blocks
// of kBlock(Kind) values, then 32-column panels of B, each packed right before the row panels
// that read it. tile(k0, units, bp, ip, jp, mr, nr, acc) runs one micro-kernel.
template <GemmKind Kind, class T, class Tile>
void forEachTile(int64_t M, int64_t N, int64_t K, const T* b, int64_t brs, int64_t bcs, bool fmas, bool accumulate,
                 Tile&& tile) {
    thread_local std::vector<uint32_t> pb;
    const int64_t mPanels = (M + kMR - 1) / kMR, nPanels = (N + kNR - 1) / kNR, kb = kBlock(Kind);
    for (int64_t k0 = 0; k0 < K; k0 += kb) {
        const int64_t kc = std::min(kb, K - k0), units = unitsOf(Kind, kc);
        const bool acc = accumulate || k0 > 0;
        for (int64_t jp = 0; jp < nPanels; ++jp) {
            const int64_t nr = std::min(kNR, N - jp * kNR);
            packB<Kind>(nr, k0, kc, b + jp * kNR * bcs, brs, bcs, fmas, pb);
            for (int64_t ip = 0; ip < mPanels; ++ip)
                tile(k0, units, pb.data(), ip, jp, std::min(kMR, M - ip * kMR), nr, acc);
        }
    }
}

template <GemmKind Kind, class T>
void packedProduct(const uint32_t* packedA, const std::vector<int64_t>& blocks, bool fmas, int64_t M, int64_t K,
                   int64_t N, const T* b, int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    const int64_t slots = fmas ? 2 : 1;  // per unit
    forEachTile<Kind>(
        M, N, K, b, brs, bcs, fmas, accumulate,
        [&](int64_t k0, int64_t units, const uint32_t* bp, int64_t ip, int64_t jp, int64_t mr, int64_t nr, bool acc) {
            const uint32_t* ap =
                packedA + blocks[static_cast<std::size_t>(k0 / kBlock(Kind))] + ip * slots * units * kMR;
            float* cp = c + ip * kMR * ldc + jp * kNR;
            withRows(mr, [&](auto rows) {
                constexpr int64_t Rows = decltype(rows)::value;
                if (fmas)
                    microKernelFmas<Rows>(units, ap, bp, cp, ldc, mr, nr, acc);
                else
                    microKernel<Kind, Rows>(units, ap, bp, cp, ldc, mr, nr, acc);
            });
        });
}

// C (+)= A · B with A read in place (A(i, k) = a[rowOffset[i] + kIndex[k]]): packedProduct's
// blocking and steps, so the same bits.
template <GemmKind Kind, class T>
void productInPlaceA(int64_t M, int64_t N, int64_t K, const T* a, const int64_t* rowOffset, const int32_t* kIndex,
                     const T* b, int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    const bool fmas = Kind == GemmKind::BFloat16 && bf16Engine() == Bf16Engine::Float32Fmas;
    forEachTile<Kind>(
        M, N, K, b, brs, bcs, fmas, accumulate,
        [&](int64_t k0, int64_t units, const uint32_t* bp, int64_t ip, int64_t jp, int64_t mr, int64_t nr, bool acc) {
            const bool halfLast = kPerUnit(Kind) == 2 && std::min(kBlock(Kind), K - k0) % 2 == 1;
            const int64_t* rowsAt = rowOffset + ip * kMR;
            float* cp = c + ip * kMR * ldc + jp * kNR;
            withRows(mr, [&](auto rows) {
                constexpr int64_t Rows = decltype(rows)::value;
#ifdef OPSCOPE_PACKED_BF16
                if (fmas)
                    return microKernelInPlaceAFmas<Rows>(units, halfLast, a, rowsAt, kIndex + k0, bp, cp, ldc, mr, nr,
                                                         acc);
#endif
                auto kernel = [&](auto run) {
                    microKernelInPlaceA<Kind, Rows, decltype(run)::value>(units, halfLast, a, rowsAt, kIndex + k0, bp,
                                                                          cp, ldc, mr, nr, acc);
                };
                if constexpr (Rows == kMR)
                    withRowRun(rowsAt, mr, kernel);
                else
                    kernel(std::integral_constant<int64_t, 1>{});
            });
        });
}

#endif  // OPSCOPE_PACKED_FP32

}  // namespace

bool packedGemmAvailable(GemmKind kind) {
#if defined(OPSCOPE_PACKED_BF16)
    (void)kind;
    return true;
#elif defined(OPSCOPE_PACKED_FP32)
    return kind == GemmKind::Float32;
#else
    (void)kind;
    return false;
#endif
}

const char* gemmDescription(GemmKind kind) {
    if (kind == GemmKind::BFloat16) {
        if (!packedGemmAvailable(kind)) return "float32 (Eigen; no AVX512-BF16)";
        return bf16Engine() == Bf16Engine::Float32Fmas ? "bf16 pairs on float32 FMAs (the bits of AVX512-BF16)"
                                                       : "bf16 dot products (AVX512-BF16)";
    }
    return packedGemmAvailable(kind) ? "float32 (AVX-512)" : "float32 (Eigen)";
}

bool bf16StorageAvailable() {
#ifdef OPSCOPE_PACKED_BF16
    return true;
#else
    return false;
#endif
}

void PackedA::pack(GemmKind kind, int64_t M, int64_t K, const float* a, int64_t ars, int64_t acs) {
    kind_ = kind;
    a_ = a;
    ars_ = ars;
    acs_ = acs;
    packBlocks(M, K, a, ars, acs);
}

void PackedA::pack(GemmKind kind, int64_t M, int64_t K, const uint16_t* a, int64_t ars, int64_t acs) {
    if (kind != GemmKind::BFloat16 || !bf16StorageAvailable())
        throw std::logic_error("bf16 storage operands need the BFloat16 kind on the AVX512-BF16 kernel");
    kind_ = kind;
    a_ = nullptr;
    packBlocks(M, K, a, ars, acs);
}

template <class T>
void PackedA::packBlocks(int64_t M, int64_t K, const T* a, int64_t ars, int64_t acs) {
    M_ = std::max<int64_t>(0, M);
    K_ = std::max<int64_t>(0, K);
    blocks_.clear();
    data_.clear();  // keeps its capacity
    fmas_ = false;
    if (!packedGemmAvailable(kind_)) return;
#ifdef OPSCOPE_PACKED_FP32
    fmas_ = kind_ == GemmKind::BFloat16 && bf16Engine() == Bf16Engine::Float32Fmas;
    const int64_t mPanels = (M_ + kMR - 1) / kMR, kb = kBlock(kind_), slots = fmas_ ? 2 : 1;
    for (int64_t k0 = 0; k0 < K_; k0 += kb) {
        blocks_.push_back(static_cast<int64_t>(data_.size()));
        const int64_t units = unitsOf(kind_, std::min(kb, K_ - k0));
        data_.resize(data_.size() + static_cast<std::size_t>(slots * mPanels * units * kMR));
    }
    for (std::size_t blk = 0; blk < blocks_.size(); ++blk) {
        const int64_t k0 = static_cast<int64_t>(blk) * kb, kc = std::min(kb, K_ - k0);
        uint32_t* out = data_.data() + blocks_[blk];
        if constexpr (std::is_same_v<T, float>) {
            if (kind_ == GemmKind::Float32) {
                ::opscope::kernels::pack<GemmKind::Float32, kMR>(M_, k0, kc, a, ars, acs, out);
                continue;
            }
        }
#ifdef OPSCOPE_PACKED_BF16
        if (!fmas_) {
            ::opscope::kernels::pack<GemmKind::BFloat16, kMR>(M_, k0, kc, a, ars, acs, out);
            continue;
        }
        ::opscope::kernels::pack<GemmKind::BFloat16, kMR, true>(M_, k0, kc, a, ars, acs, out);
#endif
    }
#else
    (void)a, (void)ars, (void)acs;
#endif
}

namespace {

// C = or += A · B on the packed kernel (the caller checked that it is available for A's kind).
template <class T>
void packedGemm(const PackedA& a, const uint32_t* packedA, const std::vector<int64_t>& blocks, int64_t N, const T* b,
                int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate) {
#ifdef OPSCOPE_PACKED_FP32
    const int64_t M = a.rows(), K = a.depth();
    if constexpr (std::is_same_v<T, float>) {
        if (a.kind() == GemmKind::Float32) {
            packedProduct<GemmKind::Float32>(packedA, blocks, false, M, K, N, b, brs, bcs, c, ldc, accumulate);
            return;
        }
    }
#ifdef OPSCOPE_PACKED_BF16
    packedProduct<GemmKind::BFloat16>(packedA, blocks, a.onFmas(), M, K, N, b, brs, bcs, c, ldc, accumulate);
#endif
#else
    (void)a, (void)packedA, (void)blocks, (void)N, (void)b, (void)brs, (void)bcs, (void)c, (void)ldc, (void)accumulate;
#endif
}

// Writes C for an empty product; true when there is nothing (more) to do.
bool trivialProduct(const PackedA& a, int64_t N, float* c, int64_t ldc, bool accumulate) {
    const int64_t M = a.rows(), K = a.depth();
    if (M <= 0 || N <= 0) return true;
    if (K > 0) return false;
    if (!accumulate)
        for (int64_t i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, 0.0f);
    return true;
}

}  // namespace

void gemm(const PackedA& a, int64_t N, const float* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
          bool accumulate) {
    if (trivialProduct(a, N, c, ldc, accumulate)) return;
    if (!packedGemmAvailable(a.kind_)) {
        eigenGemm(a.M_, N, a.K_, a.a_, a.ars_, a.acs_, b, brs, bcs, c, ldc, accumulate);
        return;
    }
    packedGemm(a, a.data_.data(), a.blocks_, N, b, brs, bcs, c, ldc, accumulate);
}

void gemm(const PackedA& a, int64_t N, const uint16_t* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
          bool accumulate) {
    if (a.kind_ != GemmKind::BFloat16 || !bf16StorageAvailable())
        throw std::logic_error("bf16 storage operands need the AVX512-BF16 kernel and a bf16 A");
    if (trivialProduct(a, N, c, ldc, accumulate)) return;
    packedGemm(a, a.data_.data(), a.blocks_, N, b, brs, bcs, c, ldc, accumulate);
}

void gemm(GemmKind kind, int64_t M, int64_t N, int64_t K, const float* a, int64_t ars, int64_t acs, const float* b,
          int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    thread_local PackedA packed;
    packed.pack(kind, M, K, a, ars, acs);
    gemm(packed, N, b, brs, bcs, c, ldc, accumulate);
}

void gemmBf16Storage(GemmKind kind, int64_t M, int64_t N, int64_t K, const uint16_t* a, int64_t ars, int64_t acs,
                     const uint16_t* b, int64_t brs, int64_t bcs, float* c, int64_t ldc, bool accumulate) {
    thread_local PackedA packed;
    packed.pack(kind, M, K, a, ars, acs);
    gemm(packed, N, b, brs, bcs, c, ldc, accumulate);
}

namespace {

// A (M x K) gathered from its in-place layout into rows, for builds without the packed kernel.
template <class T>
std::vector<float> gatherA(int64_t M, int64_t K, const T* a, const int64_t* rowOffset, const int32_t* kIndex) {
    std::vector<float> out(static_cast<std::size_t>(M * K));
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k) {
            const T v = a[rowOffset[i] + kIndex[k]];
            if constexpr (std::is_same_v<T, float>) {
                out[static_cast<std::size_t>(i * K + k)] = v;
            } else {
                const uint32_t u = static_cast<uint32_t>(v) << 16;
                std::memcpy(&out[static_cast<std::size_t>(i * K + k)], &u, sizeof u);
            }
        }
    return out;
}

}  // namespace

void gemmInPlaceA(GemmKind kind, int64_t M, int64_t N, int64_t K, const float* a, const int64_t* rowOffset,
                  const int32_t* kIndex, const float* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
                  bool accumulate) {
    if (M <= 0 || N <= 0 || K <= 0 || !packedGemmAvailable(kind)) {
        const std::vector<float> rows = gatherA(std::max<int64_t>(0, M), std::max<int64_t>(0, K), a, rowOffset, kIndex);
        return gemm(kind, M, N, K, rows.data(), K, 1, b, brs, bcs, c, ldc, accumulate);
    }
#ifdef OPSCOPE_PACKED_FP32
    if (kind == GemmKind::Float32)
        return productInPlaceA<GemmKind::Float32>(M, N, K, a, rowOffset, kIndex, b, brs, bcs, c, ldc, accumulate);
#endif
#ifdef OPSCOPE_PACKED_BF16
    productInPlaceA<GemmKind::BFloat16>(M, N, K, a, rowOffset, kIndex, b, brs, bcs, c, ldc, accumulate);
#endif
}

void gemmInPlaceA(GemmKind kind, int64_t M, int64_t N, int64_t K, const uint16_t* a, const int64_t* rowOffset,
                  const int32_t* kIndex, const uint16_t* b, int64_t brs, int64_t bcs, float* c, int64_t ldc,
                  bool accumulate) {
    if (kind != GemmKind::BFloat16 || !bf16StorageAvailable())
        throw std::logic_error("bf16 storage operands need the AVX512-BF16 kernel and the BFloat16 kind");
    if (M <= 0 || N <= 0 || K <= 0) return gemmBf16Storage(kind, M, N, K, a, K, 1, b, brs, bcs, c, ldc, accumulate);
#ifdef OPSCOPE_PACKED_BF16
    productInPlaceA<GemmKind::BFloat16>(M, N, K, a, rowOffset, kIndex, b, brs, bcs, c, ldc, accumulate);
#endif
}

namespace {

std::atomic<int> gBf16Engine{-1};  // a Bf16Engine once chosen

#ifdef OPSCOPE_PACKED_BF16
// Seconds for 4 calls of `product` (the caller takes the best of several tries).
template <class Product>
double secondsFor(Product&& product) {
    const auto start = std::chrono::steady_clock::now();
    for (int rep = 0; rep < 4; ++rep) product();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Both engines on the same layer-like product (8 A panels x 2 B panels, one k block, B packing
// included: the FMAs' B panels are twice the bytes), alternately; ties go to the dot products
// (half the instructions, no MXCSR switch).
Bf16Engine fasterEngine() {
    constexpr int64_t M = 8 * kMR, N = 2 * kNR, K = 512, units = K / 2;
    std::vector<float> a(M * K), b(K * N), c(M * N);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = 1.0f + static_cast<float>(i % 7) / 8;  // bf16-exact
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0f - static_cast<float>(i % 5) / 8;
    std::vector<uint32_t> dotA(M * units), fmaA(2 * dotA.size());
    pack<GemmKind::BFloat16, kMR>(M, 0, K, a.data(), K, 1, dotA.data());
    pack<GemmKind::BFloat16, kMR, true>(M, 0, K, a.data(), K, 1, fmaA.data());
    const std::vector<int64_t> blocks{0};
    auto run = [&](const std::vector<uint32_t>& packedA, bool fmas) {
        return secondsFor([&] {
            packedProduct<GemmKind::BFloat16>(packedA.data(), blocks, fmas, M, K, N, b.data(), N, 1, c.data(), N,
                                              false);
        });
    };
    double dot = std::numeric_limits<double>::infinity(), fmas = dot;
    for (int trial = 0; trial < 5; ++trial) {
        dot = std::min(dot, run(dotA, false));
        fmas = std::min(fmas, run(fmaA, true));
    }
    return fmas < 0.9 * dot ? Bf16Engine::Float32Fmas : Bf16Engine::DotProducts;
}
#endif

Bf16Engine chosenEngine() {
    if (const char* env = std::getenv("OPSCOPE_BF16_GEMM")) {
        if (std::strcmp(env, "dot") == 0) return Bf16Engine::DotProducts;
        if (std::strcmp(env, "fma") == 0) return Bf16Engine::Float32Fmas;
    }
#ifdef OPSCOPE_PACKED_BF16
    return fasterEngine();
#else
    return Bf16Engine::DotProducts;  // nothing to choose: no packed bf16 kernel in this build
#endif
}

}  // namespace

Bf16Engine bf16Engine() {
    int engine = gBf16Engine.load(std::memory_order_acquire);
    if (engine < 0) {
        static const int chosen = static_cast<int>(chosenEngine());
        gBf16Engine.compare_exchange_strong(engine, chosen);
        engine = gBf16Engine.load(std::memory_order_acquire);
    }
    return static_cast<Bf16Engine>(engine);
}

void setBf16Engine(Bf16Engine engine) { gBf16Engine.store(static_cast<int>(engine), std::memory_order_release); }

const char* bf16EngineName(Bf16Engine engine) { return engine == Bf16Engine::Float32Fmas ? "fma" : "dot"; }

}  // namespace opscope::kernels
