// msprobe (MindStudio probe) dumps as OpScope cases. msprobe dumps each API call (L1), module
// (L0) or both (mix) of a PyTorch step on the NPU as dump.json, stack.json and one tensor file
// per tensor under dump_tensor_data/, in <dump_path>/step<S>/rank<R>/ (or proc<pid>/). Every
// backward call whose forward runs one of OpScope's operators becomes one case (see
// docs/MSPROBE.md for the mapping of each API):
//
//   /  @opscope_product               the device's product (DeviceSettings::product)
//   /msprobe/<step>/<rank>/<call>     e.g. /msprobe/step0/rank0/Functional.conv2d.1
//       @op, parameters               from the forward call's arguments and PyTorch's defaults
//       @opscope_msprobe_call         the call's name in dump.json
//       @opscope_stack                the call's stack from stack.json, when present
//                                     (both also in Case::notes when imported in memory)
//       inputs/                       forward tensors and the incoming gradient
//       npu/  (role actual)           the gradients the device computed
//
// Qt-free and independent of the operators, so the CLI and the debugger share it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/product.h"

namespace opscope::import::msprobe {

inline constexpr const char* kCaseRoot = "/msprobe";
inline constexpr const char* kDeviceSource = "npu";
inline constexpr const char* kStackAttribute = "opscope_stack";
inline constexpr const char* kCallAttribute = "opscope_msprobe_call";

// A folder holding a dump.json: its path and where it sits in the dump ("step0", "rank0";
// "" when the folder is not named so).
struct DumpFolder {
    std::string path, step, rank;
    std::string label() const;  // "step0/rank0"
};

// Every dump folder at or under `dir` (a dump root, a step folder, a rank or proc folder), in
// step, then rank order (numerically). `step`/`rank` keep only those ("0" or "step0"). Throws
// FormatError when there is no dump.json at all, or none with that step/rank.
std::vector<DumpFolder> findDumpFolders(const std::string& dir, const std::string& step = "",
                                        const std::string& rank = "");

// What a dump does not record about how the device ran, and the importer must be told.
struct DeviceSettings {
    // The device the dump comes from: written into the case file (cases::kProductAttribute), so
    // that `run` and the debugger emulate it, and it decides the convolutions' cubeMathType.
    Product product = Product::AtlasA2;
    // torch_npu.npu.conv.allow_hf32 of the run (torch_npu's default: true).
    bool convAllowHf32 = true;
};

// The cubeMathType torch_npu passes aclnnConvolutionBackward on that device
// (CalcuOpUtil::GetCubeMathType): from allow_hf32 and the precision mode, whose default is
// allow_fp32_to_fp16 before Ascend 910B (the training and inference series) and
// must_keep_origin_dtype from it on (A2, A3). A2/A3: 3 (USE_HF32) or 0 (KEEP_DTYPE); the
// others: 1 (ALLOW_FP32_DOWN_PRECISION) or 2 (USE_FP16), both fp16 operands there.
int8_t torchNpuCubeMathType(const DeviceSettings& device);
// How float32 convolutions are replayed, for the import's summary: "HF32 operands (cubeMathType
// 3: torch_npu's default on this device)".
std::string convolutionArithmetic(const DeviceSettings& device);

// One dump folder's dump.json (and stack.json), parsed once.
class Dump {
public:
    explicit Dump(DumpFolder folder);  // throws FormatError naming dump.json
    ~Dump();
    Dump(Dump&&) noexcept;
    const DumpFolder& folder() const;
    const std::string& level() const;  // "L0", "L1", "mix" as dump.json says

    // The calls that run one of OpScope's operators, in dump.json order: "Functional.conv2d.0",
    // "Module.conv1.Conv2d.0", "NPU.npu_rms_norm.3", ...
    const std::vector<std::string>& supportedCalls() const;
    // mix level: the module calls left out of supportedCalls because each is one computation
    // with the one call its forward ran (construct.json), which is imported in its place:
    // ("Module.conv1.Conv2d.0", "Functional.conv2d.0"), in dump order.
    const std::vector<std::pair<std::string, std::string>>& foldedModules() const;
    // The case of one of them. Throws std::runtime_error (FormatError for a bad file) with the
    // reason when it cannot be replayed: statistics only, a missing or damaged tensor file, a
    // 5-D grid_sample, a dtype the operator does not take, ...
    cases::Case makeCase(const std::string& call, const DeviceSettings& device, uint64_t* bytesRead = nullptr) const;
    std::string casePath(const std::string& call) const;  // "/msprobe/step0/rank0/<call>"
    std::string stack(const std::string& call) const;     // its frames from stack.json, or ""

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct Skipped {
    std::string call;  // "step0/rank0/Functional.conv2d.3"
    std::string reason;
};

struct ImportOptions {
    std::string step, rank;              // "" = all
    int jobs = 1;                        // worker threads reading tensor files
    int shardIndex = 0, shardCount = 1;  // keep the calls whose position in the sorted list % count == index
    DeviceSettings device;
    // Called after each call is done (on the calling thread), with the number done and the total.
    std::function<void(std::size_t done, std::size_t total)> progress;
    // Asked before each call is kept (on the calling thread): true stops the import within a
    // few calls (the workers' calls in flight are dropped) and importDump writes nothing.
    std::function<bool()> cancelled;
};

struct ImportSummary {
    std::vector<DumpFolder> folders;
    std::size_t supported = 0;          // supported calls in this shard (M)
    std::vector<std::string> imported;  // case paths, in order (K of them)
    std::size_t convolutions = 0;       // of them, aclnnConvolutionBackward cases (DeviceSettings apply)
    std::size_t bfloat16Calls = 0;      // of them, calls with a bfloat16 input (an Atlas A2/A3 ran them)
    std::vector<Skipped> skipped;       // supported calls that could not be imported, and why
    // mix level: the module calls imported as the call each ran,
    // ("step0/rank0/Module.conv1.Conv2d.0", "Functional.conv2d.0"); every folder's, in any shard
    std::vector<std::pair<std::string, std::string>> folded;
    uint64_t tensorBytes = 0;  // bytes of tensor files read
    bool written = false;      // importDump wrote the file (not when nothing imported)
    bool cancelled = false;    // ImportOptions::cancelled stopped it: nothing written
};

// Imports every supported call under `dir` into a new case file `output`, written atomically
// (never over one of the dump's files; not at all when no call imports or it is cancelled). Cases keep dump order
// whatever the number of jobs. Throws FormatError (no dump found) or std::runtime_error (cannot write).
ImportSummary importDump(const std::string& dir, const std::string& output, const ImportOptions& options = {});

// "", or that the mix level's module calls were imported once, as the calls they ran: for the
// CLI's summary and the debugger's.
std::string foldedModulesNote(const ImportSummary& summary);

// What the dump says against the device it was imported as, or "": bfloat16 calls, which only
// an Atlas A2/A3 runs, in a dump imported as from the training or inference series.
std::string deviceMismatch(const ImportSummary& summary, const DeviceSettings& device);

// The msprobe call a case path names ("Functional.conv2d.1" for
// "/msprobe/step0/rank0/Functional.conv2d.1"), or "" for a path outside /msprobe.
std::string callOfCasePath(const std::string& casePath);

// The same, returning the cases in memory (for the debugger).
std::vector<cases::Case> importCases(const std::string& dir, const ImportOptions& options, ImportSummary* summary);

}  // namespace opscope::import::msprobe
