// Two sets of named tensors compared key by key, once, for `opscope-cli compare A B` and the
// debugger's group compare: two checkpoints (tensor files of several tensors, or HDF5 groups
// whose every numeric dataset is a member) or two folders of tensor files (an NPU run's dump
// against a GPU run's), two tensors in memory at a time, and a tensor larger than a band
// compared a band of each side at a time (compareTensors).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/metrics.h"
#include "opscope/ops/evaluation.h"
#include "opscope/row_major_blocks.h"

namespace opscope::ops {

// One tensor known by its dtype and shape (from metadata) and read whole or a block at a time
// (start and count per axis, the tensor's rank kept). The reads throw FileError naming it.
struct TensorHandle {
    DType dtype = DType::Undefined;
    std::vector<int64_t> shape;
    std::function<HostTensor()> read;
    std::function<HostTensor(const std::vector<int64_t>& start, const std::vector<int64_t>& count)> readBlock;
};
// A tensor already in memory as a handle (its blocks cut from it).
TensorHandle heldTensor(HostTensor tensor);

// Named tensors opened one at a time. `open` throws FileError naming the set and the key.
struct TensorSet {
    std::string name;               // as the user wrote it ("a.pt", "ckpt.h5:/model")
    std::vector<std::string> keys;  // in the set's own order
    std::function<TensorHandle(const std::string& key)> open;
};

// How big a band of a streamed comparison is, each side.
inline constexpr uint64_t kCompareBandBytes = kStreamBandBytes;

// How a pass over a pair reads it: both whole when each holds at most bandBytes, else a band of
// each at a time in row-major order (rowMajorBlocks over actual's shape), so that two 10 GiB
// tensors pass through two bands of memory. Differently shaped sides (a flat golden against a
// dump) are read by their own bands and cut where either side's band ends, so `visit` gets
// the same count of each, as blocks or rank-1 runs, in row-major order. `visit` also gets the
// share of the elements passed so far. False when `cancelled` turned true between bands.
// UsageError when the element counts differ (nothing is read); read errors (FileError) propagate.
using BandVisitor = std::function<void(const HostTensor& actual, const HostTensor& reference, double done)>;
bool forEachBandPair(const TensorHandle& actual, const TensorHandle& reference, uint64_t bandBytes,
                     const std::atomic<bool>* cancelled, const BandVisitor& visit);

// `actual` against `reference` as compareOutput compares them, to the same bits, read by
// forEachBandPair. Nothing when cancelled between bands.
std::optional<Comparison> compareTensors(const std::string& output, const std::string& actualName,
                                         const TensorHandle& actual, const std::string& referenceName,
                                         const TensorHandle& reference, DType outputDtype,
                                         const metrics::Standard& standard, uint64_t bandBytes = kCompareBandBytes,
                                         const std::atomic<bool>* cancelled = nullptr);

// A tensor file (import::TensorFile) as a set, opened once for all its reads (a key's blocks read
// by TensorFile::readBlock). Throws FormatError.
TensorSet tensorFileSet(const std::string& file);

// Every numeric dataset below `group` of an HDF5 file, keyed by its path under the group. The
// file is vetted once for all of them (h5::vetFile with the group's path: the child reads every
// dataset below it) before libhdf5 opens it here. A member that points outside the file
// (external link, external storage, virtual dataset) is refused as `run` refuses it
// (h5::refuseExternal) unless external data is allowed for the file. `name` is the set's name in
// messages. Throws FileError (no such group, a dataset, a damaged file).
TensorSet hdf5GroupSet(const std::string& file, const std::string& group, const std::string& name);

// The tensor files in a folder and below it (.pt, .npy, .safetensors, ...: an msprobe dump's
// dump_tensor_data, a folder of exported tensors), each a member keyed by its path under the
// folder ("Functional.conv2d.0.backward.output.0.pt"), in name order; a member is opened when
// its key is, and read whole or by blocks as any tensor file.
// Symbolic links are not followed. Throws ContentError when `dir` is not a folder.
TensorSet tensorFolderSet(const std::string& dir);

// The keys in the order compared: the actual's, then the reference's others.
std::vector<std::string> comparedKeys(const TensorSet& actual, const TensorSet& reference);

struct SetCompareControl {
    // After each key.
    std::function<void(const Comparison&, std::size_t done, std::size_t total)> compared;
    // Asked before each key, and between the bands of a key compared in bands.
    const std::atomic<bool>* cancelled = nullptr;
    // A key a set could not read (a damaged member, a file that is no tensor file), with the
    // sentence; its comparison is not compared, and the other keys go on.
    std::function<void(const std::string& key, const std::string& error)> unreadable;
};

// Compares the sets key by key in comparedKeys' order, each pair in the actual's dtype, by
// compareTensors (a key over bandBytes in bands). A key one set lacks, or cannot read, is
// notCompared (never a pass). Stops early, with the comparisons made so far, when cancelled.
std::vector<Comparison> compareTensorSets(const TensorSet& actual, const TensorSet& reference,
                                          const metrics::Standard& standard, const SetCompareControl& control = {},
                                          uint64_t bandBytes = kCompareBandBytes);

}  // namespace opscope::ops
