// What every opscope-cli command shares: exit codes, the one-sentence input error, number and
// shape formatting, "FILE:/path" dataset references, and output-path checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "opscope/dtype.h"
#include "opscope/error.h"
#include "opscope/host_tensor.h"
#include "opscope/ops/tensor_sets.h"
#include "opscope/metric_fields.h"
#include "opscope/product.h"

namespace opscope::cli {

// 0: everything judged passed; 1: something failed its standard; 2: usage or input error.
enum ExitCode : int { kExitPass = 0, kExitFail = 1, kExitError = 2 };

// A usage or input error: main prints "opscope-cli: <what()>" to stderr and exits 2.
using CliError = UsageError;

// "FILE.h5:/path/in/file" (the last ':' before a '/').
struct DatasetRef {
    std::string file;
    std::string path;
    std::string text() const { return file + ":" + path; }
};
// Throws CliError naming `what` ("the first tensor", "--bind gradOut") when malformed.
DatasetRef parseDatasetRef(const std::string& text, const std::string& what);

bool stderrIsTerminal();

// "1.23e-05", "0.999", "nan"; fixed precision for tables.
std::string formatNumber(double v, int significant = 3);
std::string formatPercent(double share);  // "99.950%"
std::string formatBytes(uint64_t bytes);  // "333 KiB"
// A metric as the CLI shows it ("-" where it does not apply): counts whole, cosine with 9
// digits, shares as percentages, the rest with `significant` digits.
std::string formatMetric(const metrics::MetricField& f, const metrics::ComparisonMetrics& m, int significant = 3);
std::string tensorText(DType dtype, const std::vector<int64_t>& shape);  // "float32[2, 3]"
std::string tensorText(const std::string& typeName, const std::vector<int64_t>& shape);

// --dtype values: the floating dtypes by name or alias ("fp16", "bf16", "float32").
DType parseFloatDtype(const std::string& text);

// Throws CliError when `output` is one of `inputs` (the same file by any name), a directory, or
// in a directory that does not exist: checked before any work starts.
void checkOutputPath(const std::string& output, const std::vector<std::string>& inputs, const std::string& what);

// The -o a writing command requires: "'<command>' needs -o <names>" when it is missing, and
// "-o 'x' must end in <extension>" unless it does (no extension: a folder).
std::string requiredOutput(const ParsedArgs& a, const std::string& command, const std::string& names,
                           const std::string& extension = "");

// `text` as a whole number in [min, max], or nothing (not a number, trailing text, out of range).
std::optional<long> parseWholeNumber(const std::string& text, long min, long max);

// "true" or "false" in any case, or nothing.
std::optional<bool> parseTrueFalse(const std::string& text);

// --jobs N (1..1024) and --shard I/N (0 <= I < N); throw CliError with the value seen.
int parseJobs(const std::string& text);
void parseShard(const std::string& text, int* index, int* count);

// The value of --product (an id or alias: a2, 910b, training, ...); throws CliError for one
// OpScope does not know.
Product parseProductOption(const std::string& text);

// A shard "I/N" (0 <= I < N <= kMaxShards) as written by --shard and kept in reports and case
// files; nothing for any other text.
constexpr int kMaxShards = 1000000;
struct Shard {
    int index = 0, count = 1;
};
std::optional<Shard> shardNamed(const std::string& text);

// Files must exist and be regular before HDF5 sees them: a clearer sentence than HDF5's.
void requireReadableFile(const std::string& path);
// requireReadableFile, then the file is read once in a throwaway process (opscope/h5/vetting.h):
// one that crashes, hangs or exhausts libhdf5 there is FileError "cannot open 'F': the file is
// corrupt (...)", exit 2. dataPaths: where the command will read tensor data ("/": all of it).
void requireSafeFile(const std::string& path, const std::vector<std::string>& dataPaths = {});
// The same for the tensors of some cases of a case file whose metadata requireSafeFile vetted: a
// command that takes a few cases of a big file (a run shard, an export) has those read, not the
// whole file. A list too long for the validator's command line reads every case.
void requireSafeCases(const std::string& path, const std::vector<std::string>& casePaths);
// The dataset at `ref`, its file vetted first (requireSafeFile): CliError naming `what` ("the
// actual tensor", "--bind gradOut") when nothing or a group is there; FileError when HDF5 fails.
HostTensor readDatasetTensor(const DatasetRef& ref, const std::string& what);
// A tensor named on the command line: FILE.h5:/path, or a numpy or PyTorch file (FILE.npy,
// FILE.npz:KEY, FILE.pt[:KEY]). Every failure is a CliError naming `what`; the file read is
// appended to `files` (which outputs must not replace).
HostTensor readTensorArgument(const std::string& target, const std::string& what,
                              std::vector<std::string>* files = nullptr);
// The same tensor opened, its dtype and shape from metadata, read whole or a block at a time
// (what compare streams in bands when it is big). The same CliErrors, from the reads too.
ops::TensorHandle openTensorArgument(const std::string& target, const std::string& what,
                                     std::vector<std::string>* files = nullptr);

}  // namespace opscope::cli
