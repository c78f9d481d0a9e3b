// The convolution stages' alternative paths against the ones they replace:
//  - operands straight from bf16 storage (uint16_t bits) give bitwise the results of their
//    float32 widening, in the packed GEMM, im2col, every GEMM stage and the bias sum;
//  - gradInput of a stride-1 convolution as the forward convolution with flipped weights
//    matches a float64 scatter within float32 summation error, and has the same bits for any
//    thread count;
//  - gradWeight read from a zero-padded copy of X has the bits of the im2col path; fp32
//    gradInput as a gather from a padded copy of dy matches a float64 scatter within float32
//    summation error, has the same bits for any thread count, and applies to shallow scatters;
//  - the depthwise kernels read bf16 storage with the bits of its widening, and their register
//    versions sum exactly as the row loops do (fused multiply-adds, taps and lanes in order).
// Shapes: groups, strides, padding (leading, trailing, wider than the kernel), dilation, 1D and
// 3D, pointwise, tails that are not multiples of the vector width or of the GEMM panels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "conv_depthwise_registers.h"
#include "conv_im2col.h"
#include "conv_input_as_forward.h"
#include "conv_padded_input.h"
#include "conv_tap_rows.h"
#include "convolution_backward_kernel.h"
#include "opscope/parallel.h"
#include "packed_gemm.h"

namespace opscope::kernels {
namespace {

uint16_t bf16Bits(float v) {  // nearest even, finite inputs
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

float widen(uint16_t b) {
    const uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// bf16 values in [-1, 1] and their exact float32 widening.
struct Bf16Tensor {
    std::vector<uint16_t> bits;
    std::vector<float> wide;
};

Bf16Tensor randomBf16(int64_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    Bf16Tensor t;
    for (int64_t i = 0; i < n; ++i) {
        t.bits.push_back(bf16Bits(u(rng)));
        t.wide.push_back(widen(t.bits.back()));
    }
    return t;
}

struct Axis {
    int64_t x, k, stride, pad, dil, padEnd;
};

// A convolution geometry from per-axis (size, kernel, stride, leading and trailing padding,
// dilation); 1D and 2D leave the leading axes at size one.
ConvGeometry geometry(int64_t N, int64_t G, int64_t CY, int64_t CXg, std::vector<Axis> axes) {
    ConvGeometry g;
    g.N = N, g.G = G, g.CY = CY, g.CXg = CXg;
    const std::size_t off = 3 - axes.size();
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const Axis& a = axes[i];
        g.xs[off + i] = a.x, g.k[off + i] = a.k, g.stride[off + i] = a.stride;
        g.pad[off + i] = a.pad, g.dil[off + i] = a.dil;
        g.ys[off + i] = (a.x + a.pad + a.padEnd - a.dil * (a.k - 1) - 1) / a.stride + 1;
    }
    return g;
}

struct Case {
    std::string name;
    ConvGeometry g;
};

std::vector<Case> cases() {
    return {
        {"2d_3x3", geometry(2, 1, 20, 19, {{9, 3, 1, 1, 1, 1}, {37, 3, 1, 1, 1, 1}})},
        {"2d_groups3_stride2", geometry(2, 3, 9, 5, {{11, 3, 2, 1, 1, 0}, {13, 3, 2, 1, 1, 1}})},
        {"2d_stride3_dil2", geometry(1, 1, 7, 6, {{17, 3, 3, 2, 2, 1}, {19, 2, 3, 0, 2, 2}})},
        {"2d_pad_wider_than_kernel", geometry(2, 2, 6, 3, {{5, 2, 1, 3, 1, 2}, {6, 3, 1, 4, 1, 4}})},
        {"2d_asym_pad_dil", geometry(1, 1, 13, 17, {{8, 3, 1, 0, 2, 4}, {35, 3, 1, 3, 1, 0}})},
        {"2d_pointwise", geometry(2, 1, 14, 33, {{7, 1, 1, 0, 1, 0}, {9, 1, 1, 0, 1, 0}})},
        {"1d_k3", geometry(3, 1, 40, 24, {{77, 3, 1, 1, 1, 1}})},
        {"1d_groups2_dil3", geometry(2, 2, 10, 7, {{50, 4, 1, 2, 3, 5}})},
        {"3d_k3", geometry(1, 1, 12, 13, {{5, 3, 1, 1, 1, 1}, {6, 3, 1, 1, 1, 1}, {17, 3, 1, 1, 1, 1}})},
        // 23 x 61 = 1403 positions: the padded gather's tiles of 512 (two whole, one short) and row
        // panels that start anywhere along a row of 61.
        {"2d_3x3_long", geometry(1, 1, 6, 5, {{23, 3, 1, 1, 1, 1}, {61, 3, 1, 1, 1, 1}})},
        {"3d_mixed", geometry(2, 2, 6, 5, {{6, 2, 2, 1, 1, 0}, {5, 3, 1, 0, 2, 2}, {9, 3, 2, 1, 1, 1}})},
        // Stride 2 along W (its own vector paths): ResNet's downsampling rows (28 outputs), rows of
        // more than 32 outputs with a padded start, and long 1D rows with dilation and an even kernel.
        {"2d_stride2_resnet_row", geometry(1, 1, 8, 6, {{12, 3, 2, 1, 1, 1}, {56, 3, 2, 1, 1, 1}})},
        {"2d_stride2_wide", geometry(2, 1, 5, 4, {{7, 3, 2, 1, 1, 1}, {75, 3, 2, 1, 1, 0}})},
        {"1d_stride2_k4_dil2", geometry(2, 1, 6, 5, {{301, 4, 2, 3, 2, 2}})},
    };
}

int64_t numel(const ConvGeometry& g, bool xSide) { return g.N * (xSide ? g.CX() * g.xSize() : g.CY * g.ySize()); }

// ---- bf16 storage gives the bits of the float32 widening ----

TEST(ConvKernelPaths, PackedGemmFromBf16StorageHasTheBitsOfItsWidening) {
    if (!bf16StorageAvailable()) GTEST_SKIP() << "no AVX512-BF16 kernel in this build";
    struct Dims {
        int64_t M, N, K;
    };
    for (const Dims d : {Dims{1, 1, 1}, Dims{13, 33, 7}, Dims{25, 70, 513}, Dims{12, 32, 1030}, Dims{37, 5, 64}})
        for (int layout = 0; layout < 3; ++layout) {
            SCOPED_TRACE(std::to_string(d.M) + "x" + std::to_string(d.N) + "x" + std::to_string(d.K) + " layout " +
                         std::to_string(layout));
            // layout 0: rows contiguous in k; 1: k-major; 2: neither stride 1.
            const int64_t ars = layout == 0 ? d.K : layout == 1 ? 1 : 2 * d.K;
            const int64_t acs = layout == 0 ? 1 : layout == 1 ? d.M : 2;
            const int64_t brs = layout == 1 ? 1 : layout == 0 ? d.N : 2 * d.N;
            const int64_t bcs = layout == 1 ? d.K : layout == 0 ? 1 : 2;
            const Bf16Tensor a = randomBf16(2 * d.M * d.K, 5), b = randomBf16(2 * d.K * d.N, 6);
            for (bool accumulate : {false, true}) {
                std::vector<float> wide(static_cast<std::size_t>(d.M * d.N), 0.25f), narrow = wide;
                gemm(GemmKind::BFloat16, d.M, d.N, d.K, a.wide.data(), ars, acs, b.wide.data(), brs, bcs, wide.data(),
                     d.N, accumulate);
                gemmBf16Storage(GemmKind::BFloat16, d.M, d.N, d.K, a.bits.data(), ars, acs, b.bits.data(), brs, bcs,
                                narrow.data(), d.N, accumulate);
                EXPECT_EQ(wide, narrow) << "accumulate " << accumulate;
                PackedA packed;  // packed once, B from bf16 storage
                packed.pack(GemmKind::BFloat16, d.M, d.K, a.bits.data(), ars, acs);
                std::fill(narrow.begin(), narrow.end(), 0.25f);
                gemm(packed, d.N, b.bits.data(), brs, bcs, narrow.data(), d.N, accumulate);
                EXPECT_EQ(wide, narrow) << "packed once, accumulate " << accumulate;
            }
        }
}

TEST(ConvKernelPaths, PackingBf16StorageNeedsTheBf16Kind) {
    if (!bf16StorageAvailable()) GTEST_SKIP() << "no AVX512-BF16 kernel in this build";
    const uint16_t one = bf16Bits(1.f);
    PackedA packed;
    EXPECT_THROW(packed.pack(GemmKind::Float32, 1, 1, &one, 1, 1), std::logic_error);
}

// The index in X (channel cx of the group) that column row r reads at position p of Y
// (X[cx, p * stride - pad + tap * dilation]), -1 in the padding.
int64_t xIndexOf(const ConvGeometry& g, int64_t r, int64_t p) {
    const int64_t K = g.kernelSize(), cx = r / K, tap = r % K;
    const int64_t o[3] = {p / (g.ys[1] * g.ys[2]), p / g.ys[2] % g.ys[1], p % g.ys[2]};
    const int64_t k[3] = {tap / (g.k[1] * g.k[2]), tap / g.k[2] % g.k[1], tap % g.k[2]};
    int64_t at = cx;
    for (int a = 0; a < 3; ++a) {
        const int64_t i = o[a] * g.stride[a] - g.pad[a] + k[a] * g.dil[a];
        if (i < 0 || i >= g.xs[a]) return -1;
        at = at * g.xs[a] + i;
    }
    return at;
}

// cols[r * len + t] = X[xIndexOf(r, p0 + t)], 0 in the padding.
float im2colDefinition(const ConvGeometry& g, const std::vector<float>& x, int64_t r, int64_t p) {
    const int64_t at = xIndexOf(g, r, p);
    return at < 0 ? 0.f : x[static_cast<std::size_t>(at)];
}

// Both element types against the definition; the whole-vector stores stay inside the tile.
TEST(ConvKernelPaths, Im2colMatchesItsDefinitionInBothStorages) {
    constexpr std::size_t kGuard = 64;
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        const Bf16Tensor x = randomBf16(g.CXg * g.xSize(), 9);
        const int64_t rows = g.colRows(), Y = g.ySize();
        // Tiles of up to 45 positions (short row pieces: masked vectors) and 130 (1D rows of
        // more than 64 values: the plain copy).
        for (const auto [p0, cap] : {std::pair<int64_t, int64_t>{0, 45}, {Y / 3, 45}, {0, 130}}) {
            const int64_t len = std::min<int64_t>(Y - p0, cap);
            const auto n = static_cast<std::size_t>(rows * len);
            std::vector<float> wide(n + kGuard, -1.f);
            std::vector<uint16_t> narrow(n + kGuard, 0xFFFF);
            im2colTile(g, x.wide.data(), 0, g.CXg, p0, len, wide.data(), len);
            im2colTile(g, x.bits.data(), 0, g.CXg, p0, len, narrow.data(), len);
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t t = 0; t < len; ++t) {
                    const auto i = static_cast<std::size_t>(r * len + t);
                    const float want = im2colDefinition(g, x.wide, r, p0 + t);
                    ASSERT_EQ(wide[i], want) << "row " << r << " position " << t;
                    ASSERT_EQ(narrow[i], bf16Bits(want)) << "row " << r << " position " << t;
                }
            for (std::size_t i = n; i < n + kGuard; ++i) {
                ASSERT_EQ(wide[i], -1.f) << "written past the tile";
                ASSERT_EQ(narrow[i], 0xFFFF) << "written past the tile";
            }
        }
    }
}

std::vector<float> randomFloats(int64_t n, uint32_t seed) {  // full float32 mantissas: sums round
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& e : v) e = u(rng);
    return v;
}

// col2im adds each column value into the X element it was read from, the taps of a channel in
// row order (each X element gets at most one value per tap): bitwise that sequence of float adds
// onto what X held, for channel blocks that start past 0 and tiles with short segments.
TEST(ConvKernelPaths, Col2imIsTheAdjointAddedInTapOrder) {
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        const int64_t K = g.kernelSize(), Y = g.ySize(), X = g.xSize();
        const int64_t cx0 = g.CXg / 3, cx1 = g.CXg;
        const std::vector<float> x0 = randomFloats(g.CXg * X, 5);
        for (int64_t p0 : {int64_t{0}, Y / 3}) {
            const int64_t len = std::min<int64_t>(Y - p0, 45);
            const std::vector<float> cols = randomFloats((cx1 - cx0) * K * len, 6);
            std::vector<float> got = x0, want = x0;
            col2imTile(g, cols.data(), len, cx0, cx1, p0, len, got.data());
            for (int64_t r = cx0 * K; r < cx1 * K; ++r)
                for (int64_t t = 0; t < len; ++t) {
                    const int64_t at = xIndexOf(g, r, p0 + t);
                    if (at >= 0)
                        want[static_cast<std::size_t>(at)] += cols[static_cast<std::size_t>((r - cx0 * K) * len + t)];
                }
            for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "x element " << i;
        }
    }
}

struct StageResults {
    std::vector<float> scatter, gather, filter, bias;
};

// Every GEMM stage and the bias sum on operands of type T (float32 widening or bf16 storage).
template <class T>
StageResults runStages(const ConvGeometry& g, const ConvTiling& t, const std::vector<T>& w, const std::vector<T>& y,
                       const std::vector<T>& x) {
    StageResults r;
    r.scatter.assign(static_cast<std::size_t>(numel(g, true)), 0.f);
    r.gather.assign(static_cast<std::size_t>(numel(g, false)), 0.f);
    r.filter.assign(static_cast<std::size_t>(g.CY * g.colRows()), 0.f);
    r.bias.assign(static_cast<std::size_t>(g.CY), 0.f);
    std::vector<float> colsF(static_cast<std::size_t>(colsBufferFloats(g, t) + 1));
    std::vector<T> colsT(colsF.size());
    std::vector<float> partials(static_cast<std::size_t>(filterPartialFloats(g, t) + 1));
    convScatterInput(g, t, w.data(), y.data(), r.scatter.data(), colsF.data());
    convGatherOutput(g, t, w.data(), x.data(), r.gather.data(), colsT.data());
    convFilterGrad(g, t, y.data(), x.data(), r.filter.data(), partials.data(), colsT.data());
    biasGrad(g.N, g.CY, g.ySize(), y.data(), r.bias.data());
    return r;
}

// Every stage run from bf16 storage gives the bits of the same stage run on its float32 widening.
void expectBf16StorageBitsOfWidening(const ConvGeometry& g, const ConvTiling& t, uint32_t seed) {
    const Bf16Tensor w = randomBf16(g.CY * g.colRows(), seed), y = randomBf16(numel(g, false), seed + 1),
                     x = randomBf16(numel(g, true), seed + 2);
    const StageResults wide = runStages(g, t, w.wide, y.wide, x.wide);
    const StageResults narrow = runStages(g, t, w.bits, y.bits, x.bits);
    EXPECT_EQ(wide.scatter, narrow.scatter);
    EXPECT_EQ(wide.gather, narrow.gather);
    EXPECT_EQ(wide.filter, narrow.filter);
    EXPECT_EQ(wide.bias, narrow.bias);
}

TEST(ConvKernelPaths, StagesFromBf16StorageHaveTheBitsOfTheirWidening) {
    if (!bf16StorageAvailable()) GTEST_SKIP() << "no AVX512-BF16 kernel in this build";
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        ConvTiling t = chooseTiling(c.g, 2);
        t.gemm = GemmKind::BFloat16;
        expectBf16StorageBitsOfWidening(c.g, t, 1);
    }
}

// ---- gradWeight read in place from a zero-padded copy of X ----

// gradWeight through im2col or through the padded copy (t.filterPadded), operands of type T.
template <class T>
std::vector<float> filterGrad(const ConvGeometry& g, ConvTiling t, bool padded, const std::vector<T>& y,
                              const std::vector<T>& x, bool tapRows = false) {
    t.filterPadded = padded;
    t.filterTapRows = tapRows;
    std::vector<float> dw(static_cast<std::size_t>(g.CY * g.colRows()), -3.f);
    std::vector<float> partials(static_cast<std::size_t>(filterPartialFloats(g, t) + 1));
    std::vector<T> scratch(static_cast<std::size_t>(1 + (padded ? paddedCopyElements(g) : colsBufferFloats(g, t))));
    convFilterGrad(g, t, y.data(), x.data(), dw.data(), partials.data(), scratch.data());
    return dw;
}

// Every (row, position) of the column matrix read from the copy is the value im2col writes, for
// every geometry (strided ones split into stride phases), tiles starting mid-row, all images.
TEST(ConvKernelPaths, PaddedCopyHoldsTheIm2colValuesInEveryStridePhase) {
    int strided = 0;
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        if (!paddedCopyFits(g)) continue;
        strided += g.stride[0] * g.stride[1] * g.stride[2] > 1;
        const std::vector<float> x = randomFloats(numel(g, true), 41);
        std::vector<float> xp(static_cast<std::size_t>(paddedCopyElements(g)), -5.f);
        const PaddedX px = paddedXOf(g);
        padInput(g, px, x.data(), xp.data());
        const int64_t Y = g.ySize(), rows = g.colRows();
        std::vector<int32_t> kIndex(static_cast<std::size_t>(Y));
        for (int64_t p0 : {int64_t{0}, Y / 3}) {
            const int64_t len = Y - p0;
            paddedPositions(g, px, p0, len, kIndex.data());
            for (int64_t n = 0; n < g.N; ++n)
                for (int64_t grp = 0; grp < g.G; ++grp) {
                    const int64_t channel0 = n * g.CX() + grp * g.CXg;
                    const std::vector<float> xg(x.begin() + channel0 * g.xSize(),
                                                x.begin() + (channel0 + g.CXg) * g.xSize());
                    for (int64_t r = 0; r < rows; ++r)
                        for (int64_t k = 0; k < len; ++k) {
                            const float got = xp[static_cast<std::size_t>(channel0 * px.channelSize +
                                                                          px.rowOffset[static_cast<std::size_t>(r)] +
                                                                          kIndex[static_cast<std::size_t>(k)])];
                            ASSERT_EQ(got, im2colDefinition(g, xg, r, p0 + k)) << "row " << r << " position " << k;
                        }
                }
        }
        for (float v : xp) ASSERT_NE(v, -5.f) << "an element of the copy left unwritten";
    }
    EXPECT_GE(strided, 6);
}

// The padded copy holds the values im2col writes (zeros in the padding) at the offsets the GEMM
// reads, so gradWeight has the same bits, for 1, 2 and 3 workers (slices and group chunks), in
// float32 and from bf16 storage wherever the bf16 pairs allow it.
TEST(ConvKernelPaths, FilterFromPaddedInputHasTheBitsOfIm2col) {
    if (!packedGemmAvailable(GemmKind::Float32)) {  // no AVX-512: gradWeight always through im2col
        for (const Case& c : cases()) EXPECT_FALSE(paddedFilterApplies(c.g, chooseTiling(c.g, 1))) << c.name;
        GTEST_SKIP() << "the padded copy is read in place only by the AVX-512 packed kernel";
    }
    int padded = 0, bf16Padded = 0;
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        const Bf16Tensor y = randomBf16(numel(g, false), 21), x = randomBf16(numel(g, true), 22);
        for (int threads : {1, 2, 3}) {
            ConvTiling t = chooseTiling(g, threads);
            if (paddedFilterApplies(g, t)) {
                ++padded;
                EXPECT_EQ(filterGrad(g, t, true, y.wide, x.wide), filterGrad(g, t, false, y.wide, x.wide)) << threads;
            }
            t.gemm = GemmKind::BFloat16;
            if (!bf16StorageAvailable() || !paddedFilterApplies(g, t)) continue;
            ++bf16Padded;
            EXPECT_EQ(filterGrad(g, t, true, y.bits, x.bits), filterGrad(g, t, false, y.bits, x.bits)) << threads;
        }
    }
    // Every case at each thread count but the pointwise one, 1d_k3 (3 taps) and the strided 2-D
    // ones (9 and 6 taps over strides of 4 and 9 positions): 7 cases x 3; 3d_mixed (18 taps,
    // strides 2x1x2) keeps the strided copy covered.
    EXPECT_EQ(padded, 21);
    if (bf16StorageAvailable()) EXPECT_GE(bf16Padded, 3);
}

// The slices' sums are added by dW rows across the workers (one group is common): every row of
// every group, in each of the three layouts (rows, transposed from the padded copy, by tap), holds
// the sum of its slices: within float32 rounding of the one-slice result, no row left unwritten.
TEST(ConvKernelPaths, FilterSlicesAddUpInEveryRowOfEveryGroup) {
    int checked = 0;
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        const std::vector<float> y = randomFloats(numel(g, false), 61), x = randomFloats(numel(g, true), 62);
        ConvTiling one = chooseTiling(g, 1);
        one.tile = 16;
        ConvTiling three = one;
        three.workers = 3, three.filterByGroup = false;
        three.slices = std::min<int64_t>(3, g.N * ((g.ySize() + 15) / 16));
        if (three.slices < 2) continue;
        for (int layout = 0; layout < 3; ++layout) {
            const bool padded = layout == 1, tapRows = layout == 2;
            if ((padded && !paddedFilterApplies(g, three)) || (tapRows && !rowsOnly(g))) continue;
            ++checked;
            setNumThreads(3);
            const std::vector<float> sliced = filterGrad(g, three, padded, y, x, tapRows);
            setNumThreads(0);
            const std::vector<float> whole = filterGrad(g, one, padded, y, x, tapRows);
            for (std::size_t i = 0; i < whole.size(); ++i)
                ASSERT_NEAR(sliced[i], whole[i], 1e-4f * (1.0f + std::fabs(whole[i])))
                    << "layout " << layout << " at " << i;
        }
    }
    EXPECT_GE(checked, 12);
}

// ---- 1D gradWeight per tap from a window copy of X ----

// The window holds the values im2col writes, read per tap with the strides of the im2col rows'
// positions; dy's tile is packed as before: gradWeight has im2col's bits, for tiles of one, a few
// and many positions' windows (ragged last tiles), 1-3 workers (slices), groups (by-group chunks).
TEST(ConvKernelPaths, FilterByTapRowsHasTheBitsOfIm2col) {
    if (!packedGemmAvailable(GemmKind::Float32))  // FilterByTapRowsOnlyForRows checks it is never chosen then
        GTEST_SKIP() << "gradWeight by tap rows runs only on the AVX-512 packed kernel";
    const std::vector<Case> rows = {
        {"1d_k3", geometry(3, 1, 40, 24, {{77, 3, 1, 1, 1, 1}})},
        {"1d_groups2_dil3", geometry(2, 2, 10, 7, {{50, 4, 1, 2, 3, 5}})},
        {"1d_stride2_k4_dil2", geometry(2, 1, 6, 5, {{301, 4, 2, 3, 2, 2}})},
        {"1d_stride3_pad_wider_than_kernel", geometry(2, 1, 5, 3, {{40, 3, 3, 4, 1, 3}})},
        {"1d_groups4", geometry(1, 4, 8, 3, {{33, 3, 1, 1, 1, 1}})},
        {"2d_rows_of_one", geometry(2, 1, 6, 4, {{1, 1, 1, 0, 1, 0}, {29, 5, 1, 2, 1, 2}})},
    };
    int checked = 0;
    for (const Case& c : rows) {
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        ASSERT_TRUE(rowsOnly(g));
        const std::vector<float> y = randomFloats(numel(g, false), 31), x = randomFloats(numel(g, true), 32);
        for (int threads : {1, 2, 3})
            for (int64_t tile : {int64_t{0}, int64_t{16}, int64_t{21}}) {
                ConvTiling t = chooseTiling(g, threads);
                if (tile > 0) t.tile = tile;
                ASSERT_TRUE(filterByTapRows(g, t)) << tile;
                ++checked;
                EXPECT_EQ(filterGrad(g, t, false, y, x, true), filterGrad(g, t, false, y, x, false))
                    << threads << " threads, tile " << t.tile;
            }
    }
    EXPECT_EQ(checked, 54);
}

// Only rows (no H or D extent, kernel or padding) on the float32 packed kernel, never with the
// padded copy, and only where the window fits in the tile's im2col buffer.
TEST(ConvKernelPaths, FilterByTapRowsOnlyForRows) {
    ConvTiling t = chooseTiling(geometry(1, 1, 4, 4, {{30, 3, 1, 1, 1, 1}}), 1);
    EXPECT_EQ(filterByTapRows(geometry(1, 1, 4, 4, {{30, 3, 1, 1, 1, 1}}), t), packedGemmAvailable(GemmKind::Float32));
    EXPECT_FALSE(rowsOnly(geometry(1, 1, 4, 4, {{2, 1, 1, 0, 1, 0}, {30, 3, 1, 1, 1, 1}})));  // H = 2
    EXPECT_FALSE(rowsOnly(geometry(1, 1, 4, 4, {{1, 3, 1, 1, 1, 1}, {30, 3, 1, 1, 1, 1}})));  // kernel along H
    EXPECT_FALSE(rowsOnly(geometry(1, 1, 4, 4, {{1, 1, 2, 1, 1, 0}, {30, 3, 1, 1, 1, 1}})));  // padding along H
    EXPECT_FALSE(rowsOnly(geometry(1, 1, 4, 4, {{30, 1, 1, 0, 1, 0}})));                      // pointwise
    EXPECT_FALSE(rowsOnly(geometry(1, 4, 4, 1, {{30, 3, 1, 1, 1, 1}})));                      // depthwise
    const ConvGeometry g = geometry(1, 1, 4, 4, {{300, 3, 1, 1, 1, 1}});
    t = chooseTiling(g, 1);
    t.gemm = GemmKind::BFloat16;
    EXPECT_FALSE(filterByTapRows(g, t));
    t.gemm = GemmKind::Float32;
    t.filterPadded = true;
    EXPECT_FALSE(filterByTapRows(g, t));
    t.filterPadded = false;
    t.filterTapRows = false;
    EXPECT_FALSE(filterByTapRows(g, t));
    // A window wider than K rows of the tile: stride 5 over a 2-tap kernel, tiles of 16.
    const ConvGeometry wide = geometry(1, 1, 4, 4, {{300, 2, 5, 0, 1, 0}});
    t = chooseTiling(wide, 1);
    t.tile = 16;
    EXPECT_FALSE(filterByTapRows(wide, t));
}

// ---- gradInput of a stride-1 convolution as a forward convolution ----

// dx = Σ over (co, tap, position) of dy · w, scattered in float64, with the sum of |terms|.
void scatterReference(const ConvGeometry& g, const std::vector<float>& w, const std::vector<float>& dy,
                      std::vector<double>& dx, std::vector<double>& absSum) {
    dx.assign(static_cast<std::size_t>(numel(g, true)), 0.0);
    absSum = dx;
    const int64_t CYg = g.CYg(), K = g.kernelSize();
    for (int64_t n = 0; n < g.N; ++n)
        for (int64_t cy = 0; cy < g.CY; ++cy)
            for (int64_t od = 0; od < g.ys[0]; ++od)
                for (int64_t oh = 0; oh < g.ys[1]; ++oh)
                    for (int64_t ow = 0; ow < g.ys[2]; ++ow) {
                        const double v = dy[static_cast<std::size_t>(
                            (((n * g.CY + cy) * g.ys[0] + od) * g.ys[1] + oh) * g.ys[2] + ow)];
                        for (int64_t tap = 0; tap < K; ++tap) {
                            const int64_t kd = tap / (g.k[1] * g.k[2]), kh = tap / g.k[2] % g.k[1], kw = tap % g.k[2];
                            const int64_t id = od - g.pad[0] + kd * g.dil[0], ih = oh - g.pad[1] + kh * g.dil[1],
                                          iw = ow - g.pad[2] + kw * g.dil[2];
                            if (id < 0 || id >= g.xs[0] || ih < 0 || ih >= g.xs[1] || iw < 0 || iw >= g.xs[2]) continue;
                            for (int64_t ci = 0; ci < g.CXg; ++ci) {
                                const int64_t cx = cy / CYg * g.CXg + ci;
                                const double term = v * w[static_cast<std::size_t>((cy * g.CXg + ci) * K + tap)];
                                const auto at = static_cast<std::size_t>(
                                    (((n * g.CX() + cx) * g.xs[0] + id) * g.xs[1] + ih) * g.xs[2] + iw);
                                dx[at] += term;
                                absSum[at] += std::fabs(term);
                            }
                        }
                    }
}

// gradInput as the forward convolution with the flipped weights: through packed columns
// (convGatherOutput, GEMM kind `kind`) or read in place from a padded copy of dy
// (convGatherOutputPadded, float32).
enum class Gather { Columns, Padded };
std::vector<float> forwardGradInput(const ConvGeometry& g, int threads, GemmKind kind, const std::vector<float>& w,
                                    const std::vector<float>& dy, Gather how = Gather::Columns) {
    const ConvGeometry f = flippedGeometry(g);
    ConvTiling t = chooseTiling(f, threads);
    t.gemm = kind;
    std::vector<float> flipped(w.size()), dx(static_cast<std::size_t>(numel(g, true)), -7.f);
    if (how == Gather::Padded) {
        flipWeightsByTap(g, w.data(), flipped.data());
        std::vector<float> scratch(static_cast<std::size_t>(paddedGatherFloats(f, t)));
        convGatherOutputPadded(f, t, flipped.data(), dy.data(), dx.data(), scratch.data());
    } else {
        std::vector<float> cols(static_cast<std::size_t>(colsBufferFloats(f, t)));
        flipWeights(g, w.data(), flipped.data());
        convGatherOutput(f, t, flipped.data(), dy.data(), dx.data(), cols.data());
    }
    return dx;
}

// dx within float32 summation error of the float64 scatter: each element a float32 sum of exact
// products (bf16-valued operands), off by at most depth * 2^-24 * sum |terms|.
void expectScatterWithinSummationError(const ConvGeometry& g, const std::vector<float>& w, const std::vector<float>& dy,
                                       const std::vector<float>& dx) {
    std::vector<double> ref, absSum;
    scatterReference(g, w, dy, ref, absSum);
    const double depth = static_cast<double>(g.CYg() * g.kernelSize());
    ASSERT_EQ(dx.size(), ref.size());
    for (std::size_t i = 0; i < dx.size(); ++i)
        ASSERT_LE(std::fabs(dx[i] - ref[i]), depth * std::ldexp(1.0, -24) * absSum[i] + 1e-30) << "element " << i;
}

TEST(ConvKernelPaths, GradInputAsForwardMatchesTheScatter) {
    int stride1 = 0;
    for (const Case& c : cases()) {
        const ConvGeometry& g = c.g;
        if (!gradInputAsForward(g)) continue;
        ++stride1;
        SCOPED_TRACE(c.name);
        const Bf16Tensor w = randomBf16(g.CY * g.colRows(), 11), dy = randomBf16(numel(g, false), 12);
        for (GemmKind kind : {GemmKind::Float32, GemmKind::BFloat16}) {
            SCOPED_TRACE("kind " + std::to_string(static_cast<int>(kind)));
            expectScatterWithinSummationError(g, w.wide, dy.wide, forwardGradInput(g, 2, kind, w.wide, dy.wide));
        }
    }
    EXPECT_GE(stride1, 6) << "the table covers the stride-1 path";
}

TEST(ConvKernelPaths, GradInputAsForwardHasTheSameBitsForAnyThreadCount) {
    for (const Case& c : cases()) {
        const ConvGeometry& g = c.g;
        if (!gradInputAsForward(g)) continue;
        SCOPED_TRACE(c.name);
        const Bf16Tensor w = randomBf16(g.CY * g.colRows(), 13), dy = randomBf16(numel(g, false), 14);
        const std::vector<float> one = forwardGradInput(g, 1, GemmKind::Float32, w.wide, dy.wide);
        for (int threads : {2, 3, 5}) {
            setNumThreads(threads);
            EXPECT_EQ(forwardGradInput(g, threads, GemmKind::Float32, w.wide, dy.wide), one) << threads;
        }
        setNumThreads(0);
    }
}

// The float32 gather from a padded copy of dy: within float32 summation error of the float64
// scatter, and the same bits for 1, 2, 3 and 5 workers.
TEST(ConvKernelPaths, PaddedGatherMatchesTheScatterForAnyThreadCount) {
    int applied = 0;
    for (const Case& c : cases()) {
        const ConvGeometry& g = c.g;
        if (!gradInputAsForward(g) || !paddedGatherApplies(flippedGeometry(g), chooseTiling(flippedGeometry(g), 2)))
            continue;
        ++applied;
        SCOPED_TRACE(c.name);
        const Bf16Tensor w = randomBf16(g.CY * g.colRows(), 15), dy = randomBf16(numel(g, false), 16);
        const std::vector<float> one = forwardGradInput(g, 1, GemmKind::Float32, w.wide, dy.wide, Gather::Padded);
        expectScatterWithinSummationError(g, w.wide, dy.wide, one);
        for (int threads : {2, 3, 5}) {
            setNumThreads(threads);
            EXPECT_EQ(forwardGradInput(g, threads, GemmKind::Float32, w.wide, dy.wide, Gather::Padded), one) << threads;
        }
        setNumThreads(0);
    }
    EXPECT_GE(applied, 3) << "the table covers the padded gather";
}

// The gather's tile follows the thread count (512 positions on one worker; on two, halved to 256
// and then cut to the im2col tile, 224, for 4 items a worker), which the bits must not: each
// position is one dot product whatever its tile.
TEST(ConvKernelPaths, PaddedGatherTileFollowsTheWorkersNotTheBits) {
    const ConvGeometry g = geometry(1, 1, 64, 3, {{40, 3, 1, 1, 1, 1}, {40, 3, 1, 1, 1, 1}});
    const ConvGeometry f = flippedGeometry(g);
    ASSERT_TRUE(paddedGatherApplies(f, chooseTiling(f, 1)));
    EXPECT_EQ(gatherTile(f, chooseTiling(f, 1)), 512);
    EXPECT_EQ(chooseTiling(f, 2).tile, 224);
    EXPECT_EQ(gatherTile(f, chooseTiling(f, 2)), 224);
    const Bf16Tensor w = randomBf16(g.CY * g.colRows(), 17), dy = randomBf16(numel(g, false), 18);
    const std::vector<float> one = forwardGradInput(g, 1, GemmKind::Float32, w.wide, dy.wide, Gather::Padded);
    expectScatterWithinSummationError(g, w.wide, dy.wide, one);
    for (int threads : {2, 8}) {
        setNumThreads(threads);
        EXPECT_EQ(forwardGradInput(g, threads, GemmKind::Float32, w.wide, dy.wide, Gather::Padded), one) << threads;
    }
    setNumThreads(0);
}

// Only shallow float32 scatters (CYg <= 64) take the padded gather, and only without negative
// padding in the flipped geometry.
TEST(ConvKernelPaths, PaddedGatherOnlyForShallowFloat32Scatters) {
    ConvGeometry g = cases()[0].g;  // 2d_3x3, CY 20
    ConvTiling t = chooseTiling(flippedGeometry(g), 2);
    EXPECT_TRUE(paddedGatherApplies(flippedGeometry(g), t));
    t.gemm = GemmKind::BFloat16;
    EXPECT_FALSE(paddedGatherApplies(flippedGeometry(g), t));
    t.gemm = GemmKind::Float32;
    g.CY = 64;
    EXPECT_TRUE(paddedGatherApplies(flippedGeometry(g), t));
    g.CY = 72;
    EXPECT_FALSE(paddedGatherApplies(flippedGeometry(g), t));
    const ConvGeometry wide = cases()[3].g;  // padding 3-4 with kernels of 2-3: pad' < 0
    EXPECT_FALSE(paddedGatherApplies(flippedGeometry(wide), chooseTiling(flippedGeometry(wide), 2)));
}

TEST(ConvKernelPaths, StrideOtherThanOneKeepsTheScatter) {
    for (const Case& c : cases()) {
        bool stride1 = true;
        for (int a = 0; a < 3; ++a) stride1 = stride1 && c.g.stride[a] == 1;
        EXPECT_EQ(gradInputAsForward(c.g), stride1 && !c.g.pointwise() && !c.g.depthwise()) << c.name;
    }
}

// ---- depthwise kernels ----

std::vector<Case> depthwiseCases() {
    auto dw = [](int64_t N, int64_t C, std::vector<Axis> axes) { return geometry(N, C, C, 1, std::move(axes)); };
    return {
        {"dw_3x3", dw(2, 3, {{9, 3, 1, 1, 1, 1}, {37, 3, 1, 1, 1, 1}})},
        {"dw_wide_rows", dw(1, 2, {{4, 3, 1, 1, 1, 1}, {150, 3, 1, 1, 1, 1}})},
        {"dw_pad_wider_than_kernel", dw(2, 2, {{5, 2, 1, 3, 1, 2}, {6, 3, 1, 4, 1, 4}})},
        {"dw_asym_pad_dil", dw(1, 3, {{8, 3, 1, 0, 2, 4}, {35, 3, 1, 3, 2, 0}})},
        {"dw_stride2", dw(2, 3, {{11, 3, 2, 1, 1, 1}, {13, 3, 2, 1, 1, 0}})},
        {"dw_stride2x1", dw(1, 3, {{11, 3, 2, 1, 1, 1}, {20, 3, 1, 1, 1, 1}})},
        {"dw_1d_k5_dil2", dw(2, 4, {{100, 5, 1, 4, 2, 3}})},
        {"dw_3d_k3", dw(1, 2, {{5, 3, 1, 1, 1, 1}, {6, 3, 1, 1, 1, 1}, {17, 3, 1, 1, 1, 1}})},
        {"dw_7x7", dw(1, 2, {{12, 7, 1, 3, 1, 3}, {19, 7, 1, 3, 1, 3}})},
        {"dw_9x9_row_loops", dw(1, 2, {{10, 9, 1, 4, 1, 4}, {11, 9, 1, 4, 1, 4}})},
    };
}

TEST(ConvKernelPaths, DepthwiseFromBf16StorageHasTheBitsOfItsWidening) {
    for (const Case& c : depthwiseCases()) {  // on every build: no AVX512-BF16 instruction involved
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        ASSERT_TRUE(g.depthwise());
        expectBf16StorageBitsOfWidening(g, chooseTiling(g, 2), 21);
    }
}

// Flat index of (c, d, h, w) in a plane-major tensor of one image with `dims` per plane; -1 outside.
int64_t planeIndex(const int64_t* dims, int64_t plane, int64_t d, int64_t h, int64_t w) {
    if (d < 0 || d >= dims[0] || h < 0 || h >= dims[1] || w < 0 || w >= dims[2]) return -1;
    return ((plane * dims[0] + d) * dims[1] + h) * dims[2] + w;
}

// The row loops' sums written out (stride 1): each output, taps in order, one fused
// multiply-add per tap that reads inside the input, from +0. scatter: X from Y, else Y from X.
std::vector<float> stencilInOrder(const ConvGeometry& g, bool scatter, const std::vector<float>& w,
                                  const std::vector<float>& in) {
    const int64_t* outDims = scatter ? g.xs : g.ys;
    const int64_t* inDims = scatter ? g.ys : g.xs;
    const int64_t sign = scatter ? -1 : 1, K = g.kernelSize();
    std::vector<float> out(static_cast<std::size_t>(g.N * g.G * outDims[0] * outDims[1] * outDims[2]));
    for (int64_t plane = 0; plane < g.N * g.G; ++plane)
        for (int64_t d = 0; d < outDims[0]; ++d)
            for (int64_t h = 0; h < outDims[1]; ++h)
                for (int64_t x = 0; x < outDims[2]; ++x) {
                    float acc = 0.f;
                    for (int64_t tap = 0; tap < K; ++tap) {
                        const int64_t k[3] = {tap / (g.k[1] * g.k[2]), tap / g.k[2] % g.k[1], tap % g.k[2]};
                        int64_t r[3];
                        for (int a = 0; a < 3; ++a) r[a] = sign * (k[a] * g.dil[a] - g.pad[a]);
                        const int64_t at = planeIndex(inDims, plane, d + r[0], h + r[1], x + r[2]);
                        if (at >= 0)
                            acc = std::fma(w[static_cast<std::size_t>(plane % g.G * K + tap)],
                                           in[static_cast<std::size_t>(at)], acc);
                    }
                    out[static_cast<std::size_t>(planeIndex(outDims, plane, d, h, x))] = acc;
                }
    return out;
}

// The filter's sums written out (stride 1 along W): per channel and tap 16 lanes; images, Y rows
// and the valid columns [lo, hi) of each row in order, position j into lane (j - lo) mod 16 by a
// fused multiply-add; then the lanes added in order from +0.
std::vector<float> filterInOrder(const ConvGeometry& g, const std::vector<float>& y, const std::vector<float>& x) {
    const int64_t K = g.kernelSize();
    std::vector<float> dw(static_cast<std::size_t>(g.G * K));
    for (int64_t c = 0; c < g.G; ++c)
        for (int64_t tap = 0; tap < K; ++tap) {
            const int64_t k[3] = {tap / (g.k[1] * g.k[2]), tap / g.k[2] % g.k[1], tap % g.k[2]};
            float lanes[16] = {};
            for (int64_t n = 0; n < g.N; ++n)
                for (int64_t od = 0; od < g.ys[0]; ++od)
                    for (int64_t oh = 0; oh < g.ys[1]; ++oh) {
                        const int64_t id = od * g.stride[0] - g.pad[0] + k[0] * g.dil[0];
                        const int64_t ih = oh * g.stride[1] - g.pad[1] + k[1] * g.dil[1];
                        int64_t lo = -1;
                        for (int64_t ow = 0; ow < g.ys[2]; ++ow) {
                            const int64_t xi = planeIndex(g.xs, n * g.G + c, id, ih, ow - g.pad[2] + k[2] * g.dil[2]);
                            if (xi < 0) continue;
                            if (lo < 0) lo = ow;
                            float& lane = lanes[(ow - lo) % 16];
                            const int64_t yi = planeIndex(g.ys, n * g.G + c, od, oh, ow);
                            lane = std::fma(y[static_cast<std::size_t>(yi)], x[static_cast<std::size_t>(xi)], lane);
                        }
                    }
            float sum = 0.f;
            for (float l : lanes) sum += l;
            dw[static_cast<std::size_t>(c * K + tap)] = sum;
        }
    return dw;
}

TEST(ConvKernelPaths, DepthwiseRegisterKernelsSumAsTheRowLoops) {
    if (!depthwiseRegisterKernelsAvailable()) GTEST_SKIP() << "no AVX-512 in this build: the row loops run";
    int stencils = 0, filters = 0;
    for (const Case& c : depthwiseCases()) {
        SCOPED_TRACE(c.name);
        const ConvGeometry& g = c.g;
        // Full float32 values: products of bf16 values are exact, so they would not tell a fused
        // multiply-add from a multiply and an add.
        const std::vector<float> w = randomFloats(g.CY * g.colRows(), 31), y = randomFloats(numel(g, false), 32),
                                 x = randomFloats(numel(g, true), 33);
        for (int threads : {1, 3}) {  // planes and channels own their outputs: any thread count
            setNumThreads(threads);
            const StageResults r = runStages(g, chooseTiling(g, threads), w, y, x);
            if (depthwiseStencilApplies(g)) {
                EXPECT_EQ(r.scatter, stencilInOrder(g, true, w, y)) << threads << " threads";
                EXPECT_EQ(r.gather, stencilInOrder(g, false, w, x)) << threads << " threads";
                stencils += threads == 1;
            }
            if (depthwiseFilterLanesApply(g)) {
                EXPECT_EQ(r.filter, filterInOrder(g, y, x)) << threads << " threads";
                filters += threads == 1;
            }
        }
        setNumThreads(0);
    }
    EXPECT_GE(stencils, 7);
    EXPECT_GE(filters, 8);
}

}  // namespace
}  // namespace opscope::kernels
