// Tensors as HDF5 datasets, in the layouts h5py and numpy use (see datasets/FORMAT.md,
// "Tensors in HDF5"), and a lazy look at a file's tree that never reads data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opscope/dtype.h"
#include "opscope/h5/compressed_chunks.h"
#include "opscope/h5/h5_file.h"
#include "opscope/host_tensor.h"

namespace opscope::h5 {

// Marks a uint16 dataset as raw bfloat16 bits: opscope_dtype = "bfloat16".
inline constexpr const char* kDTypeAttribute = "opscope_dtype";

// The most data a compact dataset holds (in its object header; HDF5's limit is 64 KiB).
inline constexpr std::size_t kCompactMaxBytes = 16 * 1024;

struct WriteOptions {
    bool compress = false;   // chunks of about 1 MiB (chunkShapeFor), byte shuffle, gzip kGzipLevel
    bool overwrite = false;  // replace an existing dataset (never a group)
    // Without compression and up to kCompactMaxBytes: the data in the dataset's object header
    // (H5D_COMPACT), written with it, instead of a block of its own. Any reader reads it alike.
    bool compact = false;
    // With compress: this tensor's chunks, already compressed (compressChunks, on another thread);
    // written as they are instead of compressing here.
    const CompressedChunks* precompressed = nullptr;
};

struct DatasetInfo {
    std::vector<int64_t> shape;      // empty for a scalar
    bool nullSpace = false;          // a dataset with no dataspace holds no values at all
    DType dtype = DType::Undefined;  // Undefined when the data is not a numeric tensor
    std::string typeName;            // "float32", "bfloat16", "bool", "string", "compound", ...
    bool chunked = false;
    std::vector<int64_t> chunkShape;   // when chunked
    std::vector<std::string> filters;  // in pipeline order: "shuffle", "gzip", "lzf", ...
    bool compressed = false;           // a filter other than shuffle/fletcher32 is applied
    uint64_t storageBytes = 0;         // bytes allocated in the file (0 if never written)
    std::string outside;               // "external storage -> /etc/passwd", "virtual dataset -> f.h5:/x"

    int64_t numel() const;  // 0 for a null dataspace
};

struct NodeInfo {
    std::string path;  // "/a/b"
    std::string name;  // "b"
    int depth = 0;     // 1 for the children of the listed root
    ObjectKind kind = ObjectKind::Missing;
    int64_t attributeCount = 0;
    DatasetInfo dataset;         // filled for datasets only
    std::string externalTarget;  // an external link's "f.h5:/g" (listed, never followed)

    // "external storage -> /etc/passwd", "virtual dataset -> f.h5:/x", "external link -> f.h5:/g",
    // or "" when the node is inside its file.
    std::string outside() const;
};

// Reads any numeric dataset (float16/32/64, bfloat16 by the opscope_dtype convention, every
// integer width, h5py bool; contiguous or chunked, compressed or not) into a new tensor.
// A scalar dataset becomes a rank-0 tensor. Throws FileError with one sentence otherwise.
HostTensor readTensor(const File& file, const std::string& datasetPath);
// Only the block [start, start + count) of the dataset (an HDF5 hyperslab): one slice of a
// checkpoint's [32768, 4096] embedding, or a band of its rows, without reading the rest. The
// block must lie inside the dataset's shape (one entry per axis); UsageError otherwise.
HostTensor readTensorBlock(const File& file, const std::string& datasetPath, const std::vector<int64_t>& start,
                           const std::vector<int64_t>& count);

// Writes the tensor with its dtype, creating parent groups. Rank 0 becomes a scalar dataset.
void writeTensor(File& file, const std::string& datasetPath, const HostTensor& tensor,
                 const WriteOptions& options = {});

// Shape, type and storage of a dataset, from metadata only.
DatasetInfo datasetInfo(const File& file, const std::string& datasetPath);

// Every object under root (not root itself), depth first in name order, with DatasetInfo for
// datasets; maxDepth < 0 means no limit. Reads no data, so a file of any size lists quickly.
std::vector<NodeInfo> listTree(const File& file, const std::string& root = "/", int maxDepth = -1);
// The nodes of the whole file that point outside it (NodeInfo::outside()), found by the same
// walk with only that looked up: what a file would read elsewhere, without reading it.
std::vector<NodeInfo> listOutside(const File& file);

}  // namespace opscope::h5
