// The BFloat16 kind's two engines (packed_gemm.h: vdpbf16ps, or two float32 FMAs per pair with
// denormals flushed) give the same bits where float32 FMAs and vdpbf16ps could part: NaN,
// infinities, signed zeros, bf16 denormal operands (vdpbf16ps reads them as zero), products and
// partial sums below float32's normal range (it flushes them), overflow; an accumulated C holding
// denormals (added in the caller's mode, not flushed); every entry point; and the caller's MXCSR
// is left as it was. Runs where the dot-product kernel exists (it is the other side).
#include <gtest/gtest.h>
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <string>
#include <random>
#include <vector>

#include "packed_gemm.h"

namespace opscope::kernels {
namespace {

// bf16 bits from a mix of classes, mostly ordinary so that most sums stay finite.
uint16_t awkwardBf16(std::mt19937& rng) {
    const uint32_t r = rng(), sign = (r & 1u) << 15, mantissa = (r >> 1) & 0x7Fu, pick = (r >> 8) % 10000;
    uint32_t exponent = 120 + (r >> 16) % 16;  // ordinary: 2^-7 .. 2^8
    if (pick < 2000)
        exponent = (r >> 16) % 4;  // denormal (0) or the smallest normals: products underflow
    else if (pick < 3000)
        exponent = 60 + (r >> 16) % 8;  // small: products near float32's smallest normal
    else if (pick < 3030)
        exponent = 250 + (r >> 16) % 5;  // huge: products overflow
    else if (pick < 3200)
        return static_cast<uint16_t>(sign);  // signed zero
    else if (pick < 3205)
        return static_cast<uint16_t>(sign | 0x7F80u);  // infinity
    else if (pick < 3210)
        return static_cast<uint16_t>(sign | 0x7F80u | 1u << 6 | mantissa);  // NaN with a payload
    return static_cast<uint16_t>(sign | exponent << 7 | mantissa);
}

float widen(uint16_t bits) {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float v;
    std::memcpy(&v, &u, sizeof v);
    return v;
}

struct Operands {
    std::vector<uint16_t> a16, b16;  // A (M x K, rows of K), B (K x N, rows of N)
    std::vector<float> a, b;
    std::vector<float> c;  // the addend when accumulating: some denormal
};

Operands makeOperands(int64_t M, int64_t N, int64_t K, uint32_t seed) {
    std::mt19937 rng(seed);
    Operands o;
    for (int64_t i = 0; i < M * K; ++i) o.a16.push_back(awkwardBf16(rng));
    for (int64_t i = 0; i < K * N; ++i) o.b16.push_back(awkwardBf16(rng));
    for (uint16_t v : o.a16) o.a.push_back(widen(v));
    for (uint16_t v : o.b16) o.b.push_back(widen(v));
    for (int64_t i = 0; i < M * N; ++i) {
        const uint32_t r = rng(), u = (r & 0x807FFFFFu) | ((r >> 23) % 3 == 0 ? 0u : (100u + r % 20u) << 23);
        float v;
        std::memcpy(&v, &u, sizeof v);
        o.c.push_back(v);
    }
    return o;
}

// Every entry point's result on the current engine, concatenated.
std::vector<float> allProducts(const Operands& o, int64_t M, int64_t N, int64_t K, bool accumulate) {
    std::vector<float> out;
    auto run = [&](auto&& product) {
        std::vector<float> c = accumulate ? o.c : std::vector<float>(o.c.size(), 0.0f);
        product(c.data());
        out.insert(out.end(), c.begin(), c.end());
    };
    run([&](float* c) { gemm(GemmKind::BFloat16, M, N, K, o.a.data(), K, 1, o.b.data(), N, 1, c, N, accumulate); });
    std::vector<float> aT(o.a.size()), bT(o.b.size());  // column-major: the other packers
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k)
            aT[static_cast<std::size_t>(k * M + i)] = o.a[static_cast<std::size_t>(i * K + k)];
    for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < N; ++j)
            bT[static_cast<std::size_t>(j * K + k)] = o.b[static_cast<std::size_t>(k * N + j)];
    run([&](float* c) { gemm(GemmKind::BFloat16, M, N, K, aT.data(), 1, M, bT.data(), 1, K, c, N, accumulate); });
    run([&](float* c) {
        gemmBf16Storage(GemmKind::BFloat16, M, N, K, o.a16.data(), K, 1, o.b16.data(), N, 1, c, N, accumulate);
    });
    std::vector<int64_t> rows;
    std::vector<int32_t> ks;
    for (int64_t i = 0; i < M; ++i) rows.push_back(i * K);
    for (int64_t k = 0; k < K; ++k) ks.push_back(static_cast<int32_t>(k));
    run([&](float* c) {
        gemmInPlaceA(GemmKind::BFloat16, M, N, K, o.a.data(), rows.data(), ks.data(), o.b.data(), N, 1, c, N,
                     accumulate);
    });
    run([&](float* c) {
        gemmInPlaceA(GemmKind::BFloat16, M, N, K, o.a16.data(), rows.data(), ks.data(), o.b16.data(), N, 1, c, N,
                     accumulate);
    });
    return out;
}

class Bf16Engines : public ::testing::Test {
protected:
    void SetUp() override {
        if (!bf16StorageAvailable()) GTEST_SKIP() << "no AVX512-BF16 kernel in this build: nothing to compare";
    }
    void TearDown() override { setBf16Engine(saved_); }

private:
    Bf16Engine saved_ = bf16Engine();
};

TEST_F(Bf16Engines, SameBitsOnAwkwardValues) {
    struct Shape {
        int64_t M, N, K;
    };
    int64_t nonFinite = 0, denormal = 0, total = 0;
    for (const Shape& s : {Shape{12, 32, 2}, Shape{13, 45, 7}, Shape{25, 70, 513}, Shape{40, 33, 1029}, Shape{1, 1, 1},
                           Shape{24, 64, 64}})
        for (bool accumulate : {false, true}) {
            const Operands o = makeOperands(s.M, s.N, s.K, static_cast<uint32_t>(s.M * 7 + s.N * 3 + s.K));
            const unsigned control = _mm_getcsr() & ~0x3Fu;  // the mode, not the sticky flags
            setBf16Engine(Bf16Engine::DotProducts);
            const std::vector<float> dot = allProducts(o, s.M, s.N, s.K, accumulate);
            setBf16Engine(Bf16Engine::Float32Fmas);
            const std::vector<float> fmas = allProducts(o, s.M, s.N, s.K, accumulate);
            ASSERT_EQ(_mm_getcsr() & ~0x3Fu, control) << "the FMAs' flush mode leaked to the caller";
            ASSERT_EQ(dot.size(), fmas.size());
            for (std::size_t i = 0; i < dot.size(); ++i) {
                uint32_t d, f;
                std::memcpy(&d, &dot[i], 4);
                std::memcpy(&f, &fmas[i], 4);
                ASSERT_EQ(d, f) << "M" << s.M << " N" << s.N << " K" << s.K << " accumulate " << accumulate
                                << " element " << i << ": dot " << dot[i] << ", fmas " << fmas[i];
                nonFinite += !std::isfinite(dot[i]);
                denormal += std::fpclassify(dot[i]) == FP_SUBNORMAL;
                ++total;
            }
        }
    // The awkward values did reach the results (else the comparison proves little).
    EXPECT_GT(nonFinite, total / 100);
    EXPECT_GT(denormal, 0);
    EXPECT_GT(total - nonFinite, total / 10);
}

// vdpbf16ps ignores the caller's rounding mode; the FMAs standing in for it must too (C's
// accumulate add follows the caller's mode on both engines).
TEST_F(Bf16Engines, SameBitsUnderTheCallersRoundingMode) {
    const Operands o = makeOperands(13, 45, 513, 7);
    const unsigned saved = _mm_getcsr();
    for (unsigned mode : {_MM_ROUND_TOWARD_ZERO, _MM_ROUND_UP, _MM_ROUND_DOWN}) {
        _mm_setcsr((saved & ~_MM_ROUND_MASK) | mode);
        setBf16Engine(Bf16Engine::DotProducts);
        const std::vector<float> dot = allProducts(o, 13, 45, 513, true);
        setBf16Engine(Bf16Engine::Float32Fmas);
        const std::vector<float> fmas = allProducts(o, 13, 45, 513, true);
        const unsigned after = _mm_getcsr() & _MM_ROUND_MASK;
        _mm_setcsr(saved);
        ASSERT_EQ(after, mode) << "the caller's rounding mode was not restored";
        ASSERT_EQ(std::memcmp(dot.data(), fmas.data(), dot.size() * sizeof(float)), 0) << "rounding mode " << mode;
    }
}

TEST_F(Bf16Engines, ChoosingOneIsRemembered) {
    setBf16Engine(Bf16Engine::Float32Fmas);
    EXPECT_EQ(bf16Engine(), Bf16Engine::Float32Fmas);
    EXPECT_NE(std::string(gemmDescription(GemmKind::BFloat16)).find("FMA"), std::string::npos);
    setBf16Engine(Bf16Engine::DotProducts);
    EXPECT_EQ(bf16Engine(), Bf16Engine::DotProducts);
    EXPECT_NE(std::string(gemmDescription(GemmKind::BFloat16)).find("dot products"), std::string::npos);
}

}  // namespace
}  // namespace opscope::kernels
