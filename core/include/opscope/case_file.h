// Case files: operator calls stored in HDF5 (datasets/FORMAT.md, "Case files").
//
//   /any/groups/<case>            attribute op = "aclnnGroupNormBackward" marks a case
//       @<param> ...              every other attribute is an operator parameter, except the
//                                 reserved description, standard and opscope_* attributes
//       inputs/<arg>              one dataset per tensor argument, named as in aclnn
//       expected/<output>         optional: outputs to compare with (PyTorch float64, ...)
//       <source>/<output>         optional: more output sources (npu/ from a device dump, ...)
//
// Reading never modifies the file; writing builds a new file and renames it into place. Core
// knows nothing of operators: binding a case to one is the CLI's and GUI's work.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opscope/executor.h"
#include "opscope/h5/compressed_chunks.h"
#include "opscope/h5/h5_file.h"
#include "opscope/host_tensor.h"
#include "opscope/product.h"
#include "opscope/trace.h"

namespace opscope::cases {

inline constexpr const char* kOpAttribute = "op";
inline constexpr const char* kDescriptionAttribute = "description";
inline constexpr const char* kStandardAttribute = "standard";
inline constexpr const char* kRoleAttribute = "role";  // on a source group
inline constexpr const char* kInputsGroup = "inputs";
inline constexpr const char* kExpectedSource = "expected";

// True for the attributes of a case group that are not operator parameters.
bool isReservedAttribute(const std::string& name);

// What a source's outputs are. A reference is what a run is held to (expected/, a trace's
// recording); an actual is someone's outputs judged against the golden reference (npu/).
enum class SourceRole { Reference, Actual };
const char* sourceRoleName(SourceRole r);  // "reference", "actual"
// The role attribute when present ("reference" / "actual"), else Reference for "expected" and
// "golden" and Actual for every other source name.
SourceRole defaultRole(const std::string& sourceName);

struct TensorSummary {
    std::string name;
    DType dtype = DType::Undefined;  // Undefined when the dataset is not a numeric tensor
    std::string typeName;            // "float32", "bfloat16", "string", ...
    std::vector<int64_t> shape;
};

struct SourceSummary {
    std::string name;
    SourceRole role = SourceRole::Reference;
    std::string description;
    std::vector<TensorSummary> tensors;
};

// A case from metadata only (no tensor data is read): for listings.
struct CaseSummary {
    std::string path;
    std::string op;
    std::string description;
    std::string standard;  // "" = the operator's default
    std::vector<Param> params;
    std::vector<TensorSummary> inputs;
    std::vector<SourceSummary> sources;
};

struct OutputSource {
    std::string name;  // "expected", "npu", "trace", ...
    SourceRole role = SourceRole::Reference;
    std::string description;
    std::vector<std::pair<std::string, HostTensor>> tensors;  // by output name
    const HostTensor* find(const std::string& output) const;
};

struct Case {
    std::string path;  // where it lives: "/group_norm_backward/fp32/basic"
    std::string op;    // aclnn or short operator name
    std::string description;
    std::string standard;         // "" = the operator's default
    std::string origin = "case";  // "case", or "trace" for a replayed executor
    std::vector<Param> params;
    std::vector<std::pair<std::string, HostTensor>> inputs;
    std::vector<OutputSource> sources;
    // Extra string attributes of the case group, each named opscope_* (kept for people and
    // tools, never read as parameters): an msprobe call's name and stack, ...
    std::vector<std::pair<std::string, std::string>> notes;
    // The product its device ran on, when the file says (recordedProductOf; a trace's executor):
    // the product to emulate for the golden and the device verdict to describe that device.
    std::optional<Product> product;
    const HostTensor* input(const std::string& name) const;
    const OutputSource* source(const std::string& name) const;
};

// A case group is a group with a string attribute `op`.
bool isCaseGroup(const h5::File& file, const std::string& path);
// Paths of every case group at or under `root`, depth first in name order; a case's own
// subgroups are not searched. Reads metadata only. Empty for a trace file (casesFromTrace).
std::vector<std::string> findCases(const h5::File& file, const std::string& root = "/");
CaseSummary inspectCase(const h5::File& file, const std::string& path);
// Throws FileError with one sentence (missing inputs group, a dataset that is not a numeric
// tensor, a parameter of a type no operator takes, ...).
Case readCase(const h5::File& file, const std::string& path);

// Writes the case under `path` of an open, writable file (groups created as needed; tensors
// compressed when larger than 64 KiB, compact up to h5::kCompactMaxBytes). The path must not
// exist yet.
void writeCase(h5::File& file, const std::string& path, const Case& c);

// A case with its large tensors already compressed, made on any thread (no HDF5 call): an
// import's workers gzip in parallel and the thread that owns the file only writes.
struct PreparedCase {
    Case c;
    // The tensors writeCase compresses, keyed by their path inside the case ("inputs/x",
    // "npu/gradInput").
    std::map<std::string, h5::CompressedChunks> compressed;
};
PreparedCase prepareCase(Case c);
// writeCase for a prepared case: the same file, with the compression already done.
void writeCase(h5::File& file, const PreparedCase& prepared);
// Creates `destination` holding the cases (each at its path) with the root attributes of a
// case file, atomically; refuses to overwrite any of `inputs`. Throws std::runtime_error.
void writeCaseFile(const std::string& destination, const std::vector<Case>& cases,
                   const std::vector<std::string>& inputs = {});
// The same, one case at a time, for imports too large to hold in memory: cases go into a
// temporary file beside `destination`, which commit() renames into place (nothing is left
// behind without it). Throws std::runtime_error.
class CaseFileWriter {
public:
    CaseFileWriter(const std::string& destination, const std::vector<std::string>& inputs = {});
    ~CaseFileWriter();
    void add(const Case& c);
    void add(const PreparedCase& c);
    // A string attribute on the file's root group (e.g. kImportShardAttribute).
    void setRootAttribute(const std::string& name, const std::string& value);
    void commit();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Traces as cases: each completed executor whose inputs were recorded with values becomes a
// case at "/executors/<index>" with origin "trace", its recorded parameters, and a source
// "trace" (role Reference) holding the recorded outputs. The others are described in `skipped`
// (one sentence each). Throws FileError for a file that is not a trace.
std::vector<Case> casesFromTrace(const std::string& tracePath, std::vector<std::string>* skipped = nullptr);
Case caseFromExecutorTrace(const ExecutorTrace& trace, const std::string& path);
// Why a recorded executor cannot be replayed as a case (not completed, or an input recorded
// without values), or "" when it can. Works on executors read with TraceValues::Skip.
std::string whyNotReplayable(const ExecutorTrace& trace);
// One executor of an open trace as a case, reading only that executor's values; throws
// FileError with the reason when it cannot be replayed.
Case caseFromTrace(const h5::File& trace, const std::string& executorPath);

// True when the file is an OpScope trace (root attribute opscope_format = "trace").
bool isTraceFile(const h5::File& file);

// Root attribute of a case file that a sharded import wrote: its shard, "I/N". Run reports
// carry it, so that `report merge` can tell when a shard's file never ran.
inline constexpr const char* kImportShardAttribute = "opscope_import_shard";
// The file's import shard ("I/N"), or "" when it is not a shard of an import.
std::string importShardOf(const h5::File& file);

// Root attribute of a case file whose cases come from one device: the product it ran on
// ("training", "a2", ...: productId). `import msprobe --product` writes it; `run` and the
// debugger emulate that product unless told otherwise.
inline constexpr const char* kProductAttribute = "opscope_product";
// The file's recorded product, or nullopt when it records none or one OpScope does not know;
// then `unknown` (when given) gets the attribute's text, else "".
std::optional<Product> recordedProductOf(const h5::File& file, std::string* unknown = nullptr);

}  // namespace opscope::cases
