#include "opscope/row_major_blocks.h"

#include <algorithm>

namespace opscope {

std::vector<TensorBlock> rowMajorBlocks(const std::vector<int64_t>& shape, std::size_t elementSize, uint64_t maxBytes) {
    const std::size_t rank = shape.size();
    for (int64_t n : shape)
        if (n <= 0) return {};
    const int64_t maxElements =
        std::max<int64_t>(1, static_cast<int64_t>(maxBytes / std::max<std::size_t>(1, elementSize)));
    // The first axis k whose inner elements (axes k..rank-1) fit in a block; 0: all of it does.
    std::size_t k = rank;
    int64_t inner = 1;
    while (k > 0 && inner <= maxElements / shape[k - 1]) inner *= shape[--k];
    if (k == 0) return {TensorBlock{std::vector<int64_t>(rank, 0), shape}};
    const std::size_t split = k - 1;  // several of its indices a block, every axis after it whole
    const int64_t step = std::max<int64_t>(1, maxElements / inner);
    std::vector<TensorBlock> blocks;
    std::vector<int64_t> index(rank, 0);  // on the axes before `split`, and `split` itself
    while (true) {
        TensorBlock b{index, shape};
        for (std::size_t a = 0; a < split; ++a) b.count[a] = 1;
        b.count[split] = std::min(step, shape[split] - index[split]);
        blocks.push_back(b);
        index[split] += b.count[split];
        std::size_t a = split;
        while (index[a] == shape[a]) {  // carry into the axes outside
            if (a == 0) return blocks;
            index[a] = 0;
            ++index[--a];
        }
    }
}

}  // namespace opscope
