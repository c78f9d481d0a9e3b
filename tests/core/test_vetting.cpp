// Vetting untrusted files in a child process (opscope/h5/vetting.h): how a child's end becomes
// a sentence (with a validator that crashes, hangs or runs out of memory on purpose), and
// vetFile() end to end with opscope-vet on a good file and on byte-flipped files that crash
// libhdf5.
#include <fcntl.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "sanitizers.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/h5_handle.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "scratch_dir.h"

namespace opscope {
namespace {

namespace fs = std::filesystem;
using h5::ChildOutcome;
using h5::VetLimits;
using test::errorOf;

const fs::path kRoot = OPSCOPE_SOURCE_DIR;

ChildOutcome runChild(const std::vector<std::string>& args, double seconds = 10, uint64_t memory = 0) {
    std::vector<std::string> argv{OPSCOPE_VET_TEST_CHILD};
    argv.insert(argv.end(), args.begin(), args.end());
    VetLimits l;
    l.seconds = seconds;
    l.memoryBytes = memory;
    return h5::runLimitedChild(argv, l);
}

TEST(VetChild, ExitZeroIsOk) {
    const ChildOutcome o = runChild({"ok"});
    EXPECT_TRUE(o.ok) << o.reason;
}

TEST(VetChild, CrashIsNamedBySignal) {
    const ChildOutcome o = runChild({"crash"});
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.reason, "reading it crashed with SIGSEGV");
}

TEST(VetChild, HangIsKilledAtTheWallClockLimit) {
    for (const char* mode : {"hang", "spin"}) {
        const auto start = std::chrono::steady_clock::now();
        const ChildOutcome o = runChild({mode}, 0.5);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_FALSE(o.ok) << mode;
        EXPECT_EQ(o.reason, "reading it did not finish within 0.5 s") << mode;
        EXPECT_LT(took, 3.0) << mode;
    }
}

TEST(VetChild, MemoryLimitIsInForce) {
    if (h5::defaultVetLimits(0, false).memoryBytes == 0) GTEST_SKIP() << "sanitizer build: no address-space limit";
    // 512 MiB is granted without a limit and refused under a 256 MiB one.
    EXPECT_TRUE(runChild({"alloc", "512"}).ok);
    const ChildOutcome o = runChild({"alloc", "512"}, 10, 256ull << 20);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.reason, "reading it needs more than 256 MiB of memory");
}

TEST(VetChild, InheritsNoFilesButItsStandardStreams) {
    const int fd = ::open("/dev/null", O_RDONLY);  // not close-on-exec: would be inherited by exec
    ASSERT_GE(fd, 0);
    EXPECT_TRUE(runChild({"fds"}).ok);
    ::close(fd);
}

TEST(VetChild, OtherEndsAreNamed) {
    EXPECT_EQ(runChild({"status", "5"}).reason, "the validating process ended with status 5");
    EXPECT_EQ(runChild({"asan"}).reason, "reading it failed a memory check: AddressSanitizer: heap-buffer-overflow");
    EXPECT_THROW(h5::runLimitedChild({"/nonexistent/validator"}, VetLimits{}), std::runtime_error);
}

TEST(VetLimits, GrowWithTheFileWhenDataIsRead) {
    const VetLimits meta = h5::defaultVetLimits(1ull << 30, false);
    const VetLimits data = h5::defaultVetLimits(1ull << 30, true);
    EXPECT_EQ(meta.seconds, 15);
    EXPECT_EQ(data.seconds, 15 + 16);
    if (meta.memoryBytes) EXPECT_EQ(meta.memoryBytes, (2ull << 30) + (4ull << 30));
}

TEST(VetFile, HelperIsFound) { EXPECT_FALSE(h5::vetHelperPath().empty()); }

TEST(VetFile, BundledDatasetPasses) {
    const std::string good = (kRoot / "datasets" / "group_norm_backward.h5").string();
    ASSERT_TRUE(fs::exists(good));  // vetFile leaves missing files to the open
    EXPECT_NO_THROW(h5::vetFile(good));
    EXPECT_NO_THROW(h5::vetFile(good, {"/"}));
    EXPECT_NO_THROW(h5::vetFile(good, {"/group_norm_backward/fp32/basic/inputs/gradOut"}));
}

TEST(VetFile, CrashingFileIsCorrupt) {
    // Byte flips that make libhdf5 1.10 overflow a heap buffer reading a string attribute.
    const std::string bad = (kRoot / "tests" / "data" / "malformed" / "01096.h5").string();
    const std::string e = errorOf<FileError>([&] { h5::vetFile(bad); });
    EXPECT_EQ(e.rfind("cannot open '" + bad + "': the file is corrupt (reading it ", 0), 0u) << e;
    // Remembered: the second answer needs no child.
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(errorOf<FileError>([&] { h5::vetFile(bad, {"/"}); }), e);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.05);
}

TEST(VetFile, ANewVersionOfTheFileIsVettedAgain) {
    test::ScratchDir dir;
    const std::string f = dir.file("changing.h5");
    fs::copy_file(kRoot / "datasets" / "rms_norm_grad.h5", f);
    EXPECT_NO_THROW(h5::vetFile(f, {"/"}));
    fs::copy_file(kRoot / "tests" / "data" / "malformed" / "02622.h5", f, fs::copy_options::overwrite_existing);
    EXPECT_CONTAINS(errorOf<FileError>([&] { h5::vetFile(f); }), "the file is corrupt");
}

// A file version's verdict is kept until forgetVettingResults(): here a crashing file put in
// place of a vetted one with the same size and modification time passes from the cache, and
// is vetted (and refused) once the results are forgotten.
TEST(VetFile, ForgottenResultsAreVettedAgain) {
    test::ScratchDir dir;
    const std::string f = dir.file("same_version.h5");
    fs::copy_file(kRoot / "datasets" / "rms_norm_grad.h5", f);
    EXPECT_NO_THROW(h5::vetFile(f));
    const auto size = fs::file_size(f);
    const auto mtime = fs::last_write_time(f);
    fs::copy_file(kRoot / "tests" / "data" / "malformed" / "01096.h5", f, fs::copy_options::overwrite_existing);
    fs::resize_file(f, size);  // zeros after the end: it still crashes libhdf5
    fs::last_write_time(f, mtime);
    EXPECT_NO_THROW(h5::vetFile(f));
    h5::forgetVettingResults();
    EXPECT_CONTAINS(errorOf<FileError>([&] { h5::vetFile(f); }), "the file is corrupt");
}

TEST(VetFile, MissingFilesAreLeftToTheOpen) { EXPECT_NO_THROW(h5::vetFile("/nonexistent/file.h5")); }

TEST(VetFile, TrustedFilesAreNotVetted) {
    const std::string bad = (kRoot / "tests" / "data" / "malformed" / "02067.h5").string();
    ::setenv("OPSCOPE_TRUST_FILES", "1", 1);
    EXPECT_TRUE(h5::vettingDisabled());
    EXPECT_NO_THROW(h5::vetFile(bad));
    ::unsetenv("OPSCOPE_TRUST_FILES");
    EXPECT_FALSE(h5::vettingDisabled());
    EXPECT_CONTAINS(errorOf<FileError>([&] { h5::vetFile(bad); }), "the file is corrupt");
}

TEST(VetBlocks, AxesAreWrittenAndReadBack) {
    EXPECT_EQ(h5::blockAxesText({3, 0, 4096}), "3,0,4096");
    EXPECT_EQ(h5::parseBlockAxes("3,0,4096"), (std::vector<int64_t>{3, 0, 4096}));
    EXPECT_EQ(h5::parseBlockAxes(""), std::vector<int64_t>{});  // a scalar's block
    for (const char* bad : {"3,,4", "3,x", "1.5", "3,"})
        EXPECT_CONTAINS(errorOf<UsageError>([&] { h5::parseBlockAxes(bad); }), "not a list of integers");
}

// tests/data/damaged_chunk.h5: float32 [6, 64, 64], one gzip chunk per slice, values
// 0.25 * (flat index) - 100; the compressed bytes of slice 3 are damaged (written by
// tests/data/make_damaged_chunk.py). The child reads only the blocks asked for: slice 0 is vetted and
// read; slice 3 is vetted too (decoding it fails with an error, not a crash: that is the
// reader's to report) and its read is refused in one sentence.
TEST(VetBlocks, AnIntactSliceReadsAndADamagedOneIsRefusedInOneSentence) {
    const std::string file = (kRoot / "tests" / "data" / "damaged_chunk.h5").string();
    EXPECT_NO_THROW(h5::vetBlocks(file, {{"/stack", {0, 0, 0}, {1, 64, 64}}}));
    const h5::File f = h5::File::openReadOnly(file);
    const HostTensor slice0 = h5::readTensorBlock(f, "/stack", {0, 0, 0}, {1, 64, 64});
    for (int64_t i = 0; i < slice0.numel(); ++i) ASSERT_EQ(slice0.getAsDouble(i), 0.25 * double(i) - 100) << i;
    // The next slice of the same file: only its block (the metadata was walked already).
    EXPECT_NO_THROW(h5::vetBlocks(file, {{"/stack", {3, 0, 0}, {1, 64, 64}}}));
    const std::string e = errorOf<FileError>([&] { h5::readTensorBlock(f, "/stack", {3, 0, 0}, {1, 64, 64}); });
    EXPECT_CONTAINS(e, file);
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(VetBlocks, CrashingFileIsCorrupt) {
    const std::string bad = (kRoot / "tests" / "data" / "malformed" / "01714.h5").string();
    const std::string e = errorOf<FileError>([&] { h5::vetBlocks(bad, {{"/x", {0}, {1}}}); });
    EXPECT_EQ(e.rfind("cannot open '" + bad + "': the file is corrupt (reading it ", 0), 0u) << e;
}

}  // namespace
}  // namespace opscope

namespace opscope {
namespace {

// A big dataset (192 MiB of float32, gzip chunks), of a group or named alone, is read by the
// vetting walk in the bands a compare reads it in (kStreamBandBytes), not whole: the child needs a
// band of memory (a 10 GiB embedding under the child's 2 GiB limit was otherwise never read).
TEST(VetWalk, ABigDatasetIsReadInBands) {
    test::ScratchDir dir("vet_walk");
    const std::string file = dir.file("big.h5");
    const hsize_t rows = 6144, cols = 8192, band = 512;  // 192 MiB, bands of 16 MiB
    {
        const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hid_t g = H5Gcreate2(f, "/ckpt", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[2] = {rows, cols}, chunk[2] = {64, cols};
        const hid_t space = H5Screate_simple(2, dims, nullptr);
        const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(create, 2, chunk);
        H5Pset_deflate(create, 1);
        const hid_t d = H5Dcreate2(g, "emb", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, create, H5P_DEFAULT);
        std::vector<float> values(band * cols, 0.5f);
        const hsize_t count[2] = {band, cols};
        const hid_t memory = H5Screate_simple(2, count, nullptr);
        for (hsize_t r = 0; r < rows; r += band) {
            const hsize_t start[2] = {r, 0};
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
            ASSERT_GE(H5Dwrite(d, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, values.data()), 0);
        }
        H5Sclose(memory);
        H5Dclose(d);
        H5Pclose(create);
        H5Sclose(space);
        H5Gclose(g);
        H5Fclose(f);
    }
    for (const char* data : {"/ckpt", "/ckpt/emb"}) {  // the group (a compare of groups), the dataset
        SCOPED_TRACE(data);
        rusage before{};
        getrusage(RUSAGE_SELF, &before);
        h5::walkUntrusted(file, {data});
        h5::readDataUntrusted(file, {data}, {});  // a later child's, the metadata walked already
        rusage after{};
        getrusage(RUSAGE_SELF, &after);
        if (!test::kSanitizedAllocator)  // ASan's quarantine keeps freed bands
            EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 100 * 1024) << "KiB of peak memory grew";
        EXPECT_NO_THROW(h5::vetFile(file, {data}));
    }
}

// The first child of a file version walks its metadata; a later one reads only the data and
// blocks it is asked for (a shard of `run`: its own cases, not the whole file again).
TEST(VetFile, ALaterChildReadsOnlyTheDataAskedFor) {
    const std::vector<std::string> first = h5::vetArguments("vet", "f.h5", {"/c/a"}, {}, false);
    EXPECT_EQ(first, (std::vector<std::string>{"vet", "--data", "/c/a", "--", "f.h5"}));
    const std::vector<std::string> later =
        h5::vetArguments("vet", "f.h5", {"/c/a", "/c/b"}, {{"/x", {3, 0}, {1, 8}}}, true);
    EXPECT_EQ(later, (std::vector<std::string>{"vet", "--data-only", "--data", "/c/a", "--data", "/c/b", "--block",
                                               "/x", "3,0", "1,8", "--", "f.h5"}));
    // What such a child reads, in-process: the bundled cases named, and a missing path passed over.
    const std::string cases = (kRoot / "datasets" / "rms_norm_grad.h5").string();
    EXPECT_NO_THROW(h5::readDataUntrusted(cases, {"/rms_norm_grad/fp32/basic", "/nothing"}, {}));
    EXPECT_NO_THROW(h5::vetFile(cases));
    EXPECT_NO_THROW(h5::vetFile(cases, {"/rms_norm_grad/fp32/basic"}));
}

}  // namespace
}  // namespace opscope
