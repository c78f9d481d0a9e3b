// What the file-reader fuzz targets share: a scratch file per process, the dtype alphabet, and
// the policy for exceptions. Readers answer bad files with exceptions (sentences); only a
// crash, a sanitizer report, a hang or a huge allocation is a finding. With
// OPSCOPE_FUZZ_STRICT=1, an exception other than FileError is a finding too (the CLI would
// print it as "internal error").
#pragma once

#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "opscope/dtype.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/h5_handle.h"
#include "opscope/h5/vetting.h"
#include "opscope/host_tensor.h"

namespace opscope::fuzz {

// One file per fuzzing process (libFuzzer's -jobs/-workers run several), in a RAM disk when
// there is one.
inline const std::string& scratchFile() {
    static const std::string path = [] {
        const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        return std::string(dir) + "/opscope-fuzz-" + std::to_string(::getpid()) + ".h5";
    }();
    return path;
}

inline bool strict() {
    static const bool s = [] {
        const char* v = std::getenv("OPSCOPE_FUZZ_STRICT");
        return v && std::strcmp(v, "1") == 0;
    }();
    return s;
}

// Runs one reader call; exceptions are answers (see above).
template <class Fn>
void read(const char* what, Fn&& fn) {
    try {
        fn();
    } catch (const FileError&) {
    } catch (const std::exception& e) {
        if (strict()) {
            std::fprintf(stderr, "%s threw a non-FileError exception: %s\n", what, e.what());
            std::abort();
        }
    }
}

// The whole of a file-reader target: `build(in)` writes the scratch file from the input (a
// write the library refuses ends the run), then every reader looks at it: the vetting walk,
// readOpened(file) on the file opened read-only, and readPath(path) for readers that open it.
template <class Build, class ReadOpened, class ReadPath>
int buildThenRead(const uint8_t* data, size_t size, Build&& build, ReadOpened&& readOpened, ReadPath&& readPath) {
    FuzzedDataProvider in(data, size);
    h5::detail::silenceErrorPrinting();
    try {
        build(in);
    } catch (const FileError&) {
        return 0;  // the input asked for something the writer refuses
    }
    const std::string& path = scratchFile();
    read("walkUntrusted", [&] { h5::walkUntrusted(path); });
    read("open", [&] { readOpened(h5::File::openReadOnly(path)); });
    readPath(path);
    return 0;
}

// libFuzzer's entry point of a file-reader target: buildThenRead with the target's writer and readers.
#define OPSCOPE_FILE_READER_TARGET(build, readOpened, readPath)                       \
    extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {         \
        return opscope::fuzz::buildThenRead(data, size, build, readOpened, readPath); \
    }

inline constexpr DType kDtypes[] = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int8,
                                    DType::Int32,   DType::Int64,   DType::UInt8,    DType::Bool};

// A small tensor (rank up to 4, dims up to 6) of a picked dtype with bytes from the input.
inline HostTensor smallTensor(FuzzedDataProvider& in) {
    std::vector<int64_t> shape(in.ConsumeIntegralInRange<std::size_t>(0, 4));
    for (int64_t& d : shape) d = in.ConsumeIntegralInRange<int64_t>(0, 6);
    HostTensor t(in.PickValueInArray(kDtypes), shape);
    const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(t.nbytes());
    if (!bytes.empty()) std::memcpy(t.data(), bytes.data(), bytes.size());  // the rest stays as allocated
    if (t.dtype() == DType::Bool)  // a bool byte other than 0 or 1 would be the harness's bug
        for (int64_t i = 0; i < t.numel(); ++i) t.dataAs<uint8_t>()[i] &= 1;
    return t;
}

// A string that is often meaningful to the readers, else arbitrary bytes.
inline std::string word(FuzzedDataProvider& in, const std::vector<std::string>& dictionary) {
    if (in.ConsumeBool() && !dictionary.empty())
        return dictionary[in.ConsumeIntegralInRange<std::size_t>(0, dictionary.size() - 1)];
    return in.ConsumeRandomLengthString(24);
}

}  // namespace opscope::fuzz
