// The two layouts torch.save writes (private to import/): where a file keeps the pickle of the
// saved object and the bytes of the storages its tensors view. PtLoader (torch_pt.cpp) gives the
// pickle its meaning; an archive only finds and checks bytes.
//  - zip (PyTorch 1.6 and later): <prefix>/data.pkl and one entry <prefix>/data/<key> a storage;
//  - legacy (_use_new_zipfile_serialization=False, and every file before 1.6): five pickles in a
//    row (magic number, protocol 1001, sys_info, the object, the sorted storage keys), then each
//    storage as its element count (int64, little-endian) and its bytes, in the keys' order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "opscope/dtype.h"
#include "pickle_reader.h"

namespace opscope::import::detail {

struct TorchStorage {
    DType dtype = DType::Undefined;
    std::string key;
    int64_t numel = 0;
};
using TorchStorages = std::map<std::string, std::shared_ptr<TorchStorage>>;

class TorchArchive {
public:
    virtual ~TorchArchive() = default;
    // Reads the object's pickle through `hooks`, whose persistent loads fill `storages`; the
    // legacy layout then finds each storage's bytes by the storages the pickle named.
    virtual PyRef load(const PickleHooks& hooks, const TorchStorages& storages, PickleArena& arena) = 0;
    // The legacy layout's persistent ids carry a sixth item (a storage view, None since 1.0).
    virtual bool legacy() const = 0;
    // Throws FormatError unless the file holds exactly the storage's elements (a damaged storage
    // fails only the tensors that use it).
    virtual void check(const TorchStorage& s) const = 0;
    // `length` bytes from byte `begin` of a storage into `out`, in the file's byte order; throws
    // as check() does for a storage the file does not hold.
    virtual void read(const TorchStorage& s, uint64_t begin, uint64_t length, void* out) const = 0;
    virtual bool bigEndian() const = 0;
};

std::unique_ptr<TorchArchive> openTorchZip(const std::string& path);
// True when the file starts with the legacy layout's magic-number pickle.
bool looksLikeTorchLegacy(const std::string& path);
std::unique_ptr<TorchArchive> openTorchLegacy(const std::string& path);

// "'path' is not a tensor file torch.save wrote: why", the readers' one sentence for a file
// torch.save could not have written.
[[noreturn]] void failTorchFile(const std::string& path, const std::string& why);

}  // namespace opscope::import::detail
