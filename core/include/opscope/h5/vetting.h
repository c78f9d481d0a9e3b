// Vetting untrusted HDF5 files in a short-lived child process before they are opened here.
//
// libhdf5 1.10 is not memory-safe against crafted or damaged files (heap overflows reading
// variable-length strings, wild reads walking object headers, endless loops in its cache), so
// a file someone sent must not be parsed first inside the process that holds the user's work.
// vetFile() runs the helper `opscope-vet` (installed next to opscope-cli) on the file: it opens
// it and reads, through the same readers the commands use, everything a command will read.
// The child runs under limits (docs/VETTING.md):
//   time     15 s wall clock, plus 1 s per 64 MiB of file when tensor data is read
//   memory   2 GiB of address space plus 4 bytes per byte of file (none in sanitizer builds,
//            whose shadow memory needs terabytes of address space)
//   no core dump, and it dies with its parent.
// A crash, a signal, a timeout or the memory limit there becomes one sentence:
//   "cannot open 'X': the file is corrupt (reading it crashed with SIGSEGV)".
// Errors the readers report as sentences are not the vetting's business: the command meets
// them again in-process and reports them as usual.
//
// OPSCOPE_TRUST_FILES=1 skips vetting (for files you made yourself and that are too large to
// read twice); nothing else does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::h5 {

struct VetLimits {
    double seconds = 15;       // wall clock; the child is killed after this
    uint64_t memoryBytes = 0;  // address space (RLIMIT_AS); 0 = unlimited
};
// The limits above for a file of this size; readsData adds time for reading tensors.
VetLimits defaultVetLimits(uint64_t fileBytes, bool readsData);

// How a child ended. ok: it exited 0. Otherwise `reason` says why, in words for a sentence
// ("reading it crashed with SIGSEGV", "reading it did not finish within 15 s", ...).
struct ChildOutcome {
    bool ok = false;
    std::string reason;
};
// Runs argv (argv[0] an executable path) in a child under the limits, with stdin and stdout
// on /dev/null; its stderr is read to name what a sanitizer found. Exit status 3 means the
// child ran out of memory (opscope-vet's convention). Throws std::runtime_error when no
// child can be started.
ChildOutcome runLimitedChild(const std::vector<std::string>& argv, const VetLimits& limits);

// Exit statuses of opscope-vet.
inline constexpr int kVetExitOk = 0;
inline constexpr int kVetExitUsage = 2;
inline constexpr int kVetExitOutOfMemory = 3;

// Where opscope-vet is: next to the running program, then <library dir>/../bin, then the build
// tree. Empty when none exists.
std::string vetHelperPath();

// A block of one dataset as h5::readTensorBlock reads it (start and count per axis).
struct DataBlock {
    std::string dataset;
    std::vector<int64_t> start, count;
};

// What the child reads, in-process (opscope-vet and the fuzz targets call this). Always: every
// object's header and attributes (values too, variable-length strings included), every
// dataset's type, shape and storage, the case summaries or the trace's executors. Then the
// tensor data under each of dataPaths: "/" reads every case (readCase) or every replayable
// executor of a trace; a case group reads that case, a trace executor path that executor, a
// dataset that tensor, another group every dataset below it. Then each of `blocks` with
// readTensorBlock, the reader the debugger then uses for it. Errors the readers throw are
// caught and the walk goes on (the command will report them); std::bad_alloc propagates.
void walkUntrusted(const std::string& path, const std::vector<std::string>& dataPaths = {},
                   const std::vector<DataBlock>& blocks = {});
// Only the tensor data and the blocks, as walkUntrusted reads them, for a file version whose
// metadata a child already walked (opscope-vet --data-only): a shard of a run, or the debugger's
// next slice, reads its own data without walking every object of a big file again.
void readDataUntrusted(const std::string& path, const std::vector<std::string>& dataPaths,
                       const std::vector<DataBlock>& blocks);

// Throws ContentError("cannot open '<path>': the file is corrupt (<reason>)") when reading the file
// crashed, hung or exhausted memory in the child; IoError when the helper cannot be found or run.
// Results are kept per (path, size, modification time) for the life of the process, so
// vetting the same file again costs nothing. Thread-safe.
void vetFile(const std::string& path, const std::vector<std::string>& dataPaths = {});

// vetFile for a reader of blocks (a slice of a big dataset, the row bands of a streamed one):
// the child reads exactly these blocks, so the first slice of a 1 GiB dataset costs its 64 MiB,
// not the whole dataset; and the metadata as vetFile does, unless a child already walked this
// file version's metadata (the next slice then costs only its block). A block is vetted again
// only when neither it nor its whole dataset was. Throws as vetFile.
void vetBlocks(const std::string& path, const std::vector<DataBlock>& blocks);

// Forgets every file version's results, as a new process would start (a test that measures
// what a first look at a file costs, after other work in the same process vetted it).
void forgetVettingResults();

// opscope-vet's command line for reading `path`: the walk of every object and attribute, unless
// a child already made it for this file version (metadataVetted: --data-only, so that a shard of
// `run` or the debugger's next slice reads only its own data), then each data path and block.
std::vector<std::string> vetArguments(const std::string& helper, const std::string& path,
                                      const std::vector<std::string>& dataPaths, const std::vector<DataBlock>& blocks,
                                      bool metadataVetted);

// opscope-vet's argument for a block's start or count ("0,0,4096"), and back; parse throws
// UsageError on anything but comma-separated integers.
std::string blockAxesText(const std::vector<int64_t>& axes);
std::vector<int64_t> parseBlockAxes(const std::string& text);

// True when OPSCOPE_TRUST_FILES=1 turns vetting off.
bool vettingDisabled();

}  // namespace opscope::h5
