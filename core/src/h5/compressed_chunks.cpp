// Chunking, byte shuffle and gzip done the way HDF5's filter pipeline does them (H5Zshuffle.c,
// H5Zdeflate.c), so that the chunks written directly read back through HDF5's own filters.
#include "opscope/h5/compressed_chunks.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "opscope/error.h"

namespace opscope::h5 {

std::vector<ChunkDim> chunkShapeFor(std::vector<ChunkDim> chunk, std::size_t elementSize) {
    constexpr uint64_t kTargetBytes = 1u << 20;  // big enough for gzip, small enough to read a slice
    auto bytes = [&] {
        uint64_t b = elementSize;
        for (ChunkDim c : chunk) b *= c;
        return b;
    };
    while (bytes() > kTargetBytes) {
        auto largest = std::max_element(chunk.begin(), chunk.end());
        *largest = (*largest + 1) / 2;
    }
    return chunk;
}

std::vector<ChunkDim> CompressedChunks::chunkOffset(std::size_t i) const {
    std::vector<ChunkDim> offset(shape.size());
    for (std::size_t axis = shape.size(); axis-- > 0;) {
        const ChunkDim along = (shape[axis] + chunkShape[axis] - 1) / chunkShape[axis];
        offset[axis] = (i % along) * chunkShape[axis];
        i /= along;
    }
    return offset;
}

namespace {

// Copies the chunk at `offset` out of the row-major tensor into a full chunk buffer (zeros where
// the chunk reaches past the tensor's edge, as HDF5 fills an edge chunk).
void gatherChunk(const uint8_t* tensor, const CompressedChunks& c, const std::vector<ChunkDim>& offset,
                 std::size_t elementSize, std::vector<uint8_t>& chunk) {
    const std::size_t rank = c.shape.size();
    std::fill(chunk.begin(), chunk.end(), 0);
    // Rows along the last axis are contiguous in both; walk the other axes with a counter.
    const ChunkDim rowElements = std::min(c.chunkShape[rank - 1], c.shape[rank - 1] - offset[rank - 1]);
    std::vector<ChunkDim> index(rank, 0);  // position inside the chunk, last axis fixed at 0
    while (true) {
        bool inside = true;
        ChunkDim source = 0, target = 0;
        for (std::size_t a = 0; a < rank; ++a) {
            inside = inside && offset[a] + index[a] < c.shape[a];
            source = source * c.shape[a] + offset[a] + index[a];
            target = target * c.chunkShape[a] + index[a];
        }
        if (inside) std::memcpy(&chunk[target * elementSize], tensor + source * elementSize, rowElements * elementSize);
        std::size_t a = rank - 1;  // advance every axis but the last
        while (a-- > 0) {
            if (++index[a] < c.chunkShape[a]) break;
            index[a] = 0;
        }
        if (a == static_cast<std::size_t>(-1)) return;
    }
}

// HDF5's shuffle: byte j of every element together, for j = 0 .. elementSize-1.
void shuffleBytes(const std::vector<uint8_t>& in, std::size_t elementSize, std::vector<uint8_t>& out) {
    const std::size_t n = in.size() / elementSize;
    for (std::size_t j = 0; j < elementSize; ++j) {
        uint8_t* to = out.data() + j * n;
        const uint8_t* from = in.data() + j;
        for (std::size_t i = 0; i < n; ++i) to[i] = from[i * elementSize];
    }
}

std::vector<uint8_t> gzip(const std::vector<uint8_t>& in) {
    uLongf size = compressBound(static_cast<uLong>(in.size()));
    std::vector<uint8_t> out(size);
    if (compress2(out.data(), &size, in.data(), static_cast<uLong>(in.size()), kGzipLevel) != Z_OK)
        throw std::bad_alloc();  // compress2 fails only for memory: the buffer is compressBound's
    out.resize(size);
    out.shrink_to_fit();
    return out;
}

}  // namespace

CompressedChunks compressChunks(const HostTensor& tensor) {
    if (tensor.rank() == 0 || tensor.numel() == 0)
        throw UsageError("compressChunks: a scalar or empty tensor has no chunks");
    const std::size_t elementSize = dtypeSize(tensor.dtype());
    CompressedChunks c;
    c.shape.assign(tensor.shape().begin(), tensor.shape().end());
    c.chunkShape = chunkShapeFor(c.shape, elementSize);
    ChunkDim count = 1, chunkElements = 1;
    for (std::size_t a = 0; a < c.shape.size(); ++a) {
        count *= (c.shape[a] + c.chunkShape[a] - 1) / c.chunkShape[a];
        chunkElements *= c.chunkShape[a];
    }
    std::vector<uint8_t> chunk(chunkElements * elementSize), shuffled(chunk.size());
    const auto* bytes = static_cast<const uint8_t*>(tensor.data());
    c.chunks.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        gatherChunk(bytes, c, c.chunkOffset(i), elementSize, chunk);
        if (elementSize > 1) shuffleBytes(chunk, elementSize, shuffled);
        c.chunks.push_back(gzip(elementSize > 1 ? shuffled : chunk));
    }
    return c;
}

}  // namespace opscope::h5
