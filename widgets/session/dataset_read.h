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

}  // namespace opscope::gui
