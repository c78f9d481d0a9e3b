// ops::compareTensorSets, what `opscope-cli compare A B` of two checkpoints and the debugger's
// group compare both run: the keys' order, a key one side lacks, a failing key, progress after
// each key, and a cancel that stops between keys.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "opscope/import/npy.h"
#include "opscope/ops/tensor_sets.h"
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
                         return HostTensor::fromDoubles(DType::Float32, {4}, v);
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
