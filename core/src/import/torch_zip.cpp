// torch.save's zip layout (torch_archive.h): <prefix>/data.pkl, <prefix>/data/<key> a storage,
// little-endian unless <prefix>/byteorder says "big".
#include <cstring>

#include "opscope/checked_math.h"
#include "opscope/import/format_error.h"
#include "opscope/import/zip_archive.h"
#include "torch_archive.h"

namespace opscope::import::detail {
namespace {

class TorchZip final : public TorchArchive {
public:
    explicit TorchZip(const std::string& path) : path_(path), zip_(path) {
        for (const ZipArchive::Entry& e : zip_.entries()) {
            const std::size_t slash = e.name.find('/');
            if (slash != std::string::npos && e.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
                if (!prefix_.empty()) failTorchFile(path_, "it holds more than one data.pkl");
                prefix_ = e.name.substr(0, slash);
            }
        }
        if (prefix_.empty()) failTorchFile(path_, "it is a zip archive without <name>/data.pkl");
        if (const ZipArchive::Entry* order = zip_.find(prefix_ + "/byteorder")) {
            const std::string text = zip_.read(*order);
            if (text != "little" && text != "big") failTorchFile(path_, "its byteorder is '" + text + "'");
            bigEndian_ = text == "big";
        }
    }

    PyRef load(const PickleHooks& hooks, const TorchStorages&, PickleArena& arena) override {
        return loadPickle(zip_.read(*zip_.find(prefix_ + "/data.pkl")), path_, hooks, arena);
    }
    bool legacy() const override { return false; }
    bool bigEndian() const override { return bigEndian_; }

    void check(const TorchStorage& s) const override { entryOf(s); }

    void read(const TorchStorage& s, uint64_t begin, uint64_t length, void* out) const override {
        const ZipArchive::Entry& e = entryOf(s);
        // torch.save stores its entries uncompressed; a deflated one (an archive rewritten by
        // another zip tool) is inflated whole.
        if (e.method == 0)
            zip_.readStoredRange(e, begin, length, out);
        else
            std::memcpy(out, zip_.read(e).data() + begin, static_cast<std::size_t>(length));
    }

private:
    // The storage's entry, checked to hold exactly its elements.
    const ZipArchive::Entry& entryOf(const TorchStorage& s) const {
        const std::string name = prefix_ + "/data/" + s.key;
        const ZipArchive::Entry* e = zip_.find(name);
        if (!e) failTorchFile(path_, "storage '" + s.key + "' has no entry " + name);
        uint64_t need = 0;
        if (!checkedMul(static_cast<uint64_t>(s.numel), static_cast<uint64_t>(dtypeSize(s.dtype)), &need) ||
            e->size != need)
            throw FormatError("'" + path_ + "' is damaged: storage '" + s.key + "' should hold " +
                              std::to_string(need) + " bytes (" + std::to_string(s.numel) + " " + dtypeName(s.dtype) +
                              ") but its entry has " + std::to_string(e->size));
        return *e;
    }

    std::string path_;
    ZipArchive zip_;
    std::string prefix_;
    bool bigEndian_ = false;
};

}  // namespace

void failTorchFile(const std::string& path, const std::string& why) {
    throw FormatError("'" + path + "' is not a tensor file torch.save wrote: " + why);
}

std::unique_ptr<TorchArchive> openTorchZip(const std::string& path) { return std::make_unique<TorchZip>(path); }

}  // namespace opscope::import::detail
