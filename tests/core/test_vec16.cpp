// opscope/vec16.h: the 16-lane loads and stores kernels widen and narrow through give exactly the
// bits of the scalar conversions (widen.h, Eigen), in the compiled version (AVX-512 here) and in
// the portable one, for whole vectors and for partial ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "opscope/vec16.h"

namespace opscope {
namespace {

using vec16::kLanes;

template <class T>
uint16_t bitsOf(T v) {
    uint16_t b;
    std::memcpy(&b, &v, 2);
    return b;
}

template <class T>
T fromBits(uint16_t b) {
    T v;
    std::memcpy(&v, &b, 2);
    return v;
}

// The float a 16-bit value widens to; a float16 signaling NaN comes out quiet (as F16C gives it).
float widened(bfloat16 v) { return static_cast<float>(v); }
float widened(half v) {
    const float f = static_cast<float>(v);
    return std::isnan(f) ? floatFromBits(floatBits(f) | 0x00400000u) : f;
}

// Every 16-bit pattern loads as the scalar widening does, whole and as an n-lane tail (zeros after).
template <class V, class T>
void checkLoadsAllPatterns() {
    std::vector<T> all(65536 + kLanes);
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = fromBits<T>(static_cast<uint16_t>(i));
    float lanes[kLanes];
    for (uint32_t i = 0; i < 65536; i += kLanes) {
        V::load(all.data() + i).copyTo(lanes);
        for (int l = 0; l < kLanes; ++l) ASSERT_EQ(floatBits(lanes[l]), floatBits(widened(all[i + l]))) << i + l;
    }
    for (int n = 0; n < kLanes; ++n) {
        V::load(all.data() + 0x3f00, n).copyTo(lanes);
        for (int l = 0; l < kLanes; ++l)
            EXPECT_EQ(floatBits(lanes[l]), l < n ? floatBits(widened(all[0x3f00 + l])) : 0u) << n;
    }
}

// Floats that exercise the rounding: random bit patterns plus ties, subnormals, NaN, Inf.
std::vector<float> roundingCases() {
    std::vector<float> v;
    for (float f : {0.f, -0.f, 1.f + std::ldexp(1.f, -8), 1.f + 3 * std::ldexp(1.f, -8), -1.f - std::ldexp(1.f, -8),
                    1.f + std::ldexp(1.f, -11), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                    std::numeric_limits<float>::min(), std::ldexp(1.f, -130), std::ldexp(1.5f, -133)})
        v.push_back(f);
    for (uint32_t bits : {0x7f800001u, 0xffc12345u, 0x7fa00000u, 0x7fffffffu, 0x00400000u, 0x807fffffu, 0x7f7fffffu,
                          0x00008000u, 0x00018000u, 0x3f808000u, 0x3f818000u})
        v.push_back(floatFromBits(bits));
    std::mt19937 rng(11);
    while (v.size() % kLanes != 0 || v.size() < 100000) {
        v.push_back(floatFromBits(static_cast<uint32_t>(rng())));
    }
    return v;
}

// Stores every rounding case through V into T, lane block by lane block, and hands each
// (source, stored) pair to `check` until one fails an ASSERT.
template <class V, class T, class Check>
void checkFullStores(Check check) {
    const std::vector<float> src = roundingCases();
    std::vector<T> out(src.size());
    for (std::size_t i = 0; i < src.size(); i += kLanes) V::load(src.data() + i).store(out.data() + i);
    for (std::size_t i = 0; i < src.size() && !::testing::Test::HasFatalFailure(); ++i) check(src[i], out[i]);
}

// bfloat16 stores round exactly like floatToBFloat16Bits and Eigen (NaN: 0x7fc0 with its sign).
template <class V>
void checkBFloat16Stores() {
    checkFullStores<V, bfloat16>([](float s, bfloat16 stored) {
        ASSERT_EQ(bitsOf(stored), floatToBFloat16Bits(s)) << std::hex << floatBits(s);
        ASSERT_EQ(bitsOf(stored), bitsOf(bfloat16(s))) << std::hex << floatBits(s);
    });
    const std::vector<float> src = roundingCases();
    // A partial store writes its n lanes and nothing after them.
    for (int n = 0; n < kLanes; ++n) {
        std::vector<bfloat16> part(kLanes, fromBits<bfloat16>(0x1234));
        V::load(src.data(), n).store(part.data(), n);
        for (int l = 0; l < kLanes; ++l)
            EXPECT_EQ(bitsOf(part[l]), l < n ? floatToBFloat16Bits(src[static_cast<std::size_t>(l)]) : 0x1234) << n;
    }
}

// float16 stores round to nearest even like Eigen (any NaN stays a NaN).
template <class V>
void checkHalfStores() {
    checkFullStores<V, half>([](float s, half stored) {
        if (std::isnan(s))
            ASSERT_TRUE(std::isnan(static_cast<float>(stored))) << s;
        else
            ASSERT_EQ(bitsOf(stored), bitsOf(half(s))) << s;
    });
}

TEST(Vec16, LoadsWidenEveryBFloat16AndHalfPatternExactly) {
    checkLoadsAllPatterns<vec16::Vec, bfloat16>();
    checkLoadsAllPatterns<vec16::Portable, bfloat16>();
    checkLoadsAllPatterns<vec16::Vec, half>();
    checkLoadsAllPatterns<vec16::Portable, half>();
}

TEST(Vec16, BFloat16StoresRoundToNearestEvenLikeTheScalarConversion) {
    checkBFloat16Stores<vec16::Vec>();
    checkBFloat16Stores<vec16::Portable>();
}

TEST(Vec16, HalfStoresRoundToNearestEvenLikeTheScalarConversion) {
    checkHalfStores<vec16::Vec>();
    checkHalfStores<vec16::Portable>();
}

// The bulk conversions and the scalar helpers agree on every bfloat16 pattern and rounding case.
TEST(Vec16, ScalarBFloat16HelpersMatchEigen) {
    for (uint32_t i = 0; i < 65536; ++i) {
        const auto b = static_cast<uint16_t>(i);
        EXPECT_EQ(floatBits(bfloat16BitsToFloat(b)), floatBits(static_cast<float>(fromBits<bfloat16>(b)))) << i;
    }
    for (float f : roundingCases()) ASSERT_EQ(floatToBFloat16Bits(f), bitsOf(bfloat16(f))) << std::hex << floatBits(f);
}

// Arithmetic, float32 round trips and streaming stores give the same bits in both versions.
TEST(Vec16, CompiledAndPortableVersionsAgree) {
    const std::vector<float> src = roundingCases();
    alignas(64) float a[kLanes], b[kLanes];
    alignas(64) bfloat16 sa[kLanes], sb[kLanes];
    for (std::size_t i = 0; i + 3 * kLanes <= src.size(); i += 3 * kLanes) {
        const float* x = src.data() + i;
        const auto f = [&](auto v) {
            using V = decltype(v);
            return V::load(x) * V::load(x + kLanes) - V::load(x + 2 * kLanes) + V::broadcast(0.5f);
        };
        f(vec16::Vec{}).stream(a);
        f(vec16::Portable{}).stream(b);
        f(vec16::Vec{}).stream(sa);
        f(vec16::Portable{}).stream(sb);
        for (int l = 0; l < kLanes; ++l) {
            if (!(std::isnan(a[l]) && std::isnan(b[l])))  // which operand's payload survives may differ
                ASSERT_EQ(floatBits(a[l]), floatBits(b[l])) << i + static_cast<std::size_t>(l);
            ASSERT_EQ(bitsOf(sa[l]), bitsOf(sb[l])) << i + static_cast<std::size_t>(l);
        }
    }
}

TEST(Vec16, StreamAlignmentIsCountedInElements) {
    alignas(64) float f[2 * kLanes];
    alignas(64) bfloat16 h[2 * kLanes];
    EXPECT_EQ(vec16::elementsToStreamAlignment(f), 0);
    EXPECT_EQ(vec16::elementsToStreamAlignment(f + 3), kLanes - 3);
    EXPECT_EQ(vec16::elementsToStreamAlignment(h + 15), 1);
    EXPECT_EQ(vec16::elementsToStreamAlignment(h + kLanes), 0);
}

}  // namespace
}  // namespace opscope
