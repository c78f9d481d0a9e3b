// transposeFloats against the definition, on sizes around its 16x16 blocks (whole blocks, edges
// in either direction, empty), with leading dimensions wider than the matrix so that a write
// outside the transposed region shows.
#include <gtest/gtest.h>

#include <vector>

#include "simd_transpose.h"

namespace opscope::kernels {
namespace {

TEST(SimdTranspose, MatchesTheDefinitionOnEveryEdge) {
    for (int64_t rows : {0, 1, 15, 16, 17, 33, 48})
        for (int64_t cols : {0, 1, 15, 16, 31, 32, 45}) {
            const int64_t lds = cols + 3, ldd = rows + 5;
            std::vector<float> src(static_cast<std::size_t>(std::max<int64_t>(1, rows * lds)));
            for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) * 0.5f + 1.f;
            std::vector<float> dst(static_cast<std::size_t>(std::max<int64_t>(1, cols * ldd)), -7.f);
            transposeFloats(src.data(), rows, cols, lds, dst.data(), ldd);
            for (int64_t j = 0; j < cols; ++j)
                for (int64_t i = 0; i < ldd; ++i) {
                    const float want = i < rows ? src[static_cast<std::size_t>(i * lds + j)] : -7.f;
                    ASSERT_EQ(dst[static_cast<std::size_t>(j * ldd + i)], want)
                        << rows << "x" << cols << " at " << j << "," << i;
                }
        }
}

}  // namespace
}  // namespace opscope::kernels
