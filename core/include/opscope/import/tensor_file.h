// One tensor from a numpy, PyTorch or safetensors file, named as on the command line:
//   FILE.npy        FILE.npz:KEY        FILE.pt        FILE.pt:KEY (a dict or list of tensors)
//   FILE.safetensors:KEY (a Hugging Face checkpoint; the key may be left out for a file of one)
//   FILE.safetensors.index.json:KEY (a sharded one: the tensor is read from the shard it names)
//   FILE.pth, FILE.bin (torch.save under other names: pytorch_model.bin), with :KEY as for .pt
// What the CLI's --bind and the msprobe importer share.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/import/tensor_entry.h"

namespace opscope::import {

namespace detail {
class TensorSource;
}

// A tensor file opened once: its directory (an .npz's or a .pt's zip directory and pickle, a
// .safetensors header, a shard index) read and checked on opening, each tensor read from the
// file when asked for and not kept. What reading many keys of one checkpoint needs: a read costs
// that tensor, not the file's directory again (a .pt of 5,000 tensors: 2 minutes to compare with
// itself key by key when every read parsed the pickle). Reads from several threads take turns.
class TensorFile {
public:
    // `file` is a tensor file spec's file (a ":KEY" in it is ignored). Throws FormatError as
    // readTensorFile does: missing, not a regular file, malformed.
    explicit TensorFile(const std::string& file);
    ~TensorFile();
    TensorFile(const TensorFile&) = delete;
    TensorFile& operator=(const TensorFile&) = delete;

    const std::string& path() const { return path_; }
    // As tensorFileKeys and describeTensorFile below.
    std::vector<std::string> keys() const;
    std::vector<TensorEntry> describe() const;
    // The tensor of `key`; "" reads the file's one tensor (an error listing the keys when it holds
    // several). Throws FormatError naming the file.
    HostTensor read(const std::string& key) const;
    // The dtype and shape of `key` ("" as for read) from the file's directory or the tensor's
    // header; its data is not read (but an .npz member numpy deflated is inflated to find them).
    TensorEntry entry(const std::string& key) const;
    // The block [start, start + count) of `key` as a row-major tensor of shape `count` (the
    // tensor's rank kept), reading only the bytes the block covers where the file stores the
    // tensor uncompressed (.npy in either order, .safetensors, a .pt's storage even through a
    // view, an .npz member numpy stored); an .npz member numpy deflated is inflated once and kept
    // until another one is (the bands of one view inflate it once). What the debugger's view of a
    // big tensor reads. Throws FormatError as read() does, and std::invalid_argument when the
    // block does not lie in the tensor.
    HostTensor readBlock(const std::string& key, const std::vector<int64_t>& start,
                         const std::vector<int64_t>& count) const;

private:
    std::string path_;
    std::unique_ptr<detail::TensorSource> source_;
    mutable std::mutex mutex_;  // a source reads through one open file
};

// True when the text names a .npy, .npz, .pt or .safetensors file (with or without ":KEY").
bool isTensorFileSpec(const std::string& text);
// The file a spec names ("d.npz" of "d.npz:x"); "" when it names no tensor file.
std::string tensorFilePath(const std::string& spec);
// Throws FormatError naming the file (missing, unreadable, malformed, or no such key). An .npz or a
// .safetensors of one tensor needs no key.
HostTensor readTensorFile(const std::string& spec);
// The keys a file offers for FILE:KEY (an .npz's arrays, a .pt dict's or list's tensors, a
// .safetensors' tensors), in file order; none for an .npy or a .pt of one bare tensor. Reads no
// tensor data. Throws FormatError as readTensorFile does.
std::vector<std::string> tensorFileKeys(const std::string& file);
// Every tensor the file holds (key, dtype, shape) from its headers or pickle: no tensor data is
// decoded (an .npz's members are read). Throws FormatError as readTensorFile does.
std::vector<TensorEntry> describeTensorFile(const std::string& file);

}  // namespace opscope::import
