// Transposes of 32-bit values on AVX-512: 16 vectors in registers, and whole float matrices by
// 16x16 blocks (the edges element by element). Shared by the GEMM's packing and the stages that
// turn a position-major tile back into channel planes.
#pragma once

#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>

namespace opscope::kernels {

// Transposes 16 vectors of 16 32-bit lanes in place: v[i] lane j <-> v[j] lane i.
inline void transpose16x16(__m512i v[16]) {
    __m512i t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(v[i], v[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(v[i], v[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        v[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
        v[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
        v[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
        v[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    // Now v[4a + b] holds, in each 128-bit lane L, elements (rows 4a..4a+3) x column 4L + b'.
    for (int i = 0; i < 16; i += 8)
        for (int j = 0; j < 4; ++j) {
            t[i + j] = _mm512_shuffle_i32x4(v[i + j], v[i + 4 + j], 0x88);      // lanes 0, 2 | 0, 2
            t[i + 4 + j] = _mm512_shuffle_i32x4(v[i + j], v[i + 4 + j], 0xDD);  // lanes 1, 3 | 1, 3
        }
    for (int j = 0; j < 8; ++j) {
        v[j] = _mm512_shuffle_i32x4(t[j], t[j + 8], 0x88);
        v[j + 8] = _mm512_shuffle_i32x4(t[j], t[j + 8], 0xDD);
    }
}

}  // namespace opscope::kernels
#endif

namespace opscope::kernels {

// dst[j * ldd + i] = src[i * lds + j] for i < rows, j < cols. `streaming`: where dst's rows are
// 64-byte aligned, the 16x16 blocks bypass the cache (a large output that nothing reads soon:
// no read of each line before it is written).
inline void transposeFloats(const float* src, int64_t rows, int64_t cols, int64_t lds, float* dst, int64_t ldd,
                            bool streaming = false) {
    int64_t i0 = 0;
#if defined(__AVX512F__)
    const bool aligned = streaming && reinterpret_cast<uintptr_t>(dst) % 64 == 0 && ldd % 16 == 0;
    for (; i0 + 16 <= rows; i0 += 16) {
        int64_t j0 = 0;
        for (; j0 + 16 <= cols; j0 += 16) {
            __m512i v[16];
            for (int r = 0; r < 16; ++r) v[r] = _mm512_loadu_si512(src + (i0 + r) * lds + j0);
            transpose16x16(v);
            if (aligned)
                for (int r = 0; r < 16; ++r)
                    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + (j0 + r) * ldd + i0), v[r]);
            else
                for (int r = 0; r < 16; ++r) _mm512_storeu_si512(dst + (j0 + r) * ldd + i0, v[r]);
        }
        for (int64_t j = j0; j < cols; ++j)
            for (int64_t i = i0; i < i0 + 16; ++i) dst[j * ldd + i] = src[i * lds + j];
    }
    if (aligned) _mm_sfence();  // the streamed lines are visible before the caller signals its end
#else
    (void)streaming;
#endif
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = i0; i < rows; ++i) dst[j * ldd + i] = src[i * lds + j];
}

}  // namespace opscope::kernels
