// gradBias (conv_bias_grad.h): both paths and biasGrad at several thread counts give, bit for bit,
// the sums of a plain loop written here in the documented order, on awkward sizes (tails of every
// length, single images and channels) and inputs whose sums depend on the order: exponents from
// 2^-149 to 2^127, subnormals, Inf, and NaNs of many payloads (which NaN survives is fixed too).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "conv_bias_grad.h"
#include "convolution_backward_kernel.h"
#include "opscope/parallel.h"

namespace opscope::kernels {
namespace {

uint32_t bitsOf(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float floatOf(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

double wide(float v) { return v; }
double wide(uint16_t b) { return floatOf(static_cast<uint32_t>(b) << 16); }

// x86's rule for an add of two NaNs: the first operand's (quiet) NaN.
double add(double a, double b) { return std::isnan(a) ? a : a + b; }

// The documented order: per plane 8 lanes (lane l: positions l, l + 8, ...; the tail to lanes 0,
// 1, ... with the value as first operand), 0 + lane 0 + ... + lane 7, then the planes in order.
template <class T>
std::vector<uint32_t> plainLoop(const std::vector<T>& dy, int64_t N, int64_t C, int64_t P) {
    std::vector<uint32_t> out;
    for (int64_t c = 0; c < C; ++c) {
        double sum = 0;
        for (int64_t n = 0; n < N; ++n) {
            const T* p = dy.data() + (n * C + c) * P;
            double lane[8] = {};
            const int64_t whole = P / 8 * 8;
            for (int64_t i = 0; i < whole; ++i) lane[i % 8] = add(lane[i % 8], wide(p[i]));
            for (int64_t i = whole; i < P; ++i) lane[i - whole] = add(wide(p[i]), lane[i - whole]);
            double plane = 0;
            for (double v : lane) plane = add(plane, v);
            sum = add(sum, plane);
        }
        out.push_back(bitsOf(static_cast<float>(sum)));
    }
    return out;
}

// Random finite values (any exponent, or near 1), plus `special` in 1000 of Inf, subnormals and
// NaNs with random payloads (signaling ones too).
std::vector<float> awkwardValues(int64_t n, uint32_t seed, int special) {
    std::mt19937 rng(seed);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& f : v) {
        const uint32_t sign = rng() & 0x80000000u, mant = rng() & 0x7fffffu;
        const auto r = static_cast<int>(rng() % 1000);
        if (r < special / 3)
            f = floatOf(sign | 0x7f800000u | mant | 1u);  // NaN
        else if (r < 2 * special / 3)
            f = floatOf(sign | 0x7f800000u);  // Inf
        else if (r < special)
            f = floatOf(sign | mant);  // subnormal or zero
        else if (r % 4 == 0)           // ±2^80: they cancel exactly, and absorb what comes in between
            f = floatOf(sign | (207u << 23));
        else if (r % 4 == 1)  // any exponent
            f = floatOf(sign | ((1u + rng() % 254u) << 23) | mant);
        else  // near 1
            f = floatOf(sign | ((107u + rng() % 40u) << 23) | mant);
    }
    return v;
}

// Values in [1, 2^10) with every 5th one 2^60, -2^60, 2^60, ... in turn: each channel's large
// values cancel exactly, and which small ones a large partial sum absorbs depends on the order.
std::vector<float> cancellingValues(int64_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] =
            i % 5 == 4 ? (i / 5 % 2 ? -0x1p60f : 0x1p60f) : floatOf(((127u + rng() % 10u) << 23) | (rng() & 0x7fffffu));
    return v;
}

std::vector<uint16_t> bf16Bits(const std::vector<float>& v) {
    std::vector<uint16_t> b;
    for (float f : v) b.push_back(static_cast<uint16_t>(bitsOf(f) >> 16));
    return b;
}

template <class T>
void expectEveryPathIsThePlainLoop(const std::vector<T>& dy, int64_t N, int64_t C, int64_t P) {
    const std::vector<uint32_t> expect = plainLoop(dy, N, C, P);
    for (bool vectorised : {true, false}) {
        std::vector<float> db(static_cast<std::size_t>(C));
        biasSums(dy.data(), N, C, P, 0, C, db.data(), vectorised);
        for (int64_t c = 0; c < C; ++c)
            ASSERT_EQ(bitsOf(db[c]), expect[c])
                << "vectorised " << vectorised << " N " << N << " C " << C << " P " << P << " c " << c;
    }
    for (int threads : {1, 2, 3}) {
        setNumThreads(threads);
        std::vector<float> db(static_cast<std::size_t>(C));
        biasGrad(N, C, P, dy.data(), db.data());
        setNumThreads(0);
        for (int64_t c = 0; c < C; ++c) ASSERT_EQ(bitsOf(db[c]), expect[c]) << threads << " threads, c " << c;
    }
}

struct Shape {
    int64_t N, C, P;
};
const Shape kShapes[] = {{1, 1, 1},  {1, 1, 7},  {1, 3, 8},  {2, 1, 9},   {3, 5, 15},  {1, 7, 16},
                         {2, 3, 17}, {5, 2, 23}, {4, 4, 31}, {9, 3, 33},  {3, 9, 100}, {2, 2, 1001},
                         {8, 5, 56}, {1, 1, 4},  {7, 1, 12}, {6, 11, 64}, {2, 13, 3}};

TEST(ConvBiasGrad, EveryPathSumsInTheDocumentedOrder) {
    uint32_t seed = 1;
    for (const Shape& s : kShapes)
        for (int special : {-1, 0, 5, 300}) {  // cancelling; none, a few, many: NaN and Inf in most sums
            SCOPED_TRACE(testing::Message() << "N " << s.N << " C " << s.C << " P " << s.P << " special " << special);
            const int64_t n = s.N * s.C * s.P;
            const std::vector<float> v = special < 0 ? cancellingValues(n, seed++) : awkwardValues(n, seed++, special);
            expectEveryPathIsThePlainLoop(v, s.N, s.C, s.P);
            expectEveryPathIsThePlainLoop(bf16Bits(v), s.N, s.C, s.P);
        }
}

// The cancelling inputs tell orders apart: summing each channel in plain sequence gives other bits.
TEST(ConvBiasGrad, TheInputsDependOnTheOrder) {
    const int64_t N = 3, C = 9, P = 100;
    const std::vector<float> v = cancellingValues(N * C * P, 99);
    const std::vector<uint32_t> lanes = plainLoop(v, N, C, P);
    int differ = 0;
    for (int64_t c = 0; c < C; ++c) {
        double sum = 0;
        for (int64_t n = 0; n < N; ++n)
            for (int64_t i = 0; i < P; ++i) sum += v[static_cast<std::size_t>((n * C + c) * P + i)];
        differ += bitsOf(static_cast<float>(sum)) != lanes[c];
    }
    EXPECT_GE(differ, 3);
}

// Which NaN comes out, case by case: the lane's first NaN inside the blocks of 8, the tail's own
// NaN over its lane's, Inf - Inf the default NaN; and a channel's result is its own.
TEST(ConvBiasGrad, NaNPayloadsFollowTheOperandOrder) {
    const float nanA = floatOf(0x7fc10000u), nanB = floatOf(0xffc20000u);  // payloads bf16 keeps
    const float nanC = floatOf(0x7f810000u);                               // signaling: comes out quiet
    const int64_t N = 2, C = 3, P = 11;                                    // one block of 8 and a tail of 3
    std::vector<float> v(static_cast<std::size_t>(N * C * P), 1.f);
    auto at = [&](int64_t n, int64_t c, int64_t i) -> float& {
        return v[static_cast<std::size_t>((n * C + c) * P + i)];
    };
    at(0, 0, 1) = nanA;  // channel 0: lane 1 meets nanA in the block, then nanB in the tail
    at(0, 0, 9) = nanB;
    at(1, 0, 2) = nanC;      // ... and the second image brings a third NaN
    at(0, 1, 0) = INFINITY;  // channel 1: Inf - Inf in lane 0 of the second image
    at(1, 1, 8) = -INFINITY;
    at(1, 1, 0) = INFINITY;
    at(0, 2, 3) = nanC;  // channel 2: one signaling NaN
    for (bool bf16 : {false, true}) {
        SCOPED_TRACE(bf16 ? "bf16" : "float");
        std::vector<float> db(static_cast<std::size_t>(C));
        const std::vector<uint16_t> b = bf16Bits(v);
        if (bf16)
            biasSums(b.data(), N, C, P, 0, C, db.data(), true);
        else
            biasSums(v.data(), N, C, P, 0, C, db.data(), true);
        EXPECT_EQ(bitsOf(db[0]), bitsOf(nanB));                // the tail's NaN wins in lane 1
        EXPECT_EQ(bitsOf(db[1]), 0xffc00000u);                 // the default NaN
        EXPECT_EQ(bitsOf(db[2]), bitsOf(nanC) | 0x00400000u);  // quieted
        EXPECT_EQ(bitsOf(db[0]), bf16 ? plainLoop(b, N, C, P)[0] : plainLoop(v, N, C, P)[0]);
    }
}

}  // namespace
}  // namespace opscope::kernels
