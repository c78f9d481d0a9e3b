// The tensor-file readers (.npy, .npz, .pt, .safetensors, a shard index) on arbitrary bytes: the
// first byte picks the extension, the rest is the file. Every reader the CLI's --bind, compare and
// info use runs on it: describe, the keys, the file without a key and each key (at most 8), every
// key again through the one opened file that a key-by-key compare keeps, and blocks of each key as
// the debugger's view reads them. The readers parse these formats themselves (no libhdf5), so
// raw bytes are the right input. An index's shards are
// names beside it: one valid shard, kShardName, is always there (the seeds map keys to it, to
// names that are not there and to paths that leave the folder).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fuzz_support.h"
#include "opscope/import/tensor_file.h"

namespace {

const char* const kExtensions[] = {".npy", ".npz", ".pt", ".safetensors", ".safetensors.index.json"};
constexpr const char* kShardName = "opscope-fuzz-shard.safetensors";

// One file per fuzzing process and extension, beside the HDF5 targets' scratch file.
std::string scratchTensorFile(uint8_t selector) { return opscope::fuzz::scratchFile() + kExtensions[selector % 5]; }

// The shard an index may name: tensors "a" (F32 [2]) and "b" (I64 [1]). Written under a private
// name and renamed, so that fuzzing processes sharing the folder never read half of it.
void writeShardOnce() {
    static const bool written = [] {
        const std::filesystem::path dir = std::filesystem::path(opscope::fuzz::scratchFile()).parent_path();
        std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}})";
        header.append((8 - header.size() % 8) % 8, ' ');
        std::string bytes(8, '\0');
        for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
        bytes += header + std::string("\x00\x00\x80\x3f\x00\x00\x00\x40\x07\0\0\0\0\0\0\0", 16);
        const std::string temp = opscope::fuzz::scratchFile() + ".shard";
        std::ofstream(temp, std::ios::binary | std::ios::trunc)
            .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        std::rename(temp.c_str(), (dir / kShardName).c_str());
        return true;
    }();
    (void)written;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using opscope::fuzz::read;
    namespace import = opscope::import;
    if (size == 0) return 0;
    writeShardOnce();
    const std::string path = scratchTensorFile(data[0]);
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    read("describeTensorFile", [&] { import::describeTensorFile(path); });
    read("readTensorFile", [&] { import::readTensorFile(path); });
    std::vector<std::string> keys;
    read("tensorFileKeys", [&] { keys = import::tensorFileKeys(path); });
    for (std::size_t i = 0; i < keys.size() && i < 8; ++i)
        read("readTensorFile(key)", [&] { import::readTensorFile(path + ":" + keys[i]); });
    read("TensorFile", [&] {
        const import::TensorFile file(path);
        const std::vector<std::string> opened = file.keys();
        for (std::size_t i = 0; i < opened.size() && i < 8; ++i)
            read("TensorFile::read", [&] { file.read(opened[i]); });
        // Blocks as the debugger reads them: the whole, the first index of the first axis, the
        // last element; of each key, or of the file's one tensor.
        std::vector<std::string> blockKeys(opened.begin(), opened.begin() + std::min<std::size_t>(opened.size(), 8));
        if (blockKeys.empty()) blockKeys.push_back("");
        for (const std::string& key : blockKeys)
            read("TensorFile::readBlock", [&] {
                const std::vector<int64_t> shape = file.entry(key).shape;
                const std::vector<int64_t> zero(shape.size(), 0);
                if (opscope::shapeNumel(shape) > (int64_t(1) << 24))
                    return;  // a whole block that large is the caller's choice
                file.readBlock(key, zero, shape);
                if (shape.empty() || shape[0] == 0) return;
                std::vector<int64_t> first = shape, last(shape.size());
                first[0] = 1;
                file.readBlock(key, zero, first);
                for (std::size_t a = 0; a < shape.size(); ++a) last[a] = shape[a] - 1;
                if (opscope::shapeNumel(shape) > 0) file.readBlock(key, last, std::vector<int64_t>(shape.size(), 1));
            });
    });
    return 0;
}
