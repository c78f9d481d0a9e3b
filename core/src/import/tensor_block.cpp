#include "tensor_block.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace opscope::import::detail {
namespace {

constexpr uint64_t kWindowBytes = uint64_t(1) << 20;
// Between two runs, a gap wider than this is skipped (a read each) rather than read through (a
// read costs about what copying a few KiB from the page cache does).
constexpr int64_t kSkipGapBytes = 8 << 10;

// Storage elements read a window at a time: short runs (a row of a few elements, one element of
// a transposed view) cost a copy from memory, not a read each.
class ElementWindow {
public:
    ElementWindow(const TensorLayout& layout, int64_t end)
        : layout_(layout),
          elementSize_(dtypeSize(layout.entry.dtype)),
          end_(end),
          capacity_(std::max<int64_t>(1, static_cast<int64_t>(kWindowBytes / elementSize_))) {}

    // `count` consecutive storage elements from `first`, to `out` at `outStride` elements apart.
    // `farApart`: a wide gap lies before the next run, so a window holds only this run (a
    // column of a big row-major matrix reads its elements, not the rows around them).
    void copy(int64_t first, int64_t count, char* out, int64_t outStride, bool farApart) {
        if (outStride == 1 && count >= capacity_) {  // a long run goes straight to its place
            layout_.readElements(first, count, out);
            return;
        }
        while (count > 0) {
            if (first < windowFirst_ || first >= windowFirst_ + windowCount_)
                fill(first, farApart ? std::min(count, capacity_) : capacity_);
            const int64_t take = std::min(count, windowFirst_ + windowCount_ - first);
            const char* from = window_.data() + static_cast<std::size_t>(first - windowFirst_) * elementSize_;
            if (outStride == 1) {
                std::memcpy(out, from, static_cast<std::size_t>(take) * elementSize_);
            } else {
                for (int64_t i = 0; i < take; ++i)
                    std::memcpy(out + static_cast<std::size_t>(i * outStride) * elementSize_,
                                from + static_cast<std::size_t>(i) * elementSize_, elementSize_);
            }
            first += take;
            count -= take;
            out += static_cast<std::size_t>(take * outStride) * elementSize_;
        }
    }

private:
    void fill(int64_t first, int64_t wanted) {
        windowCount_ = std::min(wanted, end_ - first);
        window_.resize(static_cast<std::size_t>(windowCount_) * elementSize_);
        layout_.readElements(first, windowCount_, window_.data());
        windowFirst_ = first;
    }

    const TensorLayout& layout_;
    std::size_t elementSize_;
    int64_t end_;  // one past the farthest element the tensor reaches
    int64_t capacity_;
    std::vector<char> window_;
    int64_t windowFirst_ = 0, windowCount_ = 0;
};

}  // namespace

void checkBlock(const std::vector<int64_t>& shape, const std::vector<int64_t>& start, const std::vector<int64_t>& count,
                const std::string& what) {
    bool inside = start.size() == shape.size() && count.size() == shape.size();
    for (std::size_t a = 0; inside && a < shape.size(); ++a)
        inside = start[a] >= 0 && count[a] >= 0 && start[a] <= shape[a] && count[a] <= shape[a] - start[a];
    if (!inside)
        throw std::invalid_argument("the block at " + shapeToString(start) + " of " + shapeToString(count) +
                                    " does not lie in " + what + " " + shapeToString(shape));
}

HostTensor readTensorBlock(const TensorLayout& layout, const std::vector<int64_t>& start,
                           const std::vector<int64_t>& count) {
    HostTensor out(layout.entry.dtype, count);
    if (out.numel() == 0) return out;
    const std::vector<int64_t>& shape = layout.entry.shape;
    const std::vector<int64_t>& strides = layout.strides;
    const std::size_t rank = shape.size();
    int64_t end = layout.offset + 1;
    for (std::size_t a = 0; a < rank; ++a) end += (shape[a] - 1) * strides[a];
    ElementWindow window(layout, end);
    char* const base = static_cast<char*>(out.data());
    const std::size_t elementSize = dtypeSize(layout.entry.dtype);
    if (rank == 0) {
        window.copy(layout.offset, 1, base, 1, false);
        return out;
    }
    // Axes in the order the file holds them (the largest stride first); runs along the last.
    std::vector<std::size_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return strides[a] > strides[b]; });
    const std::size_t runAxis = order.back();
    const std::vector<int64_t> outStrides = TensorView::contiguousStrides(count);
    // A run is count[runAxis] elements where the run axis is contiguous, else one element. Where
    // the block takes whole rows that lie one after another in the file and in the block alike
    // (a C-order tensor read whole, a band of whole rows), they are one run: order[inner..] is it.
    const bool contiguousRuns = strides[runAxis] == 1;
    std::size_t inner = rank - 1;
    int64_t runLength = contiguousRuns ? count[runAxis] : 1;
    while (contiguousRuns && outStrides[runAxis] == 1 && inner > 0) {
        const std::size_t within = order[inner], outer = order[inner - 1];
        if (count[within] != shape[within] || strides[outer] != strides[within] * shape[within] ||
            outStrides[outer] != outStrides[within] * count[within])
            break;
        runLength *= count[outer];
        --inner;
    }
    // From one run's start to the next: along the innermost of the other axes the block spans.
    int64_t step = 0;
    for (std::size_t k = inner; k-- > 0 && step == 0;)
        if (count[order[k]] > 1) step = strides[order[k]];
    const int64_t runStep = contiguousRuns ? step : strides[runAxis];
    const bool farApart = (runStep - runLength) * static_cast<int64_t>(elementSize) > kSkipGapBytes;
    std::vector<int64_t> index(rank, 0);  // within the block, on the axes order[0..inner)
    while (true) {
        int64_t element = layout.offset, at = 0;
        for (std::size_t a = 0; a < rank; ++a) {
            element += (start[a] + index[a]) * strides[a];
            at += index[a] * outStrides[a];
        }
        char* to = base + static_cast<std::size_t>(at) * elementSize;
        if (contiguousRuns) {
            window.copy(element, runLength, to, inner < rank - 1 ? 1 : outStrides[runAxis], farApart);
        } else {
            for (int64_t i = 0; i < count[runAxis]; ++i)
                window.copy(element + i * strides[runAxis], 1,
                            to + static_cast<std::size_t>(i * outStrides[runAxis]) * elementSize, 1, farApart);
        }
        // The next index: an odometer over order[0..inner).
        std::size_t k = inner;
        for (; k > 0; --k) {
            const std::size_t axis = order[k - 1];
            if (++index[axis] < count[axis]) break;
            index[axis] = 0;
        }
        if (k == 0) return out;
    }
}

}  // namespace opscope::import::detail
