// torch.save's legacy layout (_use_new_zipfile_serialization=False, and every file before PyTorch
// 1.6): the fixtures PyTorch wrote in datasets/msprobe/readers (legacy_*.pt, read bit for bit by
// TensorFiles.EveryFixtureMatchesNumpyBitForBit) cut and damaged, and files written here by hand
// that no PyTorch run would write: a 256 MiB storage that is mostly a hole, a header larger than
// the reader's first read, a whole nn.Module.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <fstream>
#include <map>

#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"
#include "opscope/import/torch_pt.h"
#include "reader_fixtures.h"
#include "scratch_dir.h"
#include "torch_pickle_bytes.h"

using namespace opscope;
using namespace opscope::test;  // the readers' fixtures and the pickle bytes written by hand
using opscope::import::FormatError;

namespace {

// The magic number, protocol 1001 and an empty sys_info: the three pickles before the object's.
std::string legacyHeader() {
    return std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15) + "\x80\x02M\xe9\x03." +
           "\x80\x02}.";
}

// A legacy torch.save file written by hand: the header, `object` (a pickle), the storage list
// ["0"] and storage "0" of `numel` float32, zero (a hole in the file) but for `patches` (byte
// offset -> bytes).
void writeTorchLegacy(const std::string& path, const std::string& object, uint64_t numel,
                      const std::map<uint64_t, std::string>& patches) {
    std::string head = legacyHeader() + object + "\x80\x02]" + text("0") + "a.";
    for (int b = 0; b < 8; ++b) head += static_cast<char>((numel >> (8 * b)) & 0xff);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << head;
    out.seekp(static_cast<std::streamoff>(head.size() + numel * 4 - 1));
    out.put('\0');
    for (const auto& [offset, bytes] : patches) {
        out.seekp(static_cast<std::streamoff>(head.size() + offset));
        out << bytes;
    }
}

void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string floats(std::initializer_list<float> values) {
    std::string s;
    for (float v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
    return s;
}

long peakKiB() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return r.ru_maxrss;
}

std::vector<ReaderFixture> fixturesOf(const std::string& file) {
    std::vector<ReaderFixture> out;
    for (const ReaderFixture& f : manifest())
        if (f.file == file) out.push_back(f);
    return out;
}

}  // namespace

// Two small views of one 256 MiB storage: each read costs its own bytes, not the storage's.
TEST(TorchLegacy, AViewOfALargeStorageReadsOnlyItsBytes) {
    opscope::test::ScratchDir dir("pt_legacy");
    const std::string path = dir.file("flat.pt");
    const int32_t numel = 64 << 20;
    const std::string object = std::string("\x80\x02}(") + text("head") + rebuiltView(numel, 0, 4, 1, true) +
                               text("tail") + rebuiltView(numel, numel - 2, 2, 1, true) + "u.";
    writeTorchLegacy(path, object, numel, {{0, floats({1, 2, 3, 4})}, {uint64_t{4} * (numel - 2), floats({7, 8})}});
    const long before = peakKiB();
    const import::TensorFile file(path);
    EXPECT_EQ(file.keys(), (std::vector<std::string>{"head", "tail"}));
    EXPECT_EQ(file.read("head").toDoubles(), (std::vector<double>{1, 2, 3, 4}));
    EXPECT_EQ(file.read("tail").toDoubles(), (std::vector<double>{7, 8}));
    EXPECT_LT(peakKiB() - before, 64 * 1024) << "KiB of peak memory grew";
}

// The pickles are read from the head of the file as far as they go: a header of 300 KB (past the
// first read of 64 KiB) reads through, and a string that declares 4 GiB in a small file is a
// sentence, with nothing of that size allocated.
TEST(TorchLegacy, TheHeaderIsReadAsFarAsItGoesAndNoFurther) {
    opscope::test::ScratchDir dir("pt_legacy");
    const std::string padded = dir.file("padded.pt");
    // A 300 KB string pushed and popped (POP) before the tensor: a valid pickle, longer than one read.
    const std::string object =
        std::string("\x80\x02") + text(std::string(300000, 'x')) + "0" + rebuiltView(3, 0, 3, 1, true) + ".";
    writeTorchLegacy(padded, object, 3, {{0, floats({1.5f, -2, 4})}});
    EXPECT_EQ(import::readTorchPt(padded).toDoubles(), (std::vector<double>{1.5, -2, 4}));

    const std::string lying = dir.file("lying.pt");
    std::string declares = legacyHeader() + "\x80\x02X";
    for (int b = 0; b < 4; ++b) declares += '\xff';
    writeBytes(lying, declares + "only a few bytes follow");
    const long before = peakKiB();
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTorchPt(lying); }), "the pickle ends early");
    EXPECT_LT(peakKiB() - before, 64 * 1024) << "KiB of peak memory grew";
}

// Cut at every length, a file is a sentence for each tensor whose bytes it lost (never a crash, a
// hang or a huge allocation); a tensor whose record lies wholly before the cut reads as whole.
TEST(TorchLegacy, EveryTruncationIsAnErrorNotACrash) {
    opscope::test::ScratchDir dir("pt_legacy");
    const std::string path = dir.file("cut.pt");
    for (const char* name : {"legacy_float16_strided.pt", "legacy_checkpoint.pth"}) {
        const std::string whole = slurp(readersDir() / name);
        const std::vector<ReaderFixture> tensors = fixturesOf(name);
        ASSERT_FALSE(tensors.empty()) << name;
        int read = 0, refused = 0;
        for (std::size_t n = 0; n < whole.size(); n += 5) {
            writeBytes(path, whole.substr(0, n));
            for (const ReaderFixture& t : tensors) {
                SCOPED_TRACE(std::string(name) + " cut at " + std::to_string(n) + ", " + t.key);
                try {
                    const HostTensor got = import::readTensorFile(path + (t.key.empty() ? "" : ":" + t.key));
                    const std::string expected = slurp(readersDir() / t.bytesFile);
                    ASSERT_EQ(got.nbytes(), expected.size());
                    EXPECT_EQ(std::string(static_cast<const char*>(got.data()), got.nbytes()), expected);
                    EXPECT_LE(whole.find(expected) + expected.size(), n) << "read bytes the cut file lacks";
                    ++read;
                } catch (const FormatError&) {
                    ++refused;
                }
            }
        }
        EXPECT_GT(refused, 0);
        if (tensors.size() > 1) EXPECT_GT(read, 0) << "no tensor of a cut checkpoint read";
    }
}

// A storage record whose count disagrees with the pickle fails the tensors of that storage with
// a sentence; the storages before it in the file still read. One that runs past the file's end
// is said so.
TEST(TorchLegacy, ADamagedRecordFailsOnlyTheTensorsAfterIt) {
    const std::string name = "legacy_checkpoint.pth";
    const std::string whole = slurp(readersDir() / name);
    const std::vector<ReaderFixture> tensors = fixturesOf(name);
    // Where a tensor's storage record starts, when its bytes are found once in the file (a view
    // of another storage, or bytes that stand twice, are not).
    auto recordOf = [&](const ReaderFixture& t) {
        const std::string bytes = slurp(readersDir() / t.bytesFile);
        const std::size_t at = whole.find(bytes);
        return at != std::string::npos && whole.rfind(bytes) == at ? at : std::string::npos;
    };
    const ReaderFixture* bias = nullptr;
    for (const ReaderFixture& t : tensors)
        if (t.key == "model/bn.bias") bias = &t;
    ASSERT_NE(bias, nullptr);
    const std::size_t data = recordOf(*bias);
    ASSERT_NE(data, std::string::npos);
    ASSERT_EQ(whole.substr(data - 8, 8), std::string("\x05\0\0\0\0\0\0\0", 8)) << "bn.bias's record counts 5";

    opscope::test::ScratchDir dir("pt_legacy");
    const std::string path = dir.file("damaged.pth");
    std::string damaged = whole;
    damaged[data - 8] = '\x04';
    writeBytes(path, damaged);
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(path + ":" + bias->key); }),
                    "' should hold 5 float16 but its record holds 4");
    int before = 0;
    for (const ReaderFixture& t : tensors) {
        const std::size_t at = recordOf(t);
        if (&t == bias || at == std::string::npos || at > data) continue;
        ++before;
        EXPECT_EQ(import::readTensorFile(path + ":" + t.key).nbytes(), slurp(readersDir() / t.bytesFile).size());
    }
    RecordProperty("storages_before_the_damaged_one", before);

    damaged[data - 3] = '\x01';  // 2^40 elements more: past the file's end
    writeBytes(path, damaged);
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTensorFile(path + ":" + bias->key); }),
                    "it ends inside storage");
}

TEST(TorchLegacy, WhatItDoesNotReadIsOneSentence) {
    opscope::test::ScratchDir dir("pt_legacy");
    const std::string module = dir.file("module.pt");
    // torch.save(model) of the legacy layout names the module's class by a persistent id.
    writeBytes(module, legacyHeader() + "\x80\x02(" + text("module") + "ctorch.nn.modules.conv\nConv2d\n" +
                           text("conv.py") + text("class Conv2d: ...") + "tQ.");
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTorchPt(module); }),
                    "it saves a whole nn.Module (torch.save(model)); save its state_dict() instead");

    const std::string view = dir.file("view.pt");
    const std::string storageView = "ctorch._utils\n_rebuild_tensor_v2\n((" + text("storage") +
                                    "ctorch\nFloatStorage\n" + text("0") + text("cpu") + "K\x03(" + text("1") +
                                    "K\x01K\x02ttQK\x01K\x02\x85K\x01\x85\x89"
                                    "ccollections\nOrderedDict\n)RtR";
    writeTorchLegacy(view, "\x80\x02" + storageView + ".", 3, {});
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTorchPt(view); }), "a view of a storage");

    const std::string tar = dir.file("old.pt");
    std::string tarBytes(1024, '\0');
    tarBytes.replace(257, 5, "ustar");
    writeBytes(tar, tarBytes);
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTorchPt(tar); }), "is a tar archive");

    const std::string unused = dir.file("unused.pt");
    writeBytes(unused, legacyHeader() + "\x80\x02]." + "\x80\x02]" + text("7") + "a.");
    EXPECT_CONTAINS(errorOf<FormatError>([&] { import::readTorchPt(unused); }),
                    "its list of storages names '7', which its object does not use");
}
