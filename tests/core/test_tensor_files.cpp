// The native .npy/.npz/.pt/.safetensors readers against numpy: every fixture in datasets/msprobe/readers
// (written by generate_msprobe_dumps.py with PyTorch and numpy) must read back bit for bit as
// the C-order little-endian bytes numpy wrote beside it, with the same dtype and shape; damaged
// files must be one-sentence errors naming the file.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <map>

#include <zlib.h>

#include "opscope/import/format_error.h"
#include "opscope/import/npy.h"
#include "opscope/import/tensor_file.h"
#include "opscope/import/torch_pt.h"
#include "opscope/import/zip_archive.h"
#include "reader_fixtures.h"
#include "sanitizers.h"
#include "torch_pickle_bytes.h"
#include "scratch_dir.h"

namespace fs = std::filesystem;
using namespace opscope;
using opscope::import::FormatError;
using opscope::test::errorOf;
using opscope::test::manifest;
using opscope::test::put16;
using opscope::test::put32;
using opscope::test::ReaderFixture;
using opscope::test::readersDir;
using opscope::test::rebuiltView;
using opscope::test::slurp;
using opscope::test::text;

TEST(TensorFiles, EveryFixtureMatchesNumpyBitForBit) {
    const std::vector<ReaderFixture> fixtures = manifest();
    ASSERT_GE(fixtures.size(), 50u) << "manifest.txt missing or short in " << readersDir();
    int pt = 0, legacy = 0, npy = 0, npz = 0, safetensors = 0;
    for (const ReaderFixture& f : fixtures) {
        SCOPED_TRACE(f.file + (f.key.empty() ? "" : ":" + f.key));
        const std::string spec = (readersDir() / f.file).string() + (f.key.empty() ? "" : ":" + f.key);
        HostTensor t;
        ASSERT_NO_THROW(t = import::readTensorFile(spec));
        EXPECT_EQ(dtypeName(t.dtype()), f.dtype);
        EXPECT_EQ(t.shape(), f.shape);
        const std::string expected = slurp(readersDir() / f.bytesFile);
        ASSERT_EQ(t.nbytes(), expected.size());
        EXPECT_EQ(std::memcmp(t.data(), expected.data(), expected.size()), 0) << "values differ from numpy's";
        pt += f.file.find(".pt") != std::string::npos;
        legacy += f.file.rfind("legacy_", 0) == 0;
        npy += f.file.find(".npy") != std::string::npos;
        npz += f.file.find(".npz") != std::string::npos;
        safetensors += f.file.find(".safetensors") != std::string::npos;
    }
    EXPECT_GE(pt, 28);      // 7 dtypes x (contiguous, strided, scalar, empty) + a dict
    EXPECT_GE(legacy, 32);  // the same 28 in the legacy layout + a checkpoint with tied weights
    EXPECT_GE(npy, 21);     // 7 dtypes x (C, Fortran, big-endian) + versions 2 and 3 + a scalar
    EXPECT_GE(npz, 3);
    EXPECT_GE(safetensors, 10);  // 9 tensors of 9 dtypes (a scalar, an empty one) + a file of one
}

TEST(TensorFiles, StridedViewsKeepOffsetAndStrides) {
    // float32_strided.pt is full[1:, ::2, 1:4].transpose(0, 2) of a [4, 6, 5] tensor: the file
    // holds the whole storage and the reader must gather the view.
    const HostTensor full = import::readTorchPt((readersDir() / "float32_contiguous.pt").string());
    const HostTensor view = import::readTorchPt((readersDir() / "float32_strided.pt").string());
    ASSERT_EQ(view.shape(), (std::vector<int64_t>{3, 3, 3}));
    for (int64_t a = 0; a < 3; ++a)
        for (int64_t b = 0; b < 3; ++b)
            for (int64_t c = 0; c < 3; ++c)
                EXPECT_EQ(view.dataAs<float>()[(a * 3 + b) * 3 + c],
                          full.dataAs<float>()[((c + 1) * 6 + b * 2) * 5 + a + 1]);
}

TEST(TensorFiles, DictsAndArchivesNameTheirKeys) {
    EXPECT_CONTAINS(errorOf<FormatError>([] { import::readTensorFile((readersDir() / "dict.pt").string()); }),
                    "several tensors (weight, bias)");
    EXPECT_CONTAINS(errorOf<FormatError>([] { import::readTensorFile((readersDir() / "pair.npz").string()); }),
                    "holds 2 arrays (x, m)");
    EXPECT_CONTAINS(
        errorOf<FormatError>([] { import::readTensorFile((readersDir() / "pair.npz").string() + ":nope"); }),
        "no array 'nope'");
    EXPECT_EQ(import::readTensorFile((readersDir() / "packed.npz").string()).shape(), (std::vector<int64_t>{4, 6, 5}));
    // What a file offers for FILE:KEY, whatever its kind (the debugger's "Bind from file" asks).
    EXPECT_EQ(import::tensorFileKeys((readersDir() / "dict.pt").string()),
              (std::vector<std::string>{"weight", "bias"}));
    EXPECT_EQ(import::tensorFileKeys((readersDir() / "pair.npz").string()), (std::vector<std::string>{"x", "m"}));
    EXPECT_TRUE(import::tensorFileKeys((readersDir() / "float32_contiguous.pt").string()).empty());
    EXPECT_TRUE(import::tensorFileKeys((readersDir() / "float32_c.npy").string()).empty());
    EXPECT_CONTAINS(errorOf<FormatError>([] { import::tensorFileKeys((readersDir() / "missing.pt").string()); }),
                    "no file");
}

TEST(TensorFiles, Uint16CanBeReadAsBFloat16Bits) {
    import::NpyOptions o;
    o.uint16AsBFloat16 = true;
    const HostTensor t = import::readNpy((readersDir() / "uint16_c.npy").string(), o);
    EXPECT_EQ(t.dtype(), DType::BFloat16);
    const HostTensor raw = import::readNpy((readersDir() / "uint16_c.npy").string());
    EXPECT_EQ(std::memcmp(t.data(), raw.data(), raw.nbytes()), 0);
}

TEST(TensorFiles, DamagedFilesAreOneSentenceNamingTheFile) {
    const std::string dir = readersDir().string();
    struct Bad {
        const char* file;
        const char* says;
    } bad[] = {
        {"bad_truncated.pt", "bad_truncated.pt"},
        {"bad_not_zip.pt",
         "is not a torch.save file: it is neither a zip archive (PyTorch 1.6 and later) nor the legacy format"},
        {"bad_short.npy", "truncated"},
        {"bad_header.npy", "not a valid .npy file"},
        {"missing.npy", "no file"},
        {"bad_code.pt", "it calls posix.system, which is not part of a saved tensor"},
        {"bad_truncated.safetensors", "its tensors cover 120 bytes of data but the file holds 112 (truncated?)"},
        {"bad_header.safetensors", "its header claims 1099511627776 bytes in a file of 192"},
        {"bad_escape.safetensors.index.json:x", "which is not the name of a file beside the index"},
        {"sharded.safetensors.index.json", "indexes a sharded checkpoint: name a tensor as"},
        {"sharded.safetensors.index.json:nope", "maps no tensor 'nope'"},
    };
    for (const Bad& b : bad) {
        const std::string msg = errorOf<FormatError>([&] { import::readTensorFile(dir + "/" + b.file); });
        EXPECT_CONTAINS(msg, b.says);
        EXPECT_CONTAINS(msg, std::string(b.file).substr(0, std::string(b.file).find(':')));
    }
}

TEST(TensorFiles, EveryTruncationOfAPtFileIsAnErrorNotACrash) {
    // Cut a real torch.save file at every length: each must be a FormatError (never a crash, a
    // hang or a huge allocation), and the whole file must read.
    const std::string whole = slurp(readersDir() / "float16_strided.pt");
    opscope::test::ScratchDir dir("pt");
    const std::string path = dir.file("cut.pt");
    for (std::size_t n = 0; n < whole.size(); n += 7) {
        {
            std::ofstream(path, std::ios::binary | std::ios::trunc)
                .write(whole.data(), static_cast<std::streamsize>(n));
        }
        EXPECT_THROW(import::readTorchPt(path), FormatError) << "cut at " << n;
    }
}

TEST(TensorFiles, CorruptedBytesAreCaughtByTheChecksum) {
    std::string bytes = slurp(readersDir() / "float32_contiguous.pt");
    const std::size_t at = bytes.find("data/0");
    ASSERT_NE(at, std::string::npos);
    // Flip a byte in the middle of the storage's data (after its local header).
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
    opscope::test::ScratchDir dir("pt");
    {
        std::ofstream(dir.file("x.pt"), std::ios::binary)
            .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    EXPECT_THROW(import::readTorchPt(dir.file("x.pt")), FormatError);
}

TEST(TensorFiles, NpyDeclaringMoreDataThanItHoldsAllocatesNothing) {
    // A header declaring 2^40 float64 elements over 8 bytes of data.
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }";
    header.resize(118, ' ');
    header += '\n';
    std::string bytes =
        std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
    bytes += std::string(8, '\0');
    const std::string msg = errorOf<FormatError>([&] { import::parseNpy(bytes, "huge.npy"); });
    EXPECT_CONTAINS(msg, "huge.npy");
    EXPECT_CONTAINS(msg, "declares");
}

TEST(TensorFiles, EveryFixtureIsDescribedAsItReadsWithoutItsData) {
    // info lists a tensor file from its headers and pickle: each key, dtype and shape as read.
    for (const ReaderFixture& f : manifest()) {
        SCOPED_TRACE(f.file + (f.key.empty() ? "" : ":" + f.key));
        std::vector<import::TensorEntry> entries;
        ASSERT_NO_THROW(entries = import::describeTensorFile((readersDir() / f.file).string()));
        // Read without a key, a file of one named tensor (single.safetensors) is that tensor.
        const auto e = f.key.empty() && entries.size() == 1
                           ? entries.begin()
                           : std::find_if(entries.begin(), entries.end(),
                                          [&](const import::TensorEntry& x) { return x.key == f.key; });
        ASSERT_NE(e, entries.end());
        EXPECT_EQ(dtypeName(e->dtype), f.dtype);
        EXPECT_EQ(e->shape, f.shape);
    }
    EXPECT_EQ(import::describeTensorFile((readersDir() / "dict.pt").string()).size(), 2u);
}

TEST(TensorFiles, DescribingReadsNoMoreThanTheHeader) {
    opscope::test::ScratchDir dir("describe");
    // A version-2 header that claims 4 GiB in a 16-byte file: refused before anything is read.
    std::string huge = std::string("\x93NUMPY\x02\x00", 8) + std::string("\xf0\xff\xff\xff", 4) + "{'de";
    std::ofstream(dir.file("huge.npy"), std::ios::binary).write(huge.data(), static_cast<std::streamsize>(huge.size()));
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::describeTensorFile(dir.file("huge.npy")); }),
                    "the header is cut short");
    // A .npy whose data is short is described from its header, and read as an error.
    const std::string npy = slurp(readersDir() / "float32_c.npy");
    const std::string cut = npy.substr(0, npy.size() - 4);
    std::ofstream(dir.file("cut.npy"), std::ios::binary).write(cut.data(), static_cast<std::streamsize>(cut.size()));
    EXPECT_EQ(import::describeTensorFile(dir.file("cut.npy")).front().shape,
              import::readTensorFile((readersDir() / "float32_c.npy").string()).shape());
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(dir.file("cut.npy")); }), "truncated?");
}

namespace {

// A .safetensors file from its header text and data bytes (the header padded to 8 bytes).
void writeSafetensors(const std::string& path, std::string header, uint64_t dataBytes, const std::string& data = "") {
    header.append((8 - header.size() % 8) % 8, ' ');
    std::string prefix(8, '\0');
    for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << prefix << header << data;
    out.close();
    std::filesystem::resize_file(path, 8 + header.size() + dataBytes);  // the rest: a hole, read as zeros
}

}  // namespace

// A checkpoint's one tensor is read from its own bytes: the 4 GiB tensor beside it (a sparse file
// here) is neither read nor allocated, and the keys come from the header alone.
TEST(TensorFiles, OneTensorOfABigSafetensorsFileReadsOnlyItsBytes) {
    opscope::test::ScratchDir dir("safetensors");
    const std::string path = dir.file("big.safetensors");
    const uint64_t big = uint64_t{1} << 32;
    writeSafetensors(path,
                     R"({"__metadata__":{"format":"pt"},"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                     R"("big":{"dtype":"U8","shape":[4294967296],"data_offsets":[8,)" +
                         std::to_string(8 + big) + "]}}",
                     8 + big, std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8));
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    EXPECT_EQ(import::tensorFileKeys(path), (std::vector<std::string>{"x", "big"}));
    const HostTensor x = import::readTensorFile(path + ":x");
    ASSERT_EQ(x.shape(), (std::vector<int64_t>{2}));
    EXPECT_EQ(x.getAsDouble(0), 1.0);
    EXPECT_EQ(x.getAsDouble(1), 2.0);
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB of peak memory grew";
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(path); }), "holds 2 tensors (x, big)");
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(path + ":y"); }), "has no tensor 'y'");
}

// Headers that lie are one sentence each, before any tensor is allocated.
TEST(TensorFiles, SafetensorsHeadersThatLieAreRefused) {
    opscope::test::ScratchDir dir("safetensors");
    const std::string path = dir.file("bad.safetensors");
    struct Bad {
        const char* header;
        uint64_t dataBytes;
        const char* says;
    } bad[] = {
        {R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}})", 8,
         "spans bytes 0-8 but its dtype and shape need 16"},
        {R"({"x":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,8]}})", 8, "overflows"},
        {R"({"x":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]}})", 8, "holds dtype F8_E4M3"},
        {R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8, "begins at byte 4 of the data, not 0"},
        {R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
         12, "begins at byte 4 of the data, not 8"},
        {R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4, "not a whole number"},
        {R"({"x":{"dtype":"F32","shape":[1]}})", 4, "no data_offsets"},
        {R"({"x":)", 0, "its header is not JSON"},
        {R"([1,2])", 0, "not a JSON object"},
        {R"({"x":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 2, "bool tensor 'x' holds 7"},
    };
    for (const Bad& b : bad) {
        SCOPED_TRACE(b.header);
        writeSafetensors(path, b.header, b.dataBytes, std::string("\x07\x07", 2));
        const std::string msg = errorOf<FormatError>([&] { import::readTensorFile(path + ":x"); });
        EXPECT_CONTAINS(msg, b.says);
        EXPECT_CONTAINS(msg, "bad.safetensors");
    }
}

// A file named by another file (a safetensors shard by its index) that is a pipe would block the
// reader's open until someone writes; a folder has no size. Each is a sentence, before any open.
TEST(TensorFiles, AShardThatIsAPipeOrAFolderIsRefusedBeforeItIsOpened) {
    opscope::test::ScratchDir dir("special_shards");
    std::ofstream(dir.file("model.safetensors.index.json"))
        << R"({"metadata": {}, "weight_map": {"w": "pipe.safetensors", "v": "folder.safetensors"}})";
    ASSERT_EQ(::mkfifo(dir.file("pipe.safetensors").c_str(), 0600), 0);
    fs::create_directory(dir.file("folder.safetensors"));
    for (const char* key : {"w", "v"}) {
        SCOPED_TRACE(key);
        const std::string msg =
            errorOf<FormatError>([&] { import::readTensorFile(dir.file("model.safetensors.index.json") + ":" + key); });
        EXPECT_CONTAINS(msg, "is not a regular file");
    }
}

// Which texts name a tensor file: by extension, with or without a key; an HDF5 dataset whose name
// ends like one stays an HDF5 dataset.
TEST(TensorFiles, SpecsAreTensorFilesByTheirExtension) {
    for (const char* yes : {"x.npy", "d.npz:k", "w.pt", "ckpt.pth:model/conv.weight", "pytorch_model.bin",
                            "pytorch_model.bin:lm_head.weight", "model.safetensors", "m.safetensors:a.b"})
        EXPECT_TRUE(import::isTensorFileSpec(yes)) << yes;
    for (const char* no : {"ckpt.h5:/layers/w.bin", "ckpt.h5:/export/x.npy", "dump.h5:/a.pt:b", "x.h5", "x.npy:k"})
        EXPECT_FALSE(import::isTensorFileSpec(no)) << no;
    EXPECT_EQ(import::tensorFilePath("ckpt.pth:model/conv.weight"), "ckpt.pth");
    // A .bin that is not torch.save says what it was read as.
    opscope::test::ScratchDir dir("bin");
    std::ofstream(dir.file("raw.bin"), std::ios::binary) << "raw bytes";
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(dir.file("raw.bin")); }),
                    "is not a torch.save file");
}

// An opened file reads each of its keys as a read of FILE:KEY does (the same bytes, dtype and
// shape; the same sentence for a key it lacks), however often and from whichever thread: its
// directory is read once, its tensors each time.
TEST(TensorFiles, AnOpenedFileReadsEveryKeyAsAReadOfFileKeyDoes) {
    auto same = [](const HostTensor& a, const HostTensor& b) {
        return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
               std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
    };
    for (const char* name :
         {"dict.pt", "checkpoint.pth", "cycle.pt", "pair.npz", "model.safetensors", "sharded.safetensors.index.json"}) {
        SCOPED_TRACE(name);
        const std::string path = (readersDir() / name).string();
        const import::TensorFile file(path);
        const std::vector<std::string> keys = file.keys();
        ASSERT_FALSE(keys.empty());
        EXPECT_EQ(keys, import::tensorFileKeys(path));
        const std::vector<import::TensorEntry> entries = file.describe();
        ASSERT_EQ(entries.size(), keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const HostTensor once = import::readTensorFile(path + ":" + keys[i]);
            EXPECT_TRUE(same(file.read(keys[i]), once)) << keys[i];
            EXPECT_TRUE(same(file.read(keys[i]), once)) << keys[i] << ", read again";
            EXPECT_EQ(entries[i].key, keys[i]);
            EXPECT_EQ(entries[i].shape, once.shape()) << keys[i];
        }
        EXPECT_EQ(errorOf<FormatError>([&] { file.read("no such key"); }),
                  errorOf<FormatError>([&] { import::readTensorFile(path + ":no such key"); }));
        // Two threads reading every key at once take turns on the one open file.
        std::vector<int> wrong(2, 0);
        std::vector<std::thread> readers;
        for (int t = 0; t < 2; ++t)
            readers.emplace_back([&, t] {
                for (int round = 0; round < 20; ++round)
                    for (const std::string& k : keys) wrong[t] += !same(file.read(k), file.read(k));
            });
        for (std::thread& r : readers) r.join();
        EXPECT_EQ(wrong, (std::vector<int>{0, 0}));
    }
}

// Found by fuzz_tensor_file: an .npz whose one member is named ".npy" holds one array of key "",
// which a read without a key must read, not ask for again without end.
TEST(TensorFiles, AnNpzOfOneMemberNamedDotNpyReadsItsArray) {
    opscope::test::ScratchDir dir("npz_empty_key");
    const std::string bytes = slurp(fs::path(OPSCOPE_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "tensor_file" /
                                    "regress-npz-one-member-named-npy");
    ASSERT_GT(bytes.size(), 1u);
    const std::string path = dir.file("x.npz");
    std::ofstream(path, std::ios::binary).write(bytes.data() + 1, static_cast<std::streamsize>(bytes.size() - 1));
    EXPECT_EQ(import::tensorFileKeys(path), (std::vector<std::string>{""}));
    try {
        import::readTensorFile(path);
    } catch (const FormatError& e) {
        EXPECT_CONTAINS(e.what(), path);  // a damaged member is a sentence; no answer at all is the bug
    }
}

namespace {

// A torch.save archive written by hand: `pickle` as a/data.pkl and storage "0" as a/data/0 of
// `storageBytes` bytes, zero (a hole in the file) but for `patches` (byte offset -> bytes).
void writeTorchZip(const std::string& path, const std::string& pickle, uint64_t storageBytes,
                   const std::map<uint64_t, std::string>& patches) {
    auto crcOfStorage = [&] {
        uLong crc = crc32(0L, Z_NULL, 0);
        std::string chunk;
        for (uint64_t at = 0; at < storageBytes; at += chunk.size()) {
            chunk.assign(std::min<uint64_t>(storageBytes - at, 1u << 20), '\0');
            for (const auto& [offset, bytes] : patches)
                if (offset >= at && offset < at + chunk.size()) chunk.replace(offset - at, bytes.size(), bytes);
            crc = crc32(crc, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size()));
        }
        return static_cast<uint32_t>(crc);
    };
    struct Member {
        std::string name;
        uint32_t crc, size, offset;
    };
    auto header = [](uint32_t signature, const Member& m, bool central) {
        std::string h;
        put32(h, signature);
        if (central) put16(h, 20);
        for (uint32_t v : {20u, 0u, 0u, 0u, 0u}) put16(h, v);  // version, flags, stored, time, date
        for (uint32_t v : {m.crc, m.size, m.size}) put32(h, v);
        put16(h, static_cast<uint32_t>(m.name.size()));
        put16(h, 0);
        if (central) {
            for (uint32_t v : {0u, 0u, 0u}) put16(h, v);  // comment, disk, internal attributes
            put32(h, 0);
            put32(h, m.offset);
        }
        return h + m.name;
    };
    const Member pkl{"a/data.pkl",
                     static_cast<uint32_t>(
                         crc32(0L, reinterpret_cast<const Bytef*>(pickle.data()), static_cast<uInt>(pickle.size()))),
                     static_cast<uint32_t>(pickle.size()), 0};
    std::string head = header(0x04034b50, pkl, false) + pickle;
    const Member data{"a/data/0", crcOfStorage(), static_cast<uint32_t>(storageBytes),
                      static_cast<uint32_t>(head.size())};
    head += header(0x04034b50, data, false);
    const uint64_t storageAt = head.size();
    std::string tail = header(0x02014b50, pkl, true) + header(0x02014b50, data, true);
    const uint32_t directorySize = static_cast<uint32_t>(tail.size());
    put32(tail, 0x06054b50);
    for (uint32_t v : {0u, 0u, 2u, 2u}) put16(tail, v);
    put32(tail, directorySize);
    put32(tail, static_cast<uint32_t>(storageAt + storageBytes));
    put16(tail, 0);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << head;
    for (const auto& [offset, bytes] : patches) {
        out.seekp(static_cast<std::streamoff>(storageAt + offset));
        out << bytes;
    }
    out.seekp(static_cast<std::streamoff>(storageAt + storageBytes));
    out << tail;
}

}  // namespace

// torch.save of a tensor on an Ascend NPU (torch_npu's _rebuild_npu_tensor over a copy in its
// origin format, the device format as a torch_npu Format) reads as the plain tensor it holds,
// whether the copy was the tensor's .cpu() (torch_npu 2.x) or a device storage ("npu:0", older
// releases), with a format of any kind it is written in (number, name, or the old bool); nothing
// else is taken for one. The fixtures npu_*.pt are
// written by PyTorch's own pickler with torch_npu's reduce (generate_msprobe_dumps.py).
TEST(TensorFiles, ATensorSavedOnAnNpuReadsAsItsOriginFormatCopy) {
    opscope::test::ScratchDir dir("pt_npu");
    const float values[] = {0.5f, -1.25f, 3.0f};
    for (const char* location : {"cpu", "npu:0"}) {
        const std::string path = dir.file(std::string("grad_") + location + ".pt");
        writeTorchZip(path,
                      std::string("\x80\x02}(") + text("grad") + opscope::test::rebuiltNpuView(3, 3, location) + "u.",
                      12, {{0, std::string(reinterpret_cast<const char*>(values), 12)}});
        EXPECT_EQ(import::readTensorFile(path + ":grad").toDoubles(), (std::vector<double>{0.5, -1.25, 3.0}))
            << location;
    }
    std::string pickle = std::string("\x80\x02}(") + text("grad") + opscope::test::rebuiltNpuView(3, 3, "cpu") + "u.";
    const std::string format = "ctorch_npu.npu._format\nFormat\n" + opscope::test::binint(29) + "\x85R";
    pickle.replace(pickle.find(format), format.size(), "\x89");
    const std::string boolean = dir.file("boolean.pt");
    writeTorchZip(boolean, pickle, 12, {});
    EXPECT_EQ(import::readTensorFile(boolean + ":grad").shape(), (std::vector<int64_t>{3}));
    pickle.replace(pickle.find("\x89tR"), 1, "N");
    writeTorchZip(boolean, pickle, 12, {});
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(boolean + ":grad"); }),
                    "_rebuild_npu_tensor whose device format is not a format");
    // getattr is taken on torch_npu's Format alone (the fixtures npu_*.pt hold that one).
    const std::string getattrOs = dir.file("getattr.pt");
    writeTorchZip(getattrOs,
                  "\x80\x02"
                  "c__builtin__\ngetattr\ncos\nsystem\n" +
                      text("x") + "\x86R.",
                  0, {});
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTorchPt(getattrOs); }),
                    "it calls getattr on something other than torch_npu's Format");
}

// PyTorch 2.x saves a tensor that carries Python attributes as _rebuild_from_type_v2(rebuild,
// torch.Tensor, arguments, attributes): attributes.pt (a fixture written that way) reads bit for
// bit through EveryFixtureMatchesNumpyBitForBit; a subclass of Tensor is refused in a sentence.
TEST(TensorFiles, ATensorSubclassIsRefusedInASentence) {
    opscope::test::ScratchDir dir("pt_subclass");
    const std::string path = dir.file("subclass.pt");
    const std::string pickle = std::string("\x80\x02}(") + text("t") + "ctorch._tensor\n_rebuild_from_type_v2\n(" +
                               "ctorch._utils\n_rebuild_tensor_v2\n" + "c__main__\nMyTensor\n" +
                               opscope::test::tensorArguments(3, 0, 3, 1, false) + "t}tRu.";
    writeTorchZip(path, pickle, 12, {});
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(path + ":t"); }),
                    "a tensor of the subclass __main__.MyTensor, which OpScope does not rebuild");
    const std::string plain = dir.file("plain.pt");
    std::string tensor = pickle;
    const std::string subclass = "c__main__\nMyTensor\n";
    tensor.replace(tensor.find(subclass), subclass.size(), "ctorch\nTensor\n");
    writeTorchZip(plain, tensor, 12, {});
    EXPECT_EQ(import::readTensorFile(plain + ":t").shape(), (std::vector<int64_t>{3}));
}

// Two small views of one 256 MiB storage (a flat parameter buffer, tied weights): each read costs
// its own bytes, not the storage's, and the storage's CRC is still checked (streamed).
TEST(TensorFiles, AViewOfALargeStorageReadsOnlyItsBytes) {
    opscope::test::ScratchDir dir("pt_views");
    const std::string path = dir.file("flat.pt");
    const int32_t numel = 64 << 20;
    auto floats = [](std::initializer_list<float> values) {
        std::string s;
        for (float v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
        return s;
    };
    const std::string pickle = std::string("\x80\x02}(") + text("head") + rebuiltView(numel, 0, 4) + text("tail") +
                               rebuiltView(numel, numel - 2, 2) + "u.";
    writeTorchZip(path, pickle, uint64_t{4} * static_cast<uint64_t>(numel),
                  {{0, floats({1, 2, 3, 4})}, {uint64_t{4} * (numel - 2), floats({7, 8})}});
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const import::TensorFile file(path);
    EXPECT_EQ(file.keys(), (std::vector<std::string>{"head", "tail"}));
    const HostTensor head = file.read("head"), tail = file.read("tail");
    ASSERT_EQ(head.shape(), (std::vector<int64_t>{4}));
    ASSERT_EQ(tail.shape(), (std::vector<int64_t>{2}));
    EXPECT_EQ(head.toDoubles(), (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(tail.toDoubles(), (std::vector<double>{7, 8}));
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    if (!test::kSanitizedAllocator)  // ASan's quarantine keeps the CRC pass's freed blocks
        EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB of peak memory grew";
    // A byte changed in the storage, far from both views, is still a damaged file.
    {
        std::fstream damage(path, std::ios::binary | std::ios::in | std::ios::out);
        damage.seekp(static_cast<std::streamoff>(std::filesystem::file_size(path) / 2));
        damage.put('\x01');
    }
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(path + ":head"); }), "CRC-32 does not match");
}

// A storage that declares more elements than its entry holds, and an expanded view (stride 0)
// of 4 GiB over one stored element: each refused in a sentence before anything of the declared
// size is allocated; a block of the expanded view still reads.
TEST(TensorFiles, DeclaredSizesAreCheckedBeforeAllocating) {
    opscope::test::ScratchDir dir("pt_sizes");
    const std::string lying = dir.file("lying.pt");
    const int32_t huge = 1 << 30;
    writeTorchZip(lying, std::string("\x80\x02}(") + text("w") + rebuiltView(huge, 0, huge) + "u.", 16, {});
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(lying + ":w"); }),
                    "is damaged: storage '0' should hold 4294967296 bytes");
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB of peak memory grew";
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::TensorFile(lying).readBlock("w", {0}, {1}); }),
                    "is damaged: storage '0' should hold");

    const std::string expanded = dir.file("expanded.pt");
    const float one = 1.5f;
    writeTorchZip(expanded, std::string("\x80\x02}(") + text("mask") + rebuiltView(1, 0, huge, 0) + "u.", 4,
                  {{0, std::string(reinterpret_cast<const char*>(&one), 4)}});
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(expanded + ":mask"); }),
                    "(an expanded tensor) would take 4294967296 bytes");
    const HostTensor block = import::TensorFile(expanded).readBlock("mask", {huge - 3}, {3});
    EXPECT_EQ(block.toDoubles(), (std::vector<double>{1.5, 1.5, 1.5}));
}
