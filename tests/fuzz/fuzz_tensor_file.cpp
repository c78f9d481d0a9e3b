// The tensor-file readers (.npy, .npz, .pt, .safetensors) on arbitrary bytes: the first byte picks
// the extension, the rest is the file. Every reader the CLI's --bind, compare and info use runs
// on it: describe, the keys, the file without a key and each key (at most 8). The readers parse
// these formats themselves (no libhdf5), so raw bytes are the right input.
#include <fstream>

#include "fuzz_support.h"
#include "opscope/import/tensor_file.h"

namespace {

const char* const kExtensions[] = {".npy", ".npz", ".pt", ".safetensors"};

// One file per fuzzing process and extension, beside the HDF5 targets' scratch file.
std::string scratchTensorFile(uint8_t selector) { return opscope::fuzz::scratchFile() + kExtensions[selector % 4]; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using opscope::fuzz::read;
    namespace import = opscope::import;
    if (size == 0) return 0;
    const std::string path = scratchTensorFile(data[0]);
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    read("describeTensorFile", [&] { import::describeTensorFile(path); });
    read("readTensorFile", [&] { import::readTensorFile(path); });
    std::vector<std::string> keys;
    read("tensorFileKeys", [&] { keys = import::tensorFileKeys(path); });
    for (std::size_t i = 0; i < keys.size() && i < 8; ++i)
        read("readTensorFile(key)", [&] { import::readTensorFile(path + ":" + keys[i]); });
    return 0;
}
