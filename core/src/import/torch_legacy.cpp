// torch.save's legacy layout (torch_archive.h), as torch/serialization.py's _legacy_save writes
// it and _legacy_load reads it. The pickles are read from the head of the file as far as they
// go; the storages' records are then walked by their 8-byte counts (nothing of their bytes read)
// so that one tensor of a large checkpoint reads only its own storage.
#include <algorithm>
#include <array>
#include <fstream>
#include <unordered_map>

#include "opscope/checked_math.h"
#include "opscope/import/format_error.h"
#include "file_reader.h"
#include "torch_archive.h"

namespace opscope::import::detail {
namespace {

// torch.serialization's MAGIC_NUMBER, 0x1950a86a20f9469cfc6c, as pickle's LONG1 writes it.
constexpr std::array<unsigned char, 12> kMagicLong1 = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                                       0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
constexpr int64_t kProtocolVersion = 1001;
constexpr std::size_t kFirstRead = 64 * 1024, kLaterRead = 1 << 20;

// Where the magic-number pickle that starts `head` ends, or 0 when it is not there: PROTO 2-5,
// a FRAME as protocol 4 writes one, the LONG1, STOP.
std::size_t magicPickleEnd(const std::string& head) {
    std::size_t p = 0;
    auto at = [&](std::size_t i) { return i < head.size() ? static_cast<unsigned char>(head[i]) : -1; };
    if (at(p) != 0x80 || at(p + 1) < 2 || at(p + 1) > 5) return 0;
    p += 2;
    if (at(p) == 0x95) p += 9;
    for (unsigned char b : kMagicLong1)
        if (at(p++) != b) return 0;
    return at(p) == '.' ? p + 1 : 0;
}

PickleHooks plainValuesOnly(const std::string& path) {
    PickleHooks hooks;
    hooks.persistentLoad = [path](const PyRef&) -> PyRef {
        failTorchFile(path, "a storage outside its object's pickle");
    };
    hooks.call = [path](const std::string& global, const PyRef&) -> PyRef {
        failTorchFile(path, "its header calls " + global);
    };
    return hooks;
}

class TorchLegacy final : public TorchArchive {
public:
    explicit TorchLegacy(const std::string& path) : path_(path), file_(path) {
        head_.more = [this](std::string& bytes, std::size_t n) { return readMore(bytes, n); };
        readMore(head_.bytes, kFirstRead);
        head_.pos = magicPickleEnd(head_.bytes);
        if (head_.pos == 0) failTorchFile(path_, "it does not start with torch.save's magic number");
    }

    PyRef load(const PickleHooks& hooks, const TorchStorages& storages, PickleArena& arena) override {
        const PickleHooks plain = plainValuesOnly(path_);
        PickleArena scratch;  // the pickles around the object, read here and dropped
        const PyRef version = loadPickle(head_, path_, plain, scratch);
        if (version->kind != PyValue::Kind::Int || version->i != kProtocolVersion)
            failTorchFile(path_, "its serialization protocol is not " + std::to_string(kProtocolVersion));
        if (loadPickle(head_, path_, plain, scratch)->kind != PyValue::Kind::Dict)
            failTorchFile(path_, "its sys_info is not a dict");
        PyRef root = loadPickle(head_, path_, hooks, arena);
        const PyRef keys = loadPickle(head_, path_, plain, scratch);
        if (keys->kind != PyValue::Kind::List) failTorchFile(path_, "its list of storages is not a list");
        locate(keys->items, storages, head_.pos);
        head_ = PickleInput();  // the pickles' bytes are no longer needed
        return root;
    }
    bool legacy() const override { return true; }
    bool bigEndian() const override { return false; }  // _legacy_save writes little-endian on any machine

    void check(const TorchStorage& s) const override { placeOf(s); }

    void read(const TorchStorage& s, uint64_t begin, uint64_t length, void* out) const override {
        file_.read(placeOf(s).offset + begin, length, out);  // inside the record: checked by locate()
    }

private:
    struct Place {
        uint64_t offset = 0;  // of the storage's first byte
        std::string damage;   // why the storage cannot be read, when it cannot
    };

    // Appends at least `n` more bytes of the file (at least a MiB, fewer at its end).
    bool readMore(std::string& bytes, std::size_t n) {
        const uint64_t at = bytes.size(), size = file_.size();
        if (at >= size) return false;
        const uint64_t count = std::min<uint64_t>(std::max<uint64_t>(n, bytes.empty() ? n : kLaterRead), size - at);
        bytes.resize(static_cast<std::size_t>(at + count));
        file_.read(at, count, bytes.data() + at);
        return true;
    }

    // Walks the storages' records from `offset`, in the order of `keys`: each an element count
    // (checked against the pickle's) and that many elements. A record past the file's end
    // damages it and every storage after it; a wrong count damages that storage only.
    void locate(const std::vector<PyRef>& keys, const TorchStorages& storages, uint64_t offset) {
        std::string cut;  // once the file ends, the rest are damaged by it
        for (const PyRef& k : keys) {
            if (k->kind != PyValue::Kind::String) failTorchFile(path_, "its list of storages holds a non-string");
            const auto s = storages.find(k->s);
            if (s == storages.end())
                failTorchFile(path_, "its list of storages names '" + k->s + "', which its object does not use");
            if (places_.count(k->s)) failTorchFile(path_, "its list of storages names '" + k->s + "' twice");
            Place& place = places_[k->s];
            if (!cut.empty()) {
                place.damage = cut;
                continue;
            }
            place = nextRecord(*s->second, offset, cut);
        }
    }

    Place nextRecord(const TorchStorage& s, uint64_t& offset, std::string& cut) {
        const std::string where = "'" + path_ + "' is damaged: ";
        unsigned char count[8];
        if (!file_.fits(offset, 8)) {
            cut = where + "it ends before the bytes of storage '" + s.key + "'";
            return Place{0, cut};
        }
        file_.read(offset, 8, count);
        uint64_t stored = 0;
        for (int b = 7; b >= 0; --b) stored = (stored << 8) | count[b];
        uint64_t bytes = 0;
        if (!checkedMul(stored, static_cast<uint64_t>(dtypeSize(s.dtype)), &bytes) || !file_.fits(offset + 8, bytes)) {
            cut = where + "it ends inside storage '" + s.key + "' (" + std::to_string(stored) + " " +
                  dtypeName(s.dtype) + " from byte " + std::to_string(offset + 8) + ", the file has " +
                  std::to_string(file_.size()) + " bytes)";
            return Place{0, cut};
        }
        Place place{offset + 8, {}};
        if (stored != static_cast<uint64_t>(s.numel))
            place.damage = where + "storage '" + s.key + "' should hold " + std::to_string(s.numel) + " " +
                           dtypeName(s.dtype) + " but its record holds " + std::to_string(stored);
        offset += 8 + bytes;
        return place;
    }

    const Place& placeOf(const TorchStorage& s) const {
        const auto found = places_.find(s.key);
        if (found == places_.end())
            throw FormatError("'" + path_ + "' is damaged: storage '" + s.key + "' is not in its list of storages");
        if (!found->second.damage.empty()) throw FormatError(found->second.damage);
        return found->second;
    }

    std::string path_;
    FileReader file_;
    PickleInput head_;
    std::unordered_map<std::string, Place> places_;
};

}  // namespace

bool looksLikeTorchLegacy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(32, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return magicPickleEnd(head) != 0;
}

std::unique_ptr<TorchArchive> openTorchLegacy(const std::string& path) { return std::make_unique<TorchLegacy>(path); }

}  // namespace opscope::import::detail
