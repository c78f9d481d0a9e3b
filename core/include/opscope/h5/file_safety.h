// What OpScope accepts from an HDF5 file it did not write, in one place (docs/FILE_SAFETY.md):
// a file may not make a reader open other files (external raw storage, virtual datasets,
// external links) unless that was allowed, and a file's declared sizes and tree are bounded
// before anything is allocated or walked. Every reader (cases, traces, --bind, compare, the
// GUI) goes through h5::File, tensor_io and the tables, which apply these rules.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

#include "opscope/h5/h5_handle.h"

namespace opscope::h5 {

class File;

// A file points outside itself and reading through that pointer was not allowed.
class ExternalDataError : public ContentError {
public:
    using ContentError::ContentError;
};

// Process-wide: opscope-cli --allow-external. Off by default.
void allowExternalData(bool allowed);
// For one file (the GUI, after the user confirmed): files opened from this path afterwards
// may read what they point at.
void allowExternalDataIn(const std::string& path);
// Whether a file opened from `path` now may read outside itself.
bool externalDataAllowed(const std::string& path);
// Thrown where a read would leave the file: "<object> is <kind> -> <target>, outside the file; ...".
[[noreturn]] void refuseExternal(const std::string& object, const std::string& kind, const std::string& target);

// HDF5 loads filter plugins named by the file from HDF5_PLUGIN_PATH: code chosen by a file
// must not run. Called once before the first file is opened.
void disablePluginLoading();

// Runs a reader of the file at `path`: running out of memory there (a declared size that got
// past the checks above) is a sentence about the file, never an internal error.
template <class Fn>
auto readingFile(const std::string& path, Fn&& fn) -> decltype(fn()) {
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        throw ContentError("cannot read '" + path + "': it declares more data than fits in memory, so it is damaged");
    } catch (const std::length_error&) {
        throw ContentError("cannot read '" + path + "': it declares more data than fits in memory, so it is damaged");
    }
}

// ---- limits --------------------------------------------------------------------------------

// Groups deeper than this are refused by every tree walk (listing, case discovery).
inline constexpr int kMaxTreeDepth = 64;
// Objects visited by one tree walk before the file is refused.
inline constexpr int64_t kMaxTreeNodes = 250000;
// Elements of one tensor read from a file (16 GiB of float32), besides the machine's memory.
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 32;
// Deflate never packs more than 1032 bytes into one; a dataset whose filters are all
// deflate/shuffle/fletcher32 declaring more than this times what it stores is refused.
inline constexpr uint64_t kMaxDeflateRatio = 1100;
// A table may declare at most this many rows beyond what it stores (the tail of an append cut
// off by a kill); the rows past its storage are then ignored. More is a damaged file.
inline constexpr int64_t kMaxUnstoredRows = 65536;

// Counts the objects of one tree walk; throws a sentence naming the file beyond the limits.
class WalkBudget {
public:
    explicit WalkBudget(const File& file) : file_(file) {}
    // `depth` is 1 for the children of the walk's root.
    void visit(const std::string& path, int depth);

private:
    const File& file_;
    int64_t nodes_ = 0;
};

// An upper bound on the bytes the dataset can yield from what it really stores: its storage
// size, times kMaxDeflateRatio when deflate compresses it; no bound (UINT64_MAX) for other
// filters, virtual datasets and external storage. `dataset` is an open dataset identifier.
uint64_t storedBytesBound(Id dataset, const std::string& what);

// "f.h5:/g": where the external link `name` in the group `location` points.
std::string externalLinkTarget(Id location, const std::string& name, const std::string& what);

// "external storage -> /etc/passwd", "virtual dataset -> other.h5:/x", or "" when the dataset's
// data is in its own file.
std::string outsideReference(Id dataset, const std::string& what);
// refuseExternal() for a dataset `where` ("dataset '/x' in 'f.h5'") with that outsideReference().
[[noreturn]] void refuseOutsideData(const std::string& where, const std::string& outside);

}  // namespace opscope::h5
