// Reading one dataset of any HDF5 file for the debugger, off the GUI thread: vetted first in a
// child process (h5/vetting.h), then read. What the tree's "View", "Compare with" and binding
// a dataset to an argument all go through.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/view/slice.h"

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

// A dataset as the dataset view holds it: all of it, or only the block of the slice on screen.
struct DatasetForView {
    HostTensor tensor;
    std::vector<int64_t> shape;  // the dataset's
    SliceBlock block;            // empty start: `tensor` is the whole dataset
    bool sliceOnly() const { return !block.start.empty(); }
};
// Reads (vetted, as readDatasetVetted; a block vets only itself) the whole dataset, or when it has rank >= 3 and more
// than sliceOnlyAboveBytes bytes only the block of `slice` (normalized for its shape; the
// default slice when the rank differs, as SliceControls::setShape does). Throws as above.
DatasetForView readDatasetForView(const std::string& file, const std::string& path, const view::SliceSpec& slice,
                                  uint64_t sliceOnlyAboveBytes);

}  // namespace opscope::gui
