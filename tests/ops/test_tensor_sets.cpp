// ops::compareTensorSets, what `opscope-cli compare A B` of two checkpoints and the debugger's
// group compare both run: the keys' order, a key one side lacks, a failing key, progress after
// each key, and a cancel that stops between keys.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sanitizers.h"
#include "opscope/import/npy.h"
#include "opscope/metric_fields.h"
#include "opscope/ops/tensor_sets.h"
#include "opscope/process_memory.h"
#include "scratch_dir.h"

namespace opscope::ops {
namespace {

// A set whose tensor of key k is [k.size(), k.size() + 1, ...] (four float32s), scaled by `scale`
// for the keys in `scaled`, counting its reads.
TensorSet fakeSet(const std::string& name, std::vector<std::string> keys, std::vector<std::string> scaled = {},
                  std::shared_ptr<int> reads = std::make_shared<int>(0)) {
    return TensorSet{name, std::move(keys), [scaled, reads](const std::string& key) {
                         ++*reads;
                         const double scale = std::find(scaled.begin(), scaled.end(), key) != scaled.end() ? 1.5 : 1.0;
                         std::vector<double> v;
                         for (int i = 0; i < 4; ++i) v.push_back(scale * static_cast<double>(key.size() + i));
                         return heldTensor(HostTensor::fromDoubles(DType::Float32, {4}, v));
                     }};
}

TEST(TensorSets, EveryKeyOfEitherSetIsOneComparisonInTheActualsOrder) {
    const TensorSet actual = fakeSet("a.pt", {"w", "bias", "only_a"}, {"bias"});
    const TensorSet reference = fakeSet("b.pt", {"only_b", "bias", "w"});
    EXPECT_EQ(comparedKeys(actual, reference), (std::vector<std::string>{"w", "bias", "only_a", "only_b"}));
    std::vector<std::size_t> progress;
    SetCompareControl control;
    control.compared = [&](const Comparison& c, std::size_t done, std::size_t total) {
        EXPECT_EQ(total, 4u);
        progress.push_back(done);
        EXPECT_FALSE(c.output.empty());
    };
    const std::vector<Comparison> out = compareTensorSets(actual, reference, metrics::parseStandard("cann"), control);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(progress, (std::vector<std::size_t>{1, 2, 3, 4}));
    EXPECT_TRUE(out[0].judgement.passed());
    EXPECT_FALSE(out[1].judgement.passed()) << "bias is 1.5 times the reference's";
    EXPECT_TRUE(out[1].compared);
    EXPECT_FALSE(out[2].compared);
    EXPECT_NE(out[2].note.find("b.pt has no 'only_a'"), std::string::npos) << out[2].note;
    EXPECT_NE(out[3].note.find("a.pt has no 'only_b'"), std::string::npos) << out[3].note;
}

TEST(TensorSets, ACancelStopsBetweenKeysWithTheComparisonsMade) {
    auto reads = std::make_shared<int>(0);
    const TensorSet actual = fakeSet("a", {"k1", "k2", "k3", "k4"}, {}, reads);
    const TensorSet reference = fakeSet("b", {"k1", "k2", "k3", "k4"}, {}, reads);
    std::atomic<bool> cancelled{false};
    SetCompareControl control;
    control.cancelled = &cancelled;
    control.compared = [&](const Comparison&, std::size_t done, std::size_t) { cancelled = done == 2; };
    const std::vector<Comparison> out = compareTensorSets(actual, reference, metrics::parseStandard("cann"), control);
    EXPECT_EQ(out.size(), 2u);
    EXPECT_EQ(*reads, 4) << "two keys, two sides: nothing read after the cancel";
}

}  // namespace
}  // namespace opscope::ops

namespace opscope::ops {
namespace {

// A folder of tensor files (an msprobe dump's dump_tensor_data): its tensor files below it, keyed by
// relative path in name order; other files and symbolic links are not members; a member that
// cannot be read is one comparison not compared, and told, while the others go on.
TEST(TensorSets, AFolderIsItsTensorFilesByRelativePath) {
    opscope::test::ScratchDir a("folder_a"), b("folder_b");
    const HostTensor x = HostTensor::fromDoubles(DType::Float32, {3}, {1, 2, 3});
    for (const auto* dir : {&a, &b}) {
        std::filesystem::create_directories(dir->file("sub"));
        import::writeNpy(dir->file("sub/x.npy"), x.view());
        import::writeNpy(dir->file("b.npy"), x.view());
        std::ofstream(dir->file("readme.txt")) << "not a tensor";
    }
    std::ofstream(a.file("broken.npy")) << "not numpy";
    std::ofstream(b.file("broken.npy")) << "not numpy";
    std::filesystem::create_symlink(a.file("b.npy"), b.file("link.npy"));
    const TensorSet setA = tensorFolderSet(a.path()), setB = tensorFolderSet(b.path());
    EXPECT_EQ(setA.keys, (std::vector<std::string>{"b.npy", "broken.npy", "sub/x.npy"}));
    EXPECT_EQ(setB.keys, setA.keys) << "the symbolic link is not a member";
    std::vector<std::string> unreadable;
    SetCompareControl control;
    control.unreadable = [&](const std::string& key, const std::string&) { unreadable.push_back(key); };
    const std::vector<Comparison> out = compareTensorSets(setA, setB, metrics::parseStandard("cann"), control);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_TRUE(out[0].judgement.passed());
    EXPECT_FALSE(out[1].compared);
    EXPECT_NE(out[1].note.find("cannot read"), std::string::npos) << out[1].note;
    EXPECT_TRUE(out[2].judgement.passed()) << "the key after an unreadable one is still compared";
    EXPECT_EQ(unreadable, (std::vector<std::string>{"broken.npy"}));
    EXPECT_THROW(tensorFolderSet(a.file("b.npy")), ContentError);
}

}  // namespace
}  // namespace opscope::ops

namespace opscope::ops {
namespace {

// Two tensors over a band are compared a band of each at a time, to the same bits as whole, with
// the worst elements' coordinates in the whole shape; a cancel between bands gives nothing.
TEST(TensorSets, APairOverABandIsComparedInBandsToTheSameBits) {
    std::vector<double> a(6 * 8 * 10), r(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        r[i] = std::sin(0.37 * static_cast<double>(i)) * 4;
        a[i] = r[i] * (1 + 1e-4 * std::cos(static_cast<double>(i)));
    }
    a[417] = r[417] + 0.5;  // the worst, at [5, 1, 7]
    a[100] = std::numeric_limits<double>::quiet_NaN();
    const TensorHandle actual = heldTensor(HostTensor::fromDoubles(DType::Float32, {6, 8, 10}, a));
    const TensorHandle reference = heldTensor(HostTensor::fromDoubles(DType::Float64, {6, 8, 10}, r));
    const metrics::Standard cann = metrics::parseStandard("cann");
    int bandsRead = 0;
    TensorHandle counted = actual;
    counted.readBlock = [&](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
        ++bandsRead;
        return actual.readBlock(start, count);
    };
    const Comparison whole = *compareTensors("w", "a", actual, "b", reference, DType::Float32, cann);
    const Comparison bands = *compareTensors("w", "a", counted, "b", reference, DType::Float32, cann, 8 * 30);
    EXPECT_EQ(bandsRead, 18);  // three rows of 10 a band (of float64's 8 bytes: the larger side decides)
    for (const metrics::MetricField& f : metrics::metricFields()) {
        const std::optional<double> x = f.value(whole.metrics), y = f.value(bands.metrics);
        EXPECT_TRUE(x == y || (x && y && std::isnan(*x) && std::isnan(*y))) << f.key;
    }
    EXPECT_EQ(bands.metrics.worstAbs.coords, (std::vector<int64_t>{5, 1, 7}));
    EXPECT_EQ(bands.judgement.verdict, whole.judgement.verdict);
    EXPECT_EQ(bands.judgement.reason, whole.judgement.reason);

    std::atomic<bool> cancelled{false};
    bandsRead = 0;
    counted.readBlock = [&](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
        cancelled = ++bandsRead == 3;
        return actual.readBlock(start, count);
    };
    EXPECT_FALSE(compareTensors("w", "a", counted, "b", reference, DType::Float32, cann, 8 * 30, &cancelled));
    EXPECT_EQ(bandsRead, 3);

    const TensorHandle other = heldTensor(HostTensor::fromDoubles(DType::Float32, {7}, std::vector<double>(7, 1.0)));
    const Comparison counts = *compareTensors("w", "a", actual, "b", other, DType::Float32, cann, 8 * 30);
    EXPECT_FALSE(counts.compared);
    EXPECT_NE(counts.note.find("the element counts differ"), std::string::npos) << counts.note;
}

// Two shapes of the same elements (a [6, 8, 10] dump against a flat [480] golden) over a band go
// a band of each at a time too, cut where either side's band ends: the same bits as whole, no
// read larger than a band, and the worst element's coordinates in the actual's shape.
TEST(TensorSets, DifferentlyShapedPairsAreComparedInBandsToTheSameBits) {
    std::vector<double> a(6 * 8 * 10), r(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        r[i] = std::cos(0.91 * static_cast<double>(i)) * 3;
        a[i] = r[i] * (1 + 2e-4 * std::sin(static_cast<double>(i)));
    }
    a[263] = r[263] - 0.25;  // the worst, at [3, 2, 3]
    const TensorHandle actual = heldTensor(HostTensor::fromDoubles(DType::Float32, {6, 8, 10}, a));
    const TensorHandle flat = heldTensor(HostTensor::fromDoubles(DType::Float64, {480}, r));
    const TensorHandle rows = heldTensor(HostTensor::fromDoubles(DType::Float64, {16, 30}, r));
    const metrics::Standard cann = metrics::parseStandard("cann");
    const uint64_t band = 8 * 35;  // 35 elements: 3 rows of 10 on one side, 35 of the flat one
    for (const TensorHandle* reference : {&flat, &rows}) {
        int64_t largestRead = 0, reads = 0;
        TensorHandle counted = *reference;
        counted.readBlock = [&](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
            ++reads;
            largestRead = std::max(largestRead, shapeNumel(count));
            return reference->readBlock(start, count);
        };
        counted.read = []() -> HostTensor { throw std::logic_error("a big pair is never read whole"); };
        const Comparison whole = *compareTensors("w", "a", actual, "b", *reference, DType::Float32, cann);
        const Comparison bands = *compareTensors("w", "a", actual, "b", counted, DType::Float32, cann, band);
        ASSERT_TRUE(bands.compared) << bands.note;
        EXPECT_LE(largestRead, 35);
        EXPECT_GE(reads, 14);  // 480 elements in reads of at most 35
        for (const metrics::MetricField& f : metrics::metricFields()) {
            const std::optional<double> x = f.value(whole.metrics), y = f.value(bands.metrics);
            EXPECT_TRUE(x == y || (x && y && std::isnan(*x) && std::isnan(*y))) << f.key;
        }
        EXPECT_EQ(bands.metrics.worstAbs.coords, (std::vector<int64_t>{3, 2, 3}));
        EXPECT_EQ(bands.judgement.reason, whole.judgement.reason);
    }
}

// Two 256 MiB float32 .npy files (sparse: zeros but a value) compared key by key in 16 MiB bands:
// memory grows by about two bands, not by the two tensors (512 MiB), and the differing value is
// found where it is.
TEST(TensorSets, TwoBigTensorsCompareInTwoBandsOfMemory) {
    returnLargeBlocksToTheSystem();  // as the CLI and the debugger do first
    opscope::test::ScratchDir a("big_a"), b("big_b");
    const int64_t rows = 8192, cols = 8192;
    for (const auto* dir : {&a, &b}) {
        HostTensor head(DType::Float32, {1, cols});
        head.dataAs<float>()[3] = dir == &a ? 2.0f : 1.0f;
        std::string bytes = import::npyBytes(head.view());
        const std::size_t length = static_cast<std::size_t>(bytes[8] | (bytes[9] << 8));
        std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (8192, 8192), }";
        header.append(length - 1 - header.size(), ' ');
        bytes.replace(10, length, header + "\n");
        std::ofstream(dir->file("w.npy"), std::ios::binary) << bytes;
        std::filesystem::resize_file(dir->file("w.npy"), 10 + length + uint64_t(4) * rows * cols);
    }
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const std::vector<Comparison> out = compareTensorSets(tensorFolderSet(a.path()), tensorFolderSet(b.path()),
                                                          metrics::parseStandard("cann"), {}, uint64_t(16) << 20);
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(out[0].compared) << out[0].note;
    EXPECT_EQ(out[0].metrics.count, rows * cols);
    EXPECT_EQ(out[0].metrics.worstAbs.coords, (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(out[0].metrics.maxAbsError, 1.0);
    if (!test::kSanitizedAllocator)  // ASan's quarantine keeps freed bands
        EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 96 * 1024) << "KiB of peak memory grew";
}

}  // namespace
}  // namespace opscope::ops
