// opscope-vet: reads an untrusted HDF5 file the way OpScope's commands will, so that a file
// that crashes, hangs or exhausts libhdf5 does it here, in a throwaway process, and not in the
// CLI or the debugger (opscope/h5/vetting.h). Started by vetFile() under time and memory limits.
//   opscope-vet [--data-only] [--data PATH]... [--block DATASET START COUNT]... [--] FILE
// (START and COUNT as "0,0,4096": one integer per axis, the block readTensorBlock reads;
// --data-only: read only the data and the blocks, the file's metadata having been vetted before).
// Exit status: 0 read to the end (reader errors are the command's to report), 2 usage,
// 3 out of memory; a signal or any other status means the file is corrupt.
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "opscope/h5/vetting.h"
#include "opscope/process_memory.h"

// In sanitizer builds: a leak at exit is not what vetting looks for (libhdf5's error paths
// leak), and LeakSanitizer's report would read as a memory error.
extern "C" __attribute__((used)) const char* __asan_default_options() { return "detect_leaks=0"; }

namespace {

int usage(const char* problem) {
    if (problem) std::fprintf(stderr, "opscope-vet: %s\n", problem);
    std::fprintf(stderr,
                 "usage: opscope-vet [--data-only] [--data PATH]... [--block DATASET START COUNT]... [--] FILE\n");
    return opscope::h5::kVetExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
    opscope::returnLargeBlocksToTheSystem();
    std::vector<std::string> dataPaths;
    std::vector<opscope::h5::DataBlock> blocks;
    std::string file;
    bool dataOnly = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--data-only") {
            dataOnly = true;
        } else if (a == "--data" && i + 1 < argc) {
            dataPaths.push_back(argv[++i]);
        } else if (a == "--block" && i + 3 < argc) {
            try {
                blocks.push_back(
                    {argv[i + 1], opscope::h5::parseBlockAxes(argv[i + 2]), opscope::h5::parseBlockAxes(argv[i + 3])});
            } catch (const std::exception& e) {
                return usage(e.what());
            }
            i += 3;
        } else if (a == "--" && i + 2 == argc) {
            file = argv[++i];
        } else if (file.empty() && i + 1 == argc && a.rfind("--", 0) != 0) {
            file = a;
        } else {
            return usage(nullptr);
        }
    }
    if (file.empty()) return usage(nullptr);
    try {
        if (dataOnly)
            opscope::h5::readDataUntrusted(file, dataPaths, blocks);
        else
            opscope::h5::walkUntrusted(file, dataPaths, blocks);
    } catch (const std::bad_alloc&) {
        return opscope::h5::kVetExitOutOfMemory;
    }
    return opscope::h5::kVetExitOk;
}
