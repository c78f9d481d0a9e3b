// transposeFloats against the definition, on sizes around its 16x16 blocks (whole blocks, edges
// in either direction, empty), with leading dimensions wider than the matrix so that a write
// outside the transposed region shows; with streaming stores, on aligned rows (streamed) and on
// rows that are not (cached stores).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "simd_transpose.h"

namespace opscope::kernels {
namespace {

void expectDefinition(int64_t rows, int64_t cols, int64_t ldd, bool streaming, int64_t dstShift) {
    const int64_t lds = cols + 3;
    std::vector<float> src(static_cast<std::size_t>(std::max<int64_t>(1, rows * lds)));
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) * 0.5f + 1.f;
    // the matrix starts dstShift floats after a 64-byte boundary (a vector's data is 16-byte aligned)
    std::vector<float> dst(static_cast<std::size_t>(std::max<int64_t>(1, cols * ldd) + dstShift + 16), -7.f);
    const auto misaligned = static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(dst.data()) % 64 / sizeof(float));
    float* out = dst.data() + (16 - misaligned) % 16 + dstShift;
    transposeFloats(src.data(), rows, cols, lds, out, ldd, streaming);
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < ldd; ++i) {
            const float want = i < rows ? src[static_cast<std::size_t>(i * lds + j)] : -7.f;
            ASSERT_EQ(out[j * ldd + i], want)
                << rows << "x" << cols << " ldd " << ldd << " shift " << dstShift << " at " << j << "," << i;
        }
}

TEST(SimdTranspose, MatchesTheDefinitionOnEveryEdge) {
    for (int64_t rows : {0, 1, 15, 16, 17, 33, 48})
        for (int64_t cols : {0, 1, 15, 16, 31, 32, 45}) {
            expectDefinition(rows, cols, rows + 5, false, 0);
            expectDefinition(rows, cols, rows + 5, true, 0);  // rows not aligned: cached stores
            expectDefinition(rows, cols, 64, true, 0);        // aligned: streamed blocks
            expectDefinition(rows, cols, 64, true, 3);        // aligned stride, shifted base: cached
        }
}

}  // namespace
}  // namespace opscope::kernels
