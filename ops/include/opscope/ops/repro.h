// Reproducers: one case as a standalone program of the official aclnn API and its data, to build
// and run unchanged where the operator misbehaves (an NPU with CANN) and here (OpScope's SDK);
// then the outputs it wrote come back as a case whose source "npu" is judged as an msprobe
// import's is (docs/REPRO.md).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/ops/operator.h"
#include "opscope/product.h"

namespace opscope::ops {

// The folder's fixed names.
inline constexpr const char* kReproProgram = "repro.cpp";
inline constexpr const char* kReproCase = "case.h5";
inline constexpr const char* kReproInputs = "inputs";      // <arg>.npy, read by the program
inline constexpr const char* kReproOutputs = "outputs";    // <output>.npy, written by the program
inline constexpr const char* kReproExpected = "expected";  // <output>.npy, OpScope's outputs of the call

// The program's source: creates every tensor and array of the call as the operator's documentation
// asks (formats included), calls XxxGetWorkspaceSize and Xxx, and writes the outputs the mask
// selects. `filled` are complete arguments (Operator::withDefaults); `call` is their phase 1 here,
// which gives each output's dtype and shape; `origin` is one line saying where the case came from.
std::string reproProgram(const Operator& op, const OpArguments& filled, const PreparedCall& call,
                         const std::string& origin);

struct ReproExport {
    std::string op;                    // the aclnn name
    std::vector<std::string> outputs;  // the outputs the program writes
    std::vector<std::string> files;    // every file written, relative to the folder
};

// Writes `folder`, which must not exist: repro.cpp, CMakeLists.txt, README.md, case.h5 (the call
// the program makes: the inputs, every attribute, the product; no sources), inputs/<arg>.npy, an empty outputs/ and
// expected/<output>.npy (OpScope's outputs of the call). The call is emulated on the current
// product (setProduct), which case.h5 records. The folder is built beside its destination and
// renamed into place, so it is whole or absent. bfloat16 tensors are stored as float32 .npy
// (numpy has no bfloat16; exact), converted by the program. `origin` says where the case came
// from ("case /a/b of x.h5"). Throws StatusError when the emulation rejects the call (nothing to
// reproduce), ArgumentError when the case does not fit its operator, std::runtime_error for I/O.
ReproExport exportRepro(const cases::Case& c, const std::string& folder, const std::string& origin);

// Bundles: several reproducers in one folder, one subfolder each, with README.md and run_all.sh,
// which builds and runs every one and goes on past one that fails (CMake arguments such as
// -DACLNN_ROOT=SDK are passed through).
struct ReproBundleEntry {
    std::string folder;  // the subfolder, reproFolderName of the case path; "" when skipped
    std::string casePath;
    std::string op;
    std::string skipped;  // why the case has no reproducer (the emulation rejects it, ...), or ""
};
struct ReproBundleWork {
    std::size_t count = 0;
    std::function<cases::Case(std::size_t)> caseAt;                     // read one at a time: one case in memory
    std::function<void(std::size_t done, std::size_t total)> progress;  // may be empty
    std::function<bool()> cancelled;                                    // may be empty
};
// A case path as a folder name: "/msprobe/step0/rank0/Functional.conv2d.4" ->
// "msprobe_step0_rank0_Functional.conv2d.4".
std::string reproFolderName(const std::string& casePath);
// Writes `folder` (new; whole or absent, as exportRepro's) with every case of `work` as a
// reproducer (exportRepro, on the current product) in its subfolder; `originFile` names the file
// the cases came from. A case that cannot be exported (the emulation rejects it, it does not fit
// its operator) is skipped with its reason, in the entries and README.md. Throws Cancelled when
// `work.cancelled` says so, UsageError when no case could be exported: then nothing is left.
struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("cancelled") {}
};
std::vector<ReproBundleEntry> exportReproBundle(const ReproBundleWork& work, const std::string& folder,
                                                const std::string& originFile);
// The reproducer folders of a bundle (subfolders holding case.h5, by name), or {folder} itself
// when it is one reproducer. Empty when it is neither.
std::vector<std::string> reproFoldersOf(const std::string& folder);

// Adds the program's outputs (folder/outputs/<output>.npy) to `c`, the case of the folder's
// case.h5, as the source "npu" (role actual), so that `run` judges them as it judges a device's
// dumped gradients. Each output the call selects (phase 1 on the current product) must be there
// with its shape and dtype (bfloat16: float32 values that are bfloat16). Throws ContentError
// naming the file and what is wrong.
void attachReproOutputs(cases::Case& c, const std::string& folder);

}  // namespace opscope::ops
