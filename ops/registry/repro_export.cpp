// A reproducer folder: written whole beside its destination and renamed into place, and the
// outputs its program wrote read back as the case's device source.
#include <algorithm>
#include <set>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include "opscope/convert.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/import/msprobe.h"
#include "opscope/import/npy.h"
#include "opscope/import/tensor_file.h"
#include "opscope/ops/case_runner.h"
#include "opscope/ops/repro.h"

namespace opscope::ops {
namespace fs = std::filesystem;
namespace {

// bfloat16 travels as float32 (exactly); every other dtype as itself.
HostTensor asStored(const HostTensor& t) {
    if (t.dtype() != DType::BFloat16) return t;
    HostTensor f(DType::Float32, t.shape());
    copyConvert(t.view(), f.view());
    return f;
}

void writeText(const fs::path& path, const std::string& text) { h5::writeFileAtomically(path, text); }

std::string cmakeLists() {
    return R"(# Builds repro.cpp with the official build line, against CANN or OpScope: the same program.
#   CANN (on the NPU machine): source CANN's set_env.sh, then
#       cmake -S . -B build && cmake --build build
#   OpScope (on any Linux machine): cmake --install OpScope's build tree to SDK, then
#       cmake -S . -B build -DACLNN_ROOT=SDK && cmake --build build
cmake_minimum_required(VERSION 3.13)
project(opscope_repro CXX)
set(CMAKE_CXX_STANDARD 14)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(ACLNN_ROOT "$ENV{ASCEND_HOME_PATH}" CACHE PATH "CANN's toolkit (ASCEND_HOME_PATH) or an installed OpScope SDK")
if(NOT ACLNN_ROOT)
  message(FATAL_ERROR "Set ASCEND_HOME_PATH (source CANN's set_env.sh) or pass -DACLNN_ROOT=<OpScope SDK>")
endif()
add_executable(repro repro.cpp)
target_include_directories(repro PRIVATE ${ACLNN_ROOT}/include ${ACLNN_ROOT}/include/aclnnop)
target_link_directories(repro PRIVATE ${ACLNN_ROOT}/lib64 ${ACLNN_ROOT}/lib)
target_link_libraries(repro PRIVATE opapi ascendcl nnopbase)
set_target_properties(repro PROPERTIES BUILD_RPATH "${ACLNN_ROOT}/lib64;${ACLNN_ROOT}/lib")
)";
}

std::string readme(const std::string& op, const std::string& origin, Product product,
                   const std::vector<std::string>& outputs) {
    std::string list;
    for (const std::string& o : outputs) list += "`outputs/" + o + ".npy` ";
    return "# Reproducer: one call of " + op + "\n\nExported by OpScope from " + origin + ", as the " +
           productName(product) +
           " runs it.\n\n"
           "`repro.cpp` uses the official aclnn API alone (`acl/acl.h`, `aclnnop/`), so it builds unchanged "
           "against CANN on an Ascend NPU and against OpScope's SDK on any Linux machine. It reads "
           "`inputs/*.npy`, runs the call and writes " +
           list +
           "(bfloat16 tensors as float32 .npy: numpy has no bfloat16).\n\n"
           "## On the NPU\n\n```sh\nsource /usr/local/Ascend/ascend-toolkit/set_env.sh   # CANN's, wherever it is "
           "installed: "
           "it sets ASCEND_HOME_PATH\n"
           "cmake -S . -B build && cmake --build build\n./build/repro .          # REPRO_DEVICE=N picks "
           "the device\n```\n\n"
           "## Judge what it wrote\n\nCopy the folder back (with `outputs/`) and, where OpScope is installed:\n\n"
           "```sh\nopscope-cli import repro . -o judged.h5   # the case, with outputs/ as its source npu\n"
           "opscope-cli run judged.h5                 # npu vs the float64 golden: device fails / agree\n"
           "opscope judged.h5                         # the debugger on it\n```\n\n"
           "`expected/` holds OpScope's own outputs of the call "
           "(`opscope-cli compare outputs expected` shows how far the device is from the emulation). "
           "`case.h5` is the case itself (datasets/FORMAT.md of OpScope).\n\n"
           "## Against OpScope\n\n```sh\ncmake -S . -B build -DACLNN_ROOT=<OpScope SDK> && cmake --build build\n"
           "OPSCOPE_PRODUCT=" +
           std::string(productId(product)) + " ./build/repro .   # the device this case is for\n```\n";
}

// Builds and runs every reproducer beside it; goes on past one that fails.
constexpr const char* kRunAll = R"sh(#!/usr/bin/env bash
# Builds and runs every reproducer of this bundle, each with its own CMakeLists.txt, and goes on
# past one that fails. Arguments go to CMake: bash run_all.sh -DACLNN_ROOT=<OpScope SDK>
set -u
cd "$(dirname "$0")"
total=0 failed=0
for d in */; do
  d=${d%/}
  [ -f "$d/repro.cpp" ] || continue
  total=$((total + 1))
  if ! { cmake -S "$d" -B "$d/build" "$@" && cmake --build "$d/build"; } > "$d/build.log" 2>&1; then
    echo "$d: the build failed (its build.log)"
    failed=$((failed + 1))
  elif ! "$d/build/repro" "$d" > "$d/run.log" 2>&1; then
    echo "$d: the program failed (its run.log): $(tail -1 "$d/run.log")"
    failed=$((failed + 1))
  else
    echo "$d: ran"
  fi
done
echo "$((total - failed)) of $total reproducers ran; copy the folder back and: opscope-cli import repro . -o judged.h5"
[ "$failed" -eq 0 ]
)sh";

std::string bundleReadme(const std::vector<ReproBundleEntry>& entries, const std::string& originFile, Product product) {
    std::string rows, skipped;
    for (const ReproBundleEntry& e : entries) {
        if (e.skipped.empty())
            rows += "| `" + e.folder + "` | `" + e.casePath + "` | " + e.op + " |\n";
        else
            skipped += "- `" + e.casePath + "`: " + e.skipped + "\n";
    }
    return "# Reproducers of " + originFile + "\n\nOne folder a call, as the " + productName(product) +
           " runs it; each folder's README.md says what it holds.\n\n"
           "| folder | case | operator |\n|---|---|---|\n" +
           rows + (skipped.empty() ? "" : "\nNot exported:\n\n" + skipped) +
           "\n## On the NPU\n\n```sh\nsource /usr/local/Ascend/ascend-toolkit/set_env.sh   # CANN's: sets "
           "ASCEND_HOME_PATH\nbash run_all.sh        # builds and runs every folder, goes on past a failure\n```\n\n"
           "## Judge what they wrote\n\nCopy the folder back and, where OpScope is installed:\n\n```sh\n"
           "opscope-cli import repro . -o judged.h5   # every folder whose program ran, as one case file\n"
           "opscope-cli run judged.h5\n```\n\n"
           "Against OpScope: `OPSCOPE_PRODUCT=" +
           std::string(productId(product)) + " bash run_all.sh -DACLNN_ROOT=<OpScope SDK>`.\n";
}

// Removes the folder being built unless it was renamed into place.
struct PartialFolder {
    fs::path path;
    bool done = false;
    ~PartialFolder() {
        std::error_code ec;
        if (!done) fs::remove_all(path, ec);
    }
};

// The call as the emulation runs it: phase 1 (and the run, when `run`) on the current product.
std::unique_ptr<PreparedCall> prepared(const cases::Case& c, bool run) {
    const Operator* op = findOperator(c.op);
    if (!op) throw ContentError(unknownOperatorMessage(c.op));
    std::unique_ptr<PreparedCall> call = op->prepare(bindArguments(*op, c));
    if (run) call->runToEnd();
    return call;
}

// A new folder's destination, checked: it must not exist, its parent must.
fs::path newFolder(const std::string& folder) {
    const fs::path destination = fs::absolute(folder).lexically_normal();
    std::error_code ec;
    if (fs::exists(destination, ec)) throw UsageError("'" + folder + "' exists: export a reproducer into a new folder");
    if (!fs::is_directory(destination.parent_path(), ec))
        throw IoError("cannot write '" + folder + "': its folder does not exist");
    return destination;
}

// Where a folder is built before it is renamed into place.
fs::path partialPathOf(const fs::path& destination) {
    const fs::path partial = destination.string() + ".tmp-" + std::to_string(::getpid());
    std::error_code ec;
    fs::remove_all(partial, ec);
    fs::create_directories(partial);
    return partial;
}

void moveIntoPlace(PartialFolder& partial, const fs::path& destination, const std::string& folder) {
    std::error_code ec;
    fs::rename(partial.path, destination, ec);
    if (ec) throw IoError("cannot move the reproducer into '" + folder + "': " + ec.message());
    partial.done = true;
}

}  // namespace

ReproExport exportRepro(const cases::Case& c, const std::string& folder, const std::string& origin) {
    const fs::path destination = newFolder(folder);
    std::unique_ptr<PreparedCall> call = prepared(c, true);
    const Operator& op = *findOperator(c.op);
    ReproExport out;
    out.op = op.schema().name;

    PartialFolder partial{partialPathOf(destination)};
    for (const char* sub : {kReproInputs, kReproOutputs, kReproExpected}) fs::create_directories(partial.path / sub);
    for (const auto& [name, t] : call->arguments().tensors) {
        import::writeNpy((partial.path / kReproInputs / (name + ".npy")).string(), asStored(t).view());
        out.files.push_back(std::string(kReproInputs) + "/" + name + ".npy");
    }
    for (const auto& [name, t] : call->outputs()) {
        import::writeNpy((partial.path / kReproExpected / (name + ".npy")).string(), asStored(t).view());
        out.files.push_back(std::string(kReproExpected) + "/" + name + ".npy");
        out.outputs.push_back(name);
    }
    // The call the program makes, every attribute given (a trace's recorded-only parameters go).
    cases::Case stored = caseOfArguments(op, call->arguments(), c.path);
    stored.description = c.description;
    stored.standard = c.standard;
    stored.notes = c.notes;
    stored.notes.emplace_back("opscope_repro_origin", origin);
    {
        cases::CaseFileWriter writer((partial.path / kReproCase).string());
        writer.setRootAttribute(cases::kProductAttribute, productId(currentProduct()));
        writer.add(stored);
        writer.commit();
    }
    writeText(partial.path / kReproProgram, reproProgram(op, call->arguments(), *call, origin));
    writeText(partial.path / "CMakeLists.txt", cmakeLists());
    writeText(partial.path / "README.md", readme(out.op, origin, currentProduct(), out.outputs));
    out.files.insert(out.files.begin(), {kReproProgram, "CMakeLists.txt", "README.md", kReproCase});

    moveIntoPlace(partial, destination, folder);
    return out;
}

std::string reproFolderName(const std::string& casePath) {
    std::string name = casePath.substr(
        casePath.find_first_not_of('/') == std::string::npos ? casePath.size() : casePath.find_first_not_of('/'));
    std::replace(name.begin(), name.end(), '/', '_');
    return name.empty() ? "case" : name;
}

std::vector<ReproBundleEntry> exportReproBundle(const ReproBundleWork& work, const std::string& folder,
                                                const std::string& originFile) {
    const fs::path destination = newFolder(folder);
    PartialFolder partial{partialPathOf(destination)};
    std::vector<ReproBundleEntry> entries;
    std::set<std::string> names;
    for (std::size_t i = 0; i < work.count; ++i) {
        if (work.cancelled && work.cancelled()) throw Cancelled();
        const cases::Case c = work.caseAt(i);
        ReproBundleEntry e{reproFolderName(c.path), c.path, c.op, ""};
        for (int n = 2; !names.insert(e.folder).second; ++n)
            e.folder = reproFolderName(c.path) + "-" + std::to_string(n);
        try {
            e.op = exportRepro(c, (partial.path / e.folder).string(), "case " + c.path + " of " + originFile).op;
        } catch (const StatusError& x) {
            e.skipped = std::string("the emulation rejects the call: ") + x.what();
        } catch (const UsageError& x) {
            e.skipped = x.what();
        } catch (const ContentError& x) {
            e.skipped = x.what();
        }
        if (!e.skipped.empty()) e.folder.clear();
        entries.push_back(std::move(e));
        if (work.progress) work.progress(i + 1, work.count);
    }
    if (std::none_of(entries.begin(), entries.end(), [](const ReproBundleEntry& e) { return e.skipped.empty(); }))
        throw UsageError(
            "none of the " + std::to_string(entries.size()) + " cases could be exported" +
            (entries.empty() ? std::string() : ": " + entries.front().casePath + ": " + entries.front().skipped));
    writeText(partial.path / "README.md", bundleReadme(entries, originFile, currentProduct()));
    writeText(partial.path / "run_all.sh", kRunAll);
    fs::permissions(partial.path / "run_all.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
    moveIntoPlace(partial, destination, folder);
    return entries;
}

std::vector<std::string> reproFoldersOf(const std::string& folder) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(folder) / kReproCase, ec)) return {folder};
    std::vector<std::string> found;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && fs::is_regular_file(it->path() / kReproCase, ec))
            found.push_back(it->path().string());
    std::sort(found.begin(), found.end());
    return found;
}

void attachReproOutputs(cases::Case& c, const std::string& folder) {
    const std::unique_ptr<PreparedCall> call = prepared(c, false);
    cases::OutputSource npu;
    npu.name = import::msprobe::kDeviceSource;
    npu.role = cases::SourceRole::Actual;
    npu.description = "the outputs the reproducer wrote (" + std::string(kReproProgram) + ", " + kReproOutputs + "/)";
    for (const auto& [name, want] : call->outputs()) {
        const std::string path = (fs::path(folder) / kReproOutputs / (name + ".npy")).string();
        std::error_code ec;
        if (!fs::exists(path, ec))
            throw ContentError("'" + path + "' is missing: build and run the reproducer first (README.md); it writes " +
                               "every output the call selects");
        HostTensor got = import::readTensorFile(path);
        const HostTensor stored = asStored(want);
        if (got.dtype() != stored.dtype() || got.shape() != stored.shape())
            throw ContentError("'" + path + "' holds " + dtypeName(got.dtype()) + shapeToString(got.shape()) +
                               "; output '" + name + "' of this call is " + dtypeName(stored.dtype()) +
                               shapeToString(stored.shape()));
        if (want.dtype() == DType::BFloat16) {
            HostTensor b(DType::BFloat16, want.shape());
            copyConvert(got.view(), b.view());
            if (std::memcmp(asStored(b).data(), got.data(), got.nbytes()) != 0)
                throw ContentError("'" + path + "' holds values that are not bfloat16: output '" + name +
                                   "' is bfloat16, stored as float32");
            got = b;
        }
        npu.tensors.emplace_back(name, std::move(got));
    }
    c.sources.erase(std::remove_if(c.sources.begin(), c.sources.end(),
                                   [&](const cases::OutputSource& s) { return s.name == npu.name; }),
                    c.sources.end());
    c.sources.push_back(std::move(npu));
}

}  // namespace opscope::ops
