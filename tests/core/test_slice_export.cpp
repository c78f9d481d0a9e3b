// What leaves a heatmap: the slice as a tensor of its dtype, CSV, one value at full precision,
// the .npy writer (round-tripped through the reader), and the statistics the dataset view shows.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <unistd.h>

#include "opscope/host_tensor.h"
#include "opscope/import/npy.h"
#include "opscope/stats.h"
#include "opscope/view/slice_export.h"

namespace opscope::view {
namespace {

HostTensor iota(DType dt, std::vector<int64_t> shape) {
    std::vector<double> v(static_cast<std::size_t>(shapeNumel(shape)));
    std::iota(v.begin(), v.end(), 0.0);
    return HostTensor::fromDoubles(dt, std::move(shape), v);
}

void expectSameValues(const HostTensor& a, const HostTensor& b) {
    ASSERT_EQ(a.dtype(), b.dtype());
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(a.getAsDouble(i), b.getAsDouble(i)) << i;
}

TEST(SliceExport, SliceViewMatchesThePlaneForAnyAxisPair) {
    const HostTensor t = iota(DType::Float16, {2, 3, 4});
    const SliceSpec s{2, 0, {0, 2, 0}};
    const HostTensor slice = HostTensor::copyOf(sliceView(t.view(), s));
    const Plane p = extractPlane(t.view(), s);
    ASSERT_EQ(slice.dtype(), DType::Float16);
    ASSERT_EQ(slice.shape(), (std::vector<int64_t>{4, 2}));
    for (int64_t r = 0; r < 4; ++r)
        for (int64_t c = 0; c < 2; ++c) EXPECT_EQ(slice.getAsDouble(r * 2 + c), p.at(r, c));
    // A rank-1 tensor is one row.
    const HostTensor row = HostTensor::copyOf(sliceView(iota(DType::Int32, {5}).view(), defaultSlice({5})));
    EXPECT_EQ(row.shape(), (std::vector<int64_t>{1, 5}));
    EXPECT_EQ(row.getAsDouble(4), 4.0);
}

TEST(SliceExport, FullPrecisionReadsBackAsTheSameValue) {
    EXPECT_EQ(fullPrecisionText(static_cast<double>(0.1f), DType::Float32), "0.1");
    EXPECT_EQ(fullPrecisionText(0.1, DType::Float64), "0.1");
    EXPECT_EQ(fullPrecisionText(static_cast<double>(1.0f / 3.0f), DType::Float32), "0.33333334");
    EXPECT_EQ(fullPrecisionText(1.0 / 3.0, DType::Float64), "0.3333333333333333");
    EXPECT_EQ(std::stod(fullPrecisionText(1.0 / 3.0, DType::Float64)), 1.0 / 3.0);
    EXPECT_EQ(fullPrecisionText(-7, DType::Int64), "-7");
    EXPECT_EQ(fullPrecisionText(18446744073709549568.0, DType::UInt64), "18446744073709549568");
    EXPECT_EQ(fullPrecisionText(std::nan(""), DType::Float32), "nan");
    EXPECT_EQ(fullPrecisionText(-HUGE_VAL, DType::Float16), "-inf");
}

TEST(SliceExport, CsvHasOneLinePerRow) {
    Plane p;
    p.rows = 2;
    p.cols = 3;
    p.values = {0, 0.5, -1, static_cast<double>(0.1f), std::nan(""), 3};
    EXPECT_EQ(planeCsv(p, DType::Float32), "0,0.5,-1\n0.1,nan,3\n");
}

TEST(NpyWriter, RoundTripsThroughTheReaderForEveryDtype) {
    for (DType dt : {DType::Float16, DType::Float32, DType::Float64, DType::Int8, DType::Int16, DType::Int32,
                     DType::Int64, DType::UInt8, DType::Bool}) {
        const HostTensor t = dt == DType::Bool ? HostTensor::fromDoubles(dt, {2, 2}, {1, 0, 0, 1}) : iota(dt, {3, 4});
        expectSameValues(import::parseNpy(import::npyBytes(t.view()), "t"), t);
    }
    const HostTensor bf = iota(DType::BFloat16, {7});
    import::NpyOptions asBf16;
    asBf16.uint16AsBFloat16 = true;
    expectSameValues(import::parseNpy(import::npyBytes(bf.view()), "bf", asBf16), bf);
    EXPECT_EQ(import::parseNpy(import::npyBytes(bf.view()), "bf").dtype(), DType::UInt16);
    const HostTensor scalar = HostTensor::fromDoubles(DType::Float32, {}, {2.5});
    expectSameValues(import::parseNpy(import::npyBytes(scalar.view()), "s"), scalar);
    // The header is padded so the data starts on a 64-byte boundary, as numpy writes it.
    const std::string bytes = import::npyBytes(iota(DType::Float32, {3, 4}).view());
    EXPECT_EQ((bytes.size() - 12 * 4) % 64, 0u);
}

TEST(NpyWriter, WritesAStridedViewInRowMajorOrderAtomically) {
    const HostTensor t = iota(DType::Float32, {3, 4});
    TensorView transposed = t.view();
    transposed.shape = {4, 3};
    transposed.strides = {1, 4};
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("npy_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "t.npy").string();
    import::writeNpy(path, transposed);
    expectSameValues(import::readNpy(path), HostTensor::copyOf(transposed));
    // Never over an input.
    EXPECT_THROW(import::writeNpy(path, t.view(), {path}), std::runtime_error);
    expectSameValues(import::readNpy(path), HostTensor::copyOf(transposed));
    std::filesystem::remove_all(dir);
}

TEST(TensorStatistics, StandardDeviationAndZerosOverFiniteValues) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const HostTensor t = HostTensor::fromDoubles(DType::Float64, {6}, {1e9 + 1, 1e9 - 1, nan, 1e9 + 1, 1e9 - 1, 0});
    const TensorStats s = computeStats(t.view());
    EXPECT_EQ(s.zeroCount, 1);
    EXPECT_EQ(s.nanCount, 1);
    // Population std of {1e9±1 (x4), 0}: mean 8e8, no cancellation from the large mean.
    const double mean = 4e9 / 5;
    const double var = (4 * (1e9 - mean) * (1e9 - mean) + 4 + mean * mean) / 5;
    EXPECT_NEAR(s.stddev, std::sqrt(var), 1e-6);
    const TensorStats c = computeStats(HostTensor::fromDoubles(DType::Float32, {3}, {1e6f + 1, 1e6f - 1, 1e6f}).view());
    EXPECT_NEAR(c.stddev, std::sqrt(2.0 / 3.0), 1e-9);
    EXPECT_EQ(c.zeroCount, 0);
}

}  // namespace
}  // namespace opscope::view
