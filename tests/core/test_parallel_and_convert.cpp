#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include "opscope/convert.h"
#include "opscope/float16.h"
#include "opscope/host_tensor.h"
#include "opscope/parallel.h"

namespace opscope {
namespace {

TEST(Parallel, ChunksCoverRangeOnceWithFixedBoundaries) {
    for (int threads : {1, 2, 5}) {
        setNumThreads(threads);
        std::vector<std::atomic<int>> hits(1000);
        std::vector<std::pair<int64_t, int64_t>> bounds(static_cast<std::size_t>(chunkCount(1000, 1)));
        parallelChunks(1000, 1, [&](int c, int64_t b, int64_t e) {
            bounds[static_cast<std::size_t>(c)] = {b, e};
            for (int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
        });
        for (auto& h : hits) EXPECT_EQ(h.load(), 1);
        EXPECT_EQ(static_cast<int>(bounds.size()), threads);
        for (std::size_t c = 0; c < bounds.size(); ++c) {
            EXPECT_EQ(bounds[c].first, static_cast<int64_t>(1000 * c / bounds.size()));
        }
    }
    setNumThreads(0);
}

TEST(Parallel, GrainLimitsChunksAndNestedCallsRunInline) {
    setNumThreads(4);
    EXPECT_EQ(chunkCount(10, 100), 1);
    EXPECT_EQ(chunkCount(0, 1), 0);
    std::atomic<int> inner{0};
    parallelFor(0, 8, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) parallelFor(0, 10, 1, [&](int64_t bb, int64_t ee) { inner += int(ee - bb); });
    });
    EXPECT_EQ(inner.load(), 80);
    setNumThreads(0);
}

TEST(Parallel, ExceptionsPropagateToCaller) {
    setNumThreads(2);
    EXPECT_THROW(parallelFor(0, 100, 1,
                             [](int64_t b, int64_t) {
                                 if (b > 0) throw std::runtime_error("x");
                             }),
                 std::runtime_error);
    setNumThreads(0);
}

// Regions back to back (the workers still spinning), after a pause longer than the spin (the
// workers asleep), and with more workers than chunks (the idle ones must not take a chunk twice
// nor miss the next region): every item once, every region complete before parallelChunks returns.
TEST(Parallel, RegionsBackToBackAndAfterSleepCoverEveryItemOnce) {
    setNumThreads(4);
    for (int region = 0; region < 400; ++region) {
        const int64_t n = 1 + region % 7;  // 1..7 items: 1 to 4 chunks
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
        parallelChunks(n, 1, [&](int, int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
        });
        for (auto& h : hits) ASSERT_EQ(h.load(), 1) << "region " << region;
        if (region % 100 == 99) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    setNumThreads(0);
}

TEST(Convert, HalfAndBFloat16RoundToNearestEven) {
    // 1 + 2^-11 is exactly between two halves: ties to even (1.0).
    EXPECT_EQ(roundToHalf(1.0f + std::ldexp(1.0f, -11)), 1.0f);
    EXPECT_EQ(roundToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
    EXPECT_EQ(roundToBFloat16(1.0f + std::ldexp(1.0f, -8)), 1.0f);
    EXPECT_EQ(roundToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
    EXPECT_TRUE(std::isnan(roundToBFloat16(NAN)));
    EXPECT_TRUE(std::isinf(roundToHalf(70000.0f)));
}

TEST(Convert, StridedToDenseWithCast) {
    HostTensor src = HostTensor::fromDoubles(DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
    TensorView t = src.view();  // transpose as a view: shape [3, 2], strides [1, 3]
    t.shape = {3, 2};
    t.strides = {1, 3};
    EXPECT_FALSE(t.isContiguous());
    HostTensor dst(DType::BFloat16, {3, 2});
    copyConvert(t, dst.view());
    EXPECT_EQ(dst.toDoubles(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
    HostTensor back = HostTensor::copyOf(t);
    EXPECT_EQ(back.toDoubles(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(Convert, RankZeroEmptyAndZeroFill) {
    HostTensor a = HostTensor::fromDoubles(DType::Float64, {}, {2.5});
    HostTensor b(DType::Float16, {});
    copyConvert(a.view(), b.view());
    EXPECT_EQ(b.getAsDouble(0), 2.5);
    HostTensor e1(DType::Float32, {0, 4}), e2(DType::Float16, {0, 4});
    copyConvert(e1.view(), e2.view());
    HostTensor z = HostTensor::fromDoubles(DType::Float32, {2, 2}, {1, 2, 3, 4});
    TensorView col = z.view();
    col.shape = {2};
    col.strides = {2};
    fillZero(col);
    EXPECT_EQ(z.toDoubles(), (std::vector<double>{0, 2, 0, 4}));
}

TEST(TensorView, ContiguityIgnoresSizeOneDims) {
    TensorView v;
    v.shape = {1, 3, 1};
    v.strides = {99, 1, 7};
    EXPECT_TRUE(v.isContiguous());
    v.strides = {3, 2, 1};
    EXPECT_FALSE(v.isContiguous());
}

}  // namespace
}  // namespace opscope

#include <cstring>
#include <random>

#include "opscope/widen.h"

namespace opscope {
namespace {

template <class H>
void checkBulkMatchesScalar() {
    // Every 16-bit pattern widens exactly like the scalar conversion.
    std::vector<H> all(65536);
    for (uint32_t i = 0; i < 65536; ++i) {
        const uint16_t b = static_cast<uint16_t>(i);
        std::memcpy(&all[i], &b, 2);
    }
    std::vector<float> wide(65536);
    widenToFloat(all.data(), wide.data(), 65536);
    for (uint32_t i = 0; i < 65536; ++i) {
        const float expect = static_cast<float>(all[i]);
        if (std::isnan(expect))
            EXPECT_TRUE(std::isnan(wide[i])) << i;
        else
            EXPECT_EQ(wide[i], expect) << i;
    }
    // Random float bit patterns (including ties, subnormals, NaN, Inf) narrow like the scalar.
    std::mt19937 rng(7);
    std::vector<float> src(100003);
    for (float& f : src) {
        const uint32_t bits = rng();
        std::memcpy(&f, &bits, 4);
    }
    src[0] = 1.0f + std::ldexp(1.0f, -8);   // bf16 tie
    src[1] = 1.0f + std::ldexp(1.0f, -11);  // half tie
    src[2] = INFINITY;
    std::vector<H> narrow(src.size());
    narrowFromFloat(src.data(), narrow.data(), static_cast<int64_t>(src.size()));
    for (std::size_t i = 0; i < src.size(); ++i) {
        const H expect = H(src[i]);
        if (std::isnan(static_cast<float>(expect))) {
            EXPECT_TRUE(std::isnan(static_cast<float>(narrow[i]))) << i;
        } else {
            uint16_t a, b;
            std::memcpy(&a, &narrow[i], 2);
            std::memcpy(&b, &expect, 2);
            ASSERT_EQ(a, b) << "float " << src[i];
        }
    }
}

TEST(Widen, HalfMatchesScalarConversions) { checkBulkMatchesScalar<half>(); }
TEST(Widen, BFloat16MatchesScalarConversions) { checkBulkMatchesScalar<bfloat16>(); }

}  // namespace
}  // namespace opscope
