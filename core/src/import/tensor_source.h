// One opened tensor file of a given format, behind TensorFile (tensor_file.h): its directory
// (zip central directory, torch.save pickle, safetensors header, shard index) read and checked
// once when it is opened, each tensor read from the file when it is asked for. Not thread-safe:
// TensorFile serialises the reads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/import/tensor_entry.h"

namespace opscope::import::detail {

// Where one tensor's elements lie, for reading a block of it and not the rest: element
// [i0, i1, ...] of the tensor is element offset + i0 * strides[0] + ... of what readElements reads.
struct TensorLayout {
    TensorEntry entry;             // its key ("" for a file's one tensor), dtype and shape
    std::vector<int64_t> strides;  // in elements, one per axis
    int64_t offset = 0;
    // Reads `count` elements from element `first` into `out`, in this machine's byte order and
    // checked as read() checks them (from the file, or from a deflated .npz member inflated once).
    std::function<void(int64_t first, int64_t count, void* out)> readElements;
};

class TensorSource {
public:
    virtual ~TensorSource() = default;
    // FILE:KEY's keys in file order; none for a file of one bare tensor. Reads no tensor data.
    virtual std::vector<std::string> keys() const = 0;
    // Each tensor's key, dtype and shape (an .npz reads each member to find them).
    virtual std::vector<TensorEntry> describe() const = 0;
    // The tensor of `key`, or the file's one tensor for ""; FormatError naming the file and the
    // keys it holds when there is no such tensor.
    virtual HostTensor read(const std::string& key) const = 0;
    // Where the tensor of `key` ("" as for read) lies, its data not read; throws as read() does.
    virtual TensorLayout layout(const std::string& key) const = 0;
};

std::unique_ptr<TensorSource> openNpy(const std::string& path);
std::unique_ptr<TensorSource> openNpz(const std::string& path);
std::unique_ptr<TensorSource> openTorchPt(const std::string& path);
std::unique_ptr<TensorSource> openSafetensors(const std::string& path);
std::unique_ptr<TensorSource> openSafetensorsIndex(const std::string& indexPath);

}  // namespace opscope::import::detail
