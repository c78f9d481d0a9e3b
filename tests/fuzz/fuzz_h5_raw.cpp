// libFuzzer target, on demand only (scripts/fuzz.sh h5_raw): the input is the HDF5 file itself,
// read by the vetting walk (every object, attribute, case and trace table, and all tensor data)
// in this process. It reaches libhdf5 1.10's own parser, which is not memory-safe against
// damaged files: expect its crashes (H5HG_read, H5O object-header walks, H5C_protect loops;
// issue 12). That is why the CLI and the debugger read untrusted files in opscope-vet first.
// Seeds: datasets/*.h5 and tests/data/*.h5.
#include <hdf5.h>

#include <cstdio>

#include "fuzz_support.h"
#include "opscope/h5/vetting.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace opscope;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const std::string& path = fuzz::scratchFile();
    std::FILE* out = std::fopen(path.c_str(), "wb");
    if (!out) __builtin_trap();
    const bool written = std::fwrite(data, 1, size, out) == size;
    if (std::fclose(out) != 0 || !written) __builtin_trap();
    fuzz::read("walkUntrusted", [&] { h5::walkUntrusted(path, {"/"}); });
    return 0;
}
