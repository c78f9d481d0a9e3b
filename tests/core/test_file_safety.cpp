// file_safety.h: files that point outside themselves (external raw storage, virtual datasets,
// external links anywhere in a path) are refused unless allowed; declared sizes are bounded by
// what a file stores; tree walks are limited and end on cycles; killed writers' temporary
// files are cleaned up. Every fixture is crafted here with the HDF5 C API.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/h5/file_safety.h"
#include "opscope/h5/table.h"
#include "opscope/h5/tensor_io.h"
#include "scratch_dir.h"

namespace fs = std::filesystem;
using namespace opscope;
using namespace opscope::h5;

namespace {

using test::ScratchDir;

int64_t ok(int64_t result) {
    if (result < 0) throw std::runtime_error("raw HDF5 call failed while building a fixture");
    return result;
}

template <class F>
std::string refusal(F&& f) {
    return test::errorOf<ExternalDataError>(std::forward<F>(f));
}

// A float32[4] dataset holding 0, 1, 2, 3 at `path` of `file`.
void writeFour(const std::string& file, const std::string& path) {
    File f = fs::exists(file) ? File::openReadWrite(file) : File::create(file);
    writeTensor(f, path, HostTensor::fromDoubles(DType::Float32, {4}, {0, 1, 2, 3}));
    f.close();
}

// Raw bytes of float32 {10, 11, 12, 13}, and a case file whose /c/inputs/x is stored in them.
void writeExternalStorageFile(const std::string& file, const std::string& raw) {
    const float values[4] = {10, 11, 12, 13};
    std::ofstream(raw, std::ios::binary).write(reinterpret_cast<const char*>(values), sizeof values);
    const hid_t f = ok(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Gclose(ok(H5Gcreate2(f, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))));
    const hid_t dcpl = ok(H5Pcreate(H5P_DATASET_CREATE));
    ok(H5Pset_external(dcpl, raw.c_str(), 0, sizeof values));
    const hsize_t dims[1] = {4};
    const hid_t space = ok(H5Screate_simple(1, dims, nullptr));
    ok(H5Dclose(ok(H5Dcreate2(f, "/g/x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT))));
    ok(H5Sclose(space));
    ok(H5Pclose(dcpl));
    ok(H5Fclose(f));
}

void externalLink(const std::string& file, const std::string& target, const std::string& object, const char* name) {
    const hid_t f = ok(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ok(H5Lcreate_external(target.c_str(), object.c_str(), f, name, H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Fclose(f));
}

TEST(FileSafety, ExternalStorageIsListedAndRefusedUnlessAllowed) {
    ScratchDir dir;
    const std::string file = dir.file("ext.h5"), raw = dir.file("raw.bin");
    writeExternalStorageFile(file, raw);
    {
        const File f = File::openReadOnly(file);
        EXPECT_EQ(datasetInfo(f, "/g/x").outside, "external storage -> " + raw);
        const std::string e = refusal([&] { readTensor(f, "/g/x"); });
        EXPECT_CONTAINS(e, "dataset '/g/x' in '" + file + "' is stored in an external file -> " + raw +
                               ", outside the file; a file may not read other files");
        const std::vector<NodeInfo> nodes = listTree(f);
        ASSERT_EQ(nodes.size(), 2u);
        EXPECT_EQ(nodes[1].outside(), "external storage -> " + raw);
        const std::vector<NodeInfo> outside = listOutside(f);
        ASSERT_EQ(outside.size(), 1u);
        EXPECT_EQ(outside[0].path, "/g/x");
    }
    allowExternalDataIn(file);  // as the GUI does once the user confirmed
    const File trusted = File::openReadOnly(file);
    EXPECT_TRUE(trusted.externalAllowed());
    EXPECT_EQ(readTensor(trusted, "/g/x").toDoubles(), (std::vector<double>{10, 11, 12, 13}));
}

TEST(FileSafety, VirtualDatasetsAreRefused) {
    ScratchDir dir;
    const std::string secret = dir.file("secret.h5"), file = dir.file("vds.h5");
    writeFour(secret, "/s/x");
    const hsize_t dims[1] = {4};
    const hid_t space = ok(H5Screate_simple(1, dims, nullptr));
    const hid_t dcpl = ok(H5Pcreate(H5P_DATASET_CREATE));
    ok(H5Pset_virtual(dcpl, space, secret.c_str(), "/s/x", space));
    const hid_t f = ok(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Dclose(ok(H5Dcreate2(f, "/v", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT))));
    ok(H5Fclose(f));
    ok(H5Pclose(dcpl));
    ok(H5Sclose(space));

    const File opened = File::openReadOnly(file);
    EXPECT_EQ(datasetInfo(opened, "/v").outside, "virtual dataset -> " + secret + ":/s/x");
    EXPECT_CONTAINS(refusal([&] { readTensor(opened, "/v"); }),
                    "dataset '/v' in '" + file + "' is a virtual dataset -> " + secret + ":/s/x, outside the file");
}

// links.h5 holding /own, an external link /ext to secret.h5:/grp (which holds dy) and a soft
// link /soft to `softTarget`; returns the two files' paths.
std::pair<std::string, std::string> linkedFiles(const ScratchDir& dir, const char* softTarget) {
    const std::string secret = dir.file("secret.h5"), file = dir.file("links.h5");
    writeFour(secret, "/grp/dy");
    writeFour(file, "/own");
    externalLink(file, secret, "/grp", "ext");
    const hid_t f = ok(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ok(H5Lcreate_soft(softTarget, f, "soft", H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Fclose(f));
    return {secret, file};
}

// A read-only File remembers the paths it found (File::LookupMemo): what it answers is what a
// fresh lookup answers, a refusal is said every time, and a missing path stays unknown.
TEST(FileSafety, RememberedLookupsAnswerAsFreshOnesAndRefuseEveryTime) {
    ScratchDir dir;
    const auto [secret, file] = linkedFiles(dir, "/own");
    const File remembering = File::openReadOnly(file);
    ASSERT_TRUE(remembering.remembersLookups());
    for (int pass = 0; pass < 2; ++pass) {
        SCOPED_TRACE(pass);
        for (const char* path : {"/own", "/soft", "/ext", "/nothing"}) {
            const ObjectInfo a = File::openReadOnly(file).info(path), b = remembering.info(path);
            EXPECT_EQ(a.kind, b.kind) << path;
            EXPECT_EQ(a.viaSoftLink, b.viaSoftLink) << path;
            EXPECT_EQ(a.identity, b.identity) << path;
            EXPECT_EQ(a.externalTarget, b.externalTarget) << path;
        }
        EXPECT_CONTAINS(refusal([&] { remembering.info("/ext/dy"); }), "is an external link");
    }
    EXPECT_EQ(remembering.info("/soft").kind, ObjectKind::Dataset);
    EXPECT_TRUE(remembering.info("/soft").viaSoftLink);
}

// A reader of a file this process is writing (the debugger viewing the trace it records) shares
// the writer's open file and sees each change at once: it must not answer from memory.
TEST(FileSafety, AReaderOfAFileThisProcessWritesSeesItsChanges) {
    ScratchDir dir;
    const std::string path = dir.file("live.h5");
    File writer = File::create(path);
    writer.createGroup("/step0");
    writer.flush();
    const File reader = File::openReadOnly(path);
    EXPECT_FALSE(reader.remembersLookups());
    EXPECT_EQ(reader.info("/step0").attributeCount, 0);
    EXPECT_EQ(reader.info("/step1").kind, ObjectKind::Missing);
    writer.writeAttribute("/step0", "status", "done");
    writer.createGroup("/step1");
    EXPECT_EQ(reader.info("/step0").attributeCount, 1);
    EXPECT_EQ(reader.info("/step1").kind, ObjectKind::Group);
    EXPECT_FALSE(File::openReadWrite(path).remembersLookups());
}

TEST(FileSafety, ExternalLinksAreRefusedAnywhereInAPath) {
    ScratchDir dir;
    const auto [secret, file] = linkedFiles(dir, "/ext/dy");
    externalLink(file, secret, "/grp/dy", "direct");
    const File f = File::openReadOnly(file);
    // Inside a path: refused before HDF5 opens the other file.
    EXPECT_CONTAINS(refusal([&] { readTensor(f, "/ext/dy"); }),
                    "'/ext' in '" + file + "' (on the way to '/ext/dy') is an external link -> " + secret + ":/grp");
    EXPECT_CONTAINS(refusal([&] { f.info("/ext/dy"); }), "is an external link");
    // At the end of a path: listed, never followed.
    const ObjectInfo direct = f.info("/direct");
    EXPECT_EQ(direct.kind, ObjectKind::Link);
    EXPECT_EQ(direct.externalTarget, secret + ":/grp/dy");
    EXPECT_CONTAINS(refusal([&] { readTensor(f, "/direct"); }), "'/direct' in '" + file + "' is an external link -> ");
    // Through a soft link that leads through one.
    EXPECT_CONTAINS(refusal([&] { readTensor(f, "/soft"); }), "(on the way to '/ext/dy')");
    bool listedExt = false;
    for (const NodeInfo& n : listTree(f))
        if (n.path == "/ext") listedExt = n.outside() == "external link -> " + secret + ":/grp";
    EXPECT_TRUE(listedExt);
    EXPECT_EQ(readTensor(f, "/own").numel(), 4);

    allowExternalData(true);  // opscope-cli --allow-external
    const File trusted = File::openReadOnly(file);
    EXPECT_EQ(readTensor(trusted, "/ext/dy").toDoubles(), (std::vector<double>{0, 1, 2, 3}));
    EXPECT_EQ(readTensor(trusted, "/soft").numel(), 4);
    allowExternalData(false);
}

TEST(FileSafety, DeclaredSizesAreBoundedByWhatTheFileStores) {
    ScratchDir dir;
    const std::string file = dir.file("huge.h5");
    const hid_t f = ok(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    const hsize_t huge[1] = {hsize_t(768) << 20};
    const hid_t space = ok(H5Screate_simple(1, huge, nullptr));
    ok(H5Dclose(ok(H5Dcreate2(f, "/contiguous", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))));
    const hid_t dcpl = ok(H5Pcreate(H5P_DATASET_CREATE));
    const hsize_t chunk[1] = {1 << 20};
    ok(H5Pset_chunk(dcpl, 1, chunk));
    ok(H5Pset_deflate(dcpl, 4));
    const hid_t one = ok(H5Dcreate2(f, "/deflated", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    std::vector<float> zeros(1 << 20, 0.0f);  // one chunk written: about 4 KiB stored for 3 GiB declared
    const hid_t memory = ok(H5Screate_simple(1, chunk, nullptr));
    const hsize_t start[1] = {0};
    const hid_t fileSpace = ok(H5Dget_space(one));
    ok(H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, start, nullptr, chunk, nullptr));
    ok(H5Dwrite(one, H5T_NATIVE_FLOAT, memory, fileSpace, H5P_DEFAULT, zeros.data()));
    for (hid_t id : {fileSpace, memory, space}) ok(H5Sclose(id));
    ok(H5Dclose(one));
    ok(H5Pclose(dcpl));
    ok(H5Fclose(f));

    const File opened = File::openReadOnly(file);
    const auto start_ = std::chrono::steady_clock::now();
    EXPECT_CONTAINS(test::errorOf<FileError>([&] { readTensor(opened, "/contiguous"); }),
                    "has shape [805306368] of float32 (3.0 GiB) but stores only 0 bytes");
    EXPECT_CONTAINS(test::errorOf<FileError>([&] { readTensor(opened, "/deflated"); }),
                    "has shape [805306368] of float32 (3.0 GiB) but stores only");
    EXPECT_LT(std::chrono::steady_clock::now() - start_, std::chrono::seconds(2));
}

TEST(FileSafety, TablesDeclaringMoreRowsThanStoredAreRefusedOrClipped) {
    ScratchDir dir;
    const std::string file = dir.file("table.h5");
    {
        File f = File::create(file);
        StringTable::create(f, "/strings", 16).append({"", "a", "b"});
        StringTable::create(f, "/small", 16).append({"x"});
        f.close();
    }
    const hid_t f = ok(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    const hsize_t huge[1] = {hsize_t(1) << 27}, torn[1] = {100};
    const hid_t strings = ok(H5Dopen2(f, "/strings", H5P_DEFAULT)), small = ok(H5Dopen2(f, "/small", H5P_DEFAULT));
    ok(H5Dset_extent(strings, huge));  // h5py's resize: nothing stored
    ok(H5Dset_extent(small, torn));    // an append whose rows never reached the disk
    ok(H5Dclose(strings));
    ok(H5Dclose(small));
    ok(H5Fclose(f));

    const File opened = File::openReadOnly(file);
    EXPECT_CONTAINS(test::errorOf<FileError>([&] { StringTable::open(opened, "/strings").readAll(); }),
                    "table '/strings' in '" + file + "' declares 134217728 rows but stores at most ");
    const StringTable clipped = StringTable::open(opened, "/small");
    EXPECT_GE(clipped.size(), 16);  // one stored chunk of 16 rows, each a 16-byte heap reference
    EXPECT_LE(clipped.size(), 32);
    EXPECT_EQ(clipped.size() + clipped.unstoredRows(), 100);
    EXPECT_EQ(clipped.readAll().front(), "x");
}

// /d/d/d... `depth` groups deep, with a case group at the bottom.
std::string nestedFile(const ScratchDir& dir, int depth) {
    const std::string file = dir.file("deep" + std::to_string(depth) + ".h5");
    const hid_t f = ok(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    hid_t g = ok(H5Gopen2(f, "/", H5P_DEFAULT));
    for (int i = 0; i < depth; ++i) {
        const hid_t child = ok(H5Gcreate2(g, "d", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ok(H5Gclose(g));
        g = child;
    }
    ok(H5Gclose(g));
    ok(H5Fclose(f));
    return file;
}

TEST(FileSafety, TreeWalksAreLimitedInDepthAndFast) {
    ScratchDir dir;
    const File shallow = File::openReadOnly(nestedFile(dir, kMaxTreeDepth));
    EXPECT_EQ(listTree(shallow).size(), static_cast<std::size_t>(kMaxTreeDepth));
    EXPECT_TRUE(cases::findCases(shallow).empty());

    const std::string deepPath = nestedFile(dir, 1000);
    const File deep = File::openReadOnly(deepPath);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_CONTAINS(test::errorOf<FileError>([&] { listTree(deep); }),
                    "'" + deepPath + "' nests groups more than 64 deep (at '/d/d/d");
    EXPECT_CONTAINS(test::errorOf<FileError>([&] { cases::findCases(deep); }), "nests groups more than 64 deep");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(FileSafety, HardLinkCyclesEndTheWalk) {
    ScratchDir dir;
    const std::string file = dir.file("cycle.h5");
    const hid_t f = ok(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Gclose(ok(H5Gcreate2(f, "/a", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))));
    ok(H5Gclose(ok(H5Gcreate2(f, "/a/b", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))));
    ok(H5Lcreate_hard(f, "/a", f, "/a/b/up", H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Lcreate_hard(f, "/", f, "/a/root", H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Fclose(f));

    const File opened = File::openReadOnly(file);
    std::vector<std::string> paths;
    for (const NodeInfo& n : listTree(opened)) paths.push_back(n.path);
    EXPECT_EQ(paths, (std::vector<std::string>{"/a", "/a/b", "/a/b/up", "/a/root"}));
    EXPECT_TRUE(cases::findCases(opened).empty());
}

TEST(FileSafety, OpeningAFileTurnsPluginLoadingOff) {
    ScratchDir dir;
    writeFour(dir.file("any.h5"), "/x");
    const File f = File::openReadOnly(dir.file("any.h5"));
    unsigned state = 1;
    ASSERT_GE(H5PLget_loading_state(&state), 0);
    EXPECT_EQ(state, 0u);
}

TEST(FileSafety, RunningOutOfMemoryReadingAFileIsASentence) {
    const std::string e =
        test::errorOf<FileError>([] { readingFile("f.h5", []() -> int { throw std::bad_alloc(); }); });
    EXPECT_EQ(e, "cannot read 'f.h5': it declares more data than fits in memory, so it is damaged");
    const std::string l = test::errorOf<FileError>([] {
        readingFile("f.h5", [] {
            std::vector<int> v;
            v.reserve(v.max_size() + 1);  // std::length_error
            return v.size();
        });
    });
    EXPECT_EQ(l, e);
}

TEST(FileSafety, KilledWritersTemporaryFilesAreRemovedByTheNextWriter) {
    ScratchDir dir;
    const std::string destination = dir.file("report.json");
    const pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, nullptr, 0);  // a pid that no longer runs
    const std::string stale = destination + ".tmp-" + std::to_string(dead) + "-0badf00d";
    const std::string live = destination + ".tmp-1-0000abcd";  // init always runs
    const std::string other = dir.file("other.json") + ".tmp-" + std::to_string(dead) + "-0badf00d";
    for (const std::string& p : {stale, live, other}) std::ofstream(p) << "partial";
    {
        AtomicFileWriter writer(destination);
        std::ofstream(writer.tempPath()) << "{}";
        writer.commit();
    }
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(live));
    EXPECT_TRUE(fs::exists(other));  // another destination's: its own next writer decides
}

}  // namespace
