// A tensor's chunks shuffled and gzipped exactly as writeTensor's compression stores them, made
// without calling HDF5: an import's worker threads compress in parallel while the one thread that
// owns the file only writes the finished chunks (H5Dwrite_chunk). HDF5 is not thread-safe, and
// gzip on that thread was what kept large imports on one core.
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/host_tensor.h"

namespace opscope::h5 {

// A length along one axis, in elements: HDF5's hsize_t, without including hdf5.h.
using ChunkDim = unsigned long long;

// The gzip level of every compressed dataset OpScope writes.
inline constexpr int kGzipLevel = 4;

// The chunk shape writeTensor gives a compressed dataset of this shape: about 1 MiB, halving the
// largest axis until it fits.
std::vector<ChunkDim> chunkShapeFor(std::vector<ChunkDim> dims, std::size_t elementSize);

struct CompressedChunks {
    std::vector<ChunkDim> shape;       // the tensor's
    std::vector<ChunkDim> chunkShape;  // chunkShapeFor(shape)
    // One per chunk, in row-major order of the chunks' offsets: the chunk's elements (edge chunks
    // padded with zeros to the full chunk), byte-shuffled, then zlib-compressed at kGzipLevel.
    std::vector<std::vector<uint8_t>> chunks;
    // The offset (in elements, per axis) of chunk i.
    std::vector<ChunkDim> chunkOffset(std::size_t i) const;
};

// Thread-safe and HDF5-free. The tensor must have rank >= 1 and at least one element.
CompressedChunks compressChunks(const HostTensor& tensor);

}  // namespace opscope::h5
