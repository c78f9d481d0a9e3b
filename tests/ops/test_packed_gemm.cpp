// The convolution's packed GEMM against a float64 product, on every edge of its blocking
// (12-row and 32-column panels, k blocks of 256 / 512, odd k for the bf16 pairs), both operand
// layouts it vectorises and one it does not, overwrite and accumulate, packed-once A; A read in
// place (gemmInPlaceA) against packed A, bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "packed_gemm.h"

namespace opscope::kernels {
namespace {

float toBf16Exact(float v) {  // round to nearest even bf16, kept in float32
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
    std::memcpy(&v, &u, 4);
    return v;
}

struct Layout {
    bool rowMajor;  // element (i, k) at [i*ld + k] (else [k*ld + i])
};

struct Operand {
    std::vector<float> data;
    int64_t rs = 0, cs = 0;  // element (r, c) at data[r*rs + c*cs]
    float at(int64_t r, int64_t c) const { return data[static_cast<std::size_t>(r * rs + c * cs)]; }
};

Operand makeOperand(int64_t rows, int64_t cols, int layout, GemmKind kind, std::mt19937& rng) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    Operand o;
    if (layout == 0)
        o.rs = cols + 3, o.cs = 1;  // rows of cols (padded leading dimension)
    else if (layout == 1)
        o.rs = 1, o.cs = rows + 5;  // column-major
    else
        o.rs = 2 * (cols + 1), o.cs = 2;  // neither stride 1: the element-wise packer
    o.data.resize(static_cast<std::size_t>(std::max<int64_t>(1, rows * std::abs(o.rs) + cols * std::abs(o.cs))));
    for (float& v : o.data) v = kind == GemmKind::BFloat16 ? toBf16Exact(u(rng)) : u(rng);
    return o;
}

void checkProduct(GemmKind kind, int64_t M, int64_t N, int64_t K, int layoutA, int layoutB, bool accumulate) {
    std::mt19937 rng(static_cast<uint32_t>(M * 131 + N * 17 + K * 7 + layoutA * 3 + layoutB));
    const Operand a = makeOperand(M, K, layoutA, kind, rng), b = makeOperand(K, N, layoutB, kind, rng);
    const int64_t ldc = N + 2;
    std::vector<float> c(static_cast<std::size_t>(M * ldc), 0.5f), again;
    const std::vector<float> before = c;
    gemm(kind, M, N, K, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, c.data(), ldc, accumulate);
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double exact = accumulate ? before[static_cast<std::size_t>(i * ldc + j)] : 0.0, bound = 0;
            for (int64_t k = 0; k < K; ++k) {
                exact += double(a.at(i, k)) * b.at(k, j);
                bound += std::fabs(double(a.at(i, k)) * b.at(k, j));
            }
            const double got = c[static_cast<std::size_t>(i * ldc + j)];
            // float32 sums: at most K roundings of partial sums bounded by Σ|a·b| (+ the addend)
            ASSERT_LE(std::fabs(got - exact), (K + 2) * 6e-8 * (bound + 1.0))
                << "M" << M << " N" << N << " K" << K << " layouts " << layoutA << layoutB << " at " << i << "," << j;
        }
    for (int64_t i = 0; i < M; ++i)  // the padding beyond N is never written
        for (int64_t j = N; j < ldc; ++j) ASSERT_EQ(c[static_cast<std::size_t>(i * ldc + j)], 0.5f);
    // Packed once, used twice: the same bits as packing on the fly.
    PackedA packed;
    packed.pack(kind, M, K, a.data.data(), a.rs, a.cs);
    for (int rep = 0; rep < 2; ++rep) {
        again = before;
        gemm(packed, N, b.data.data(), b.rs, b.cs, again.data(), ldc, accumulate);
        ASSERT_EQ(std::memcmp(again.data(), c.data(), c.size() * sizeof(float)), 0);
    }
}

// Each kind; BFloat16 on both of its engines (packed_gemm.h: the same bits by design).
struct Config {
    GemmKind kind;
    Bf16Engine engine;
};

class PackedGemm : public ::testing::TestWithParam<Config> {
protected:
    void SetUp() override { setBf16Engine(GetParam().engine); }
    void TearDown() override { setBf16Engine(saved_); }

private:
    Bf16Engine saved_ = bf16Engine();
};

TEST_P(PackedGemm, MatchesFloat64OnEveryBlockEdge) {
    const GemmKind kind = GetParam().kind;
    const int64_t sizes[] = {1, 11, 12, 13, 33};
    for (int64_t M : sizes)
        for (int64_t N : {1, 16, 31, 32, 45})
            for (int64_t K : {1, 2, 7, 64})
                for (int la = 0; la < 3; ++la)
                    for (int lb = 0; lb < 3; ++lb) checkProduct(kind, M, N, K, la, lb, (M + N + K) % 2 == 0);
}

TEST_P(PackedGemm, KBlocksAndOddDepthsAccumulate) {
    const GemmKind kind = GetParam().kind;
    for (int64_t K : {255, 256, 257, 511, 513, 1029})
        for (int la = 0; la < 2; ++la)
            for (int lb = 0; lb < 2; ++lb) {
                checkProduct(kind, 25, 70, K, la, lb, false);
                checkProduct(kind, 25, 70, K, la, lb, true);
            }
}

TEST_P(PackedGemm, EmptyDepthClearsOrKeeps) {
    std::vector<float> c(6, 3.f);
    gemm(GetParam().kind, 2, 3, 0, nullptr, 0, 0, nullptr, 0, 0, c.data(), 3, true);
    EXPECT_EQ(c, std::vector<float>(6, 3.f));
    gemm(GetParam().kind, 2, 3, 0, nullptr, 0, 0, nullptr, 0, 0, c.data(), 3, false);
    EXPECT_EQ(c, std::vector<float>(6, 0.f));
}

// A read in place (never packed) gives gemm()'s bits: the same k blocks and the same chain of
// steps per element, for every panel edge, several k blocks, odd bf16 depths, and from bf16
// storage the bits of its float32 widening. A is stored scattered: rows in reverse order, a gap
// after every pair of k (bf16 units stay adjacent), NaN everywhere else, so a stray read shows.
TEST_P(PackedGemm, InPlaceAHasTheBitsOfPackedA) {
    const GemmKind kind = GetParam().kind;
    for (int64_t M : {1, 11, 12, 13, 40})
        for (int64_t N : {1, 31, 32, 45})
            for (int64_t K : {1, 2, 7, 64, 257, 513, 1029})
                for (int lb = 0; lb < 2; ++lb) {
                    std::mt19937 rng(static_cast<uint32_t>(M * 131 + N * 17 + K * 7 + lb));
                    const Operand a = makeOperand(M, K, 0, kind, rng), b = makeOperand(K, N, lb, kind, rng);
                    std::vector<int32_t> kIndex;
                    for (int64_t k = 0; k < K; ++k) kIndex.push_back(static_cast<int32_t>(k / 2 * 5 + k % 2));
                    const int64_t rowLen = kIndex.back() + 8;
                    std::vector<int64_t> rowOffset;
                    for (int64_t i = 0; i < M; ++i) rowOffset.push_back((M - 1 - i) * rowLen);
                    std::vector<float> stored(static_cast<std::size_t>(M * rowLen), std::nanf(""));
                    for (int64_t i = 0; i < M; ++i)
                        for (int64_t k = 0; k < K; ++k)
                            stored[static_cast<std::size_t>(rowOffset[i] + kIndex[k])] = a.at(i, k);
                    const bool accumulate = (M + N + K) % 2 == 1;
                    const int64_t ldc = N + 2;
                    std::vector<float> want(static_cast<std::size_t>(M * ldc), 0.25f), got = want;
                    gemm(kind, M, N, K, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, want.data(), ldc,
                         accumulate);
                    gemmInPlaceA(kind, M, N, K, stored.data(), rowOffset.data(), kIndex.data(), b.data.data(), b.rs,
                                 b.cs, got.data(), ldc, accumulate);
                    ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0)
                        << "M" << M << " N" << N << " K" << K << " layout " << lb;
                    if (kind != GemmKind::BFloat16 || !bf16StorageAvailable()) continue;
                    auto bits = [](const std::vector<float>& v) {
                        std::vector<uint16_t> out(v.size());
                        for (std::size_t i = 0; i < v.size(); ++i) {
                            uint32_t u;
                            std::memcpy(&u, &v[i], 4);
                            out[i] = static_cast<uint16_t>(u >> 16);
                        }
                        return out;
                    };
                    const std::vector<uint16_t> a16 = bits(stored), b16 = bits(b.data);
                    std::vector<float> narrow(want.size(), 0.25f);
                    gemmInPlaceA(kind, M, N, K, a16.data(), rowOffset.data(), kIndex.data(), b16.data(), b.rs, b.cs,
                                 narrow.data(), ldc, accumulate);
                    ASSERT_EQ(std::memcmp(narrow.data(), want.data(), want.size() * sizeof(float)), 0)
                        << "bf16 storage M" << M << " N" << N << " K" << K << " layout " << lb;
                }
}

// Rows that overlap in memory, as a convolution's windows do: row offsets in runs of 12, 4 or 3
// consecutive values (the kernel then keeps one pointer per run), runs broken part-way through a
// panel (the general kernel), and rows in reverse. Each must give gemm()'s bits on the same A.
std::vector<int64_t> overlappingRows(int pattern, int64_t M) {
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < M; ++i) {
        switch (pattern) {
            case 0: rows.push_back(i); break;                  // one run of every row
            case 1: rows.push_back(i / 4 * 9 + i % 4); break;  // runs of 4
            case 2: rows.push_back(i / 3 * 7 + i % 3); break;  // runs of 3 (3x3 taps)
            case 3: rows.push_back(i < 7 ? i : i + 2); break;  // a run broken at row 7
            default: rows.push_back((M - 1 - i) * 2); break;   // no run
        }
    }
    return rows;
}

TEST_P(PackedGemm, InPlaceAOverlappingRowsHaveTheBitsOfPackedA) {
    const GemmKind kind = GetParam().kind;
    for (int pattern = 0; pattern < 5; ++pattern)
        for (int64_t M : {12, 24, 40})
            for (int64_t K : {7, 257, 513}) {
                std::mt19937 rng(static_cast<uint32_t>(pattern * 1009 + M * 31 + K));
                std::uniform_real_distribution<float> u(-1.f, 1.f);
                const std::vector<int64_t> rowOffset = overlappingRows(pattern, M);
                std::vector<int32_t> kIndex;
                for (int64_t k = 0; k < K; ++k) kIndex.push_back(static_cast<int32_t>(k / 2 * 50 + k % 2));
                std::vector<float> stored(static_cast<std::size_t>(kIndex.back() + 4 * M + 64));
                for (float& v : stored) v = kind == GemmKind::BFloat16 ? toBf16Exact(u(rng)) : u(rng);
                std::vector<float> dense(static_cast<std::size_t>(M * K));
                for (int64_t i = 0; i < M; ++i)
                    for (int64_t k = 0; k < K; ++k)
                        dense[static_cast<std::size_t>(i * K + k)] =
                            stored[static_cast<std::size_t>(rowOffset[i] + kIndex[k])];
                const Operand b = makeOperand(K, 45, 0, kind, rng);
                std::vector<float> want(static_cast<std::size_t>(M * 45), 0.5f), got = want;
                gemm(kind, M, 45, K, dense.data(), K, 1, b.data.data(), b.rs, b.cs, want.data(), 45, true);
                gemmInPlaceA(kind, M, 45, K, stored.data(), rowOffset.data(), kIndex.data(), b.data.data(), b.rs, b.cs,
                             got.data(), 45, true);
                ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0)
                    << "pattern " << pattern << " M" << M << " K" << K;
            }
}

INSTANTIATE_TEST_SUITE_P(Kinds, PackedGemm,
                         ::testing::Values(Config{GemmKind::Float32, Bf16Engine::DotProducts},
                                           Config{GemmKind::BFloat16, Bf16Engine::DotProducts},
                                           Config{GemmKind::BFloat16, Bf16Engine::Float32Fmas}),
                         [](const auto& info) {
                             if (info.param.kind == GemmKind::Float32) return std::string("Float32");
                             return std::string("BFloat16_") + bf16EngineName(info.param.engine);
                         });

TEST(PackedGemm, SaysWhichKernelRuns) {
    EXPECT_NE(std::string(gemmDescription(GemmKind::Float32)).find("float32"), std::string::npos);
    EXPECT_NE(std::string(gemmDescription(GemmKind::BFloat16)).size(), 0u);
}

}  // namespace
}  // namespace opscope::kernels
