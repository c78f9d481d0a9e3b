// The shared output Cast float32 -> bf16 (narrowFromFloat, run by copyConvert over chunks of the
// tensor) gives floatToBFloat16Bits' bits for every element, NaN payloads and signs included: at
// every length and alignment (vector tails), for vectors free of NaN and subnormals (which take
// the one-instruction conversion on AVX512-BF16) and for vectors with one of them, and in a
// tensor large enough for several threads' chunks.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "opscope/convert.h"
#include "opscope/host_tensor.h"
#include "opscope/parallel.h"
#include "opscope/widen.h"

namespace opscope {
namespace {

uint16_t bitsOf(bfloat16 b) {
    uint16_t u;
    std::memcpy(&u, &b, 2);
    return u;
}

// Floats whose rounding is awkward, one in `rare` of them NaN (random payload and sign, some
// signaling), Inf or subnormal; the rest ties, halfway-plus-one, values near overflow, any bits.
std::vector<float> castCases(std::size_t n, uint32_t seed, uint32_t rare) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (float& f : v) {
        const uint32_t sign = rng() & 0x80000000u, mant = rng() & 0x7fffffu, r = rng();
        uint32_t bits;
        if (r % rare == 0) {
            const uint32_t special[3] = {0x7f800000u | mant | 1u, 0x7f800000u, mant};
            bits = sign | special[rng() % 3];
        } else {
            switch (rng() % 4) {
                case 0: bits = (rng() & 0xffff0000u) | 0x8000u; break;  // a tie: to even
                case 1: bits = 0x7f7f8000u | (rng() & 0x7fffu); break;  // rounds up to Inf or stays finite
                default: bits = sign | ((1u + rng() % 254u) << 23) | mant;
            }
            if ((bits & 0x7f800000u) == 0x7f800000u) bits &= 0xff7fffffu;  // keep it finite
        }
        std::memcpy(&f, &bits, 4);
    }
    return v;
}

TEST(CastBFloat16, EveryLengthAndAlignmentGivesTheScalarBits) {
    for (uint32_t rare : {2u, 40u, 1000000u}) {  // mostly special; a few; none (the fast path)
        const std::vector<float> src = castCases(200, rare, rare);
        for (std::size_t offset = 0; offset < 4; ++offset)
            for (std::size_t n = 0; n + offset <= 100; ++n) {
                std::vector<bfloat16> dst(n + 2 * offset + 8);
                std::memset(static_cast<void*>(dst.data()), 0xab, dst.size() * 2);
                narrowFromFloat(src.data() + offset, dst.data() + 2 * offset, static_cast<int64_t>(n));
                for (std::size_t i = 0; i < dst.size(); ++i) {
                    const bool written = i >= 2 * offset && i < 2 * offset + n;
                    const uint16_t expect = written ? floatToBFloat16Bits(src[offset + i - 2 * offset]) : 0xababu;
                    ASSERT_EQ(bitsOf(dst[i]), expect)
                        << "rare " << rare << " offset " << offset << " n " << n << " i " << i;
                }
            }
    }
}

TEST(CastBFloat16, LargeTensorAtAnyThreadCount) {
    const int64_t n = (int64_t{3} << 16) + 37;  // several chunks of copyConvert, and a tail
    const std::vector<float> values = castCases(static_cast<std::size_t>(n), 5, 300);
    HostTensor src(DType::Float32, {n});
    std::memcpy(src.data(), values.data(), values.size() * 4);
    for (int threads : {1, 2, 3}) {
        setNumThreads(threads);
        HostTensor dst(DType::BFloat16, {n});
        copyConvert(src.view(), dst.view());
        const auto* out = dst.dataAs<bfloat16>();
        for (int64_t i = 0; i < n; ++i)
            ASSERT_EQ(bitsOf(out[i]), floatToBFloat16Bits(values[static_cast<std::size_t>(i)]))
                << threads << " threads, i " << i;
    }
    setNumThreads(0);
}

// floatToBFloat16Bits itself, on the cases that decide it (the reference the tests above use).
TEST(CastBFloat16, ScalarRoundingCases) {
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0x3f808000u)), 0x3f80u);  // tie, even below
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0x3f818000u)), 0x3f82u);  // tie, even above
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0x3f808001u)), 0x3f81u);
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0x7f7f8000u)), 0x7f80u);  // overflows to Inf
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0x00008000u)), 0x0000u);  // subnormal tie
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0x80018000u)), 0x8002u);  // subnormal, rounds up
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0x7f800001u)), 0x7fc0u);  // NaN: quiet, payload dropped
    EXPECT_EQ(floatToBFloat16Bits(floatFromBits(0xffc12345u)), 0xffc0u);
}

}  // namespace
}  // namespace opscope
