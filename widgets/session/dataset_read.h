// Reading one dataset of any HDF5 file for the debugger, off the GUI thread: vetted first in a
// child process (h5/vetting.h), then read. What the tree's "View", "Compare with" and binding
// a dataset to an argument all go through.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/ops/tensor_sets.h"
#include "opscope/view/slice.h"
#include "opscope/view/slice_summary.h"

namespace opscope::gui {

// Throws std::runtime_error with one sentence: a damaged file, no such object, or an object
// that is not a dataset ("'/a' in 'x.h5' is a group, not a dataset").
HostTensor readDatasetVetted(const std::string& file, const std::string& path);

// The block of a dataset one 2-D slice lies in: the displayed axes whole, count 1 on every
// other axis at the slice's index. Its tensor keeps the dataset's rank.
struct SliceBlock {
    std::vector<int64_t> start, count;
    bool operator==(const SliceBlock& o) const { return start == o.start && count == o.count; }
};
SliceBlock sliceBlock(const std::vector<int64_t>& shape, const view::SliceSpec& slice);

// How a streamed read goes: bands of at most bandBytes (one row at least), asked between
// bands whether to stop, telling after each band how much of the slice is read (0..1).
struct StreamControl {
    uint64_t bandBytes = uint64_t(16) << 20;
    std::function<bool()> cancelled;
    std::function<void(double)> progress;
};

// A dataset as the dataset view holds it: all of it, only the block of the slice on screen,
// or nothing but the summary of that slice streamed from the file in row bands.
struct DatasetForView {
    HostTensor tensor;
    std::vector<int64_t> shape;  // the dataset's
    DType dtype = DType::Undefined;
    SliceBlock block;  // empty start: `tensor` is the whole dataset (or `streamed` is set)
    std::shared_ptr<const view::SliceSummary> streamed;  // set: no tensor is held
    view::SliceSpec streamedSlice;                       // the slice summarised, normalized
    int64_t bands = 0;                                   // how many were read
    bool sliceOnly() const { return !block.start.empty(); }
};
// Reads (vetted as readDatasetVetted; a block or a band vets only itself) what the view needs
// of a dataset: all of it when it holds at most sliceOnlyAboveBytes bytes (or has rank < 2);
// else, for rank >= 3, only the block of `slice` when that block holds at most that much;
// else (a big rank-2 dataset, a big slice) the slice streamed: its block read in row bands
// (h5::readTensorBlock) into one view::SliceSummarizer pass, so that memory is the pass's
// cells and sample plus one band. `slice` is normalized for the shape (the default slice when
// the rank differs, as SliceControls::setShape does). A cancelled stream returns no summary.
// A tensor file (import::isTensorFileSpec: .pt, .safetensors, .npz, ...) is read whole, `path`
// being its key ("" for a file of one tensor), by OpScope's own readers (no vetting needed).
// Throws as above.
DatasetForView readDatasetForView(const std::string& file, const std::string& path, const view::SliceSpec& slice,
                                  uint64_t sliceOnlyAboveBytes, const StreamControl& control = {});

// One side of a comparison in the dataset view: a dataset (or a tensor file's key), or a tensor
// the view already holds whole (a call's output, or a dataset read whole for viewing).
struct ViewOperand {
    std::string file, path;
    std::shared_ptr<const HostTensor> held;  // set: this tensor; file and path name it
    // The summary of `summarySlice` the view already streamed of it: a pair streaming the same
    // slice reads it again for the error but does not summarize it again.
    std::shared_ptr<const view::SliceSummary> summary;
    view::SliceSpec summarySlice;
};

// Both sides of a comparison as the dataset view holds them, and their relative error (float64,
// metrics::errorMaps), read by readDatasetForView's policy for the pair (judged on the larger of
// the two element sizes): all of both; only the block of the slice of each (rank >= 3); or the
// slice of each streamed in row bands read in step, with a third pass over the relative error of
// each pair of bands, so that two 10 GiB datasets are shown from three summaries and two bands.
// B's maps and the error need B in A's shape: when the shapes differ (the same element count) B
// is read whole and taken in A's shape, or not at all unless A and B are both read whole (`b`
// empty, `bNote` says why).
struct PairForView {
    DatasetForView a, b, error;
    std::string bNote;
};
// outputDtype: what B is rounded to for the relative error (the comparison's judged dtype).
// A cancelled stream returns no summaries. Throws as readDatasetForView.
PairForView readPairForView(const ViewOperand& a, const ViewOperand& b, DType outputDtype, const view::SliceSpec& slice,
                            uint64_t sliceOnlyAboveBytes, const StreamControl& control = {});

// A side for the comparison's pass over every element (ops::forEachBandPair): a held tensor as
// it is; an HDF5 dataset vetted as it is read (whole, or each block alone); a tensor file's key
// read by OpScope's own readers. Throws as readDatasetForView.
ops::TensorHandle openForCompare(const ViewOperand& side);

}  // namespace opscope::gui
