// Hugging Face's .safetensors, read natively: an 8-byte little-endian header length N, N bytes of
// JSON {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
// "__metadata__": {...}}, then the tensors' bytes (little-endian, C order) at those offsets from
// the end of the header. A model's checkpoint is one such file of many tensors: a tensor is read
// from its own byte range only, after the header has been checked against the file's size.
//
// The header is checked as the format's reference reader checks it: at most 100 MB of JSON, every
// tensor a known dtype whose bytes are exactly its shape's, the tensors' ranges one after another
// from byte 0 to the end of the file, with no gap or overlap.
//
// A checkpoint sharded over several files (model-00001-of-00004.safetensors, ...) comes with
// FILE.safetensors.index.json: {"metadata": {...}, "weight_map": {"key": "shard file name"}}. The
// index names every tensor; each is read from its shard, which must be a plain file name beside
// the index (a name with a directory in it is refused: an index never points elsewhere). Keys are
// listed shard by shard, in the order of their data. Throws FormatError naming the index (or the
// shard) for a malformed index, a shard that cannot be read, or a key the shard does not hold.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "file_reader.h"
#include "opscope/checked_math.h"
#include "opscope/file_text.h"
#include "opscope/import/format_error.h"
#include "opscope/text_list.h"
#include "tensor_source.h"

namespace opscope::import {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100u * 1000 * 1000;  // the format's own limit
constexpr std::size_t kMaxRank = 64;

// The format's dtype names and OpScope's; the 8-bit floats and complex types are not held.
constexpr std::pair<const char*, DType> kDtypes[] = {
    {"F64", DType::Float64}, {"F32", DType::Float32}, {"F16", DType::Float16}, {"BF16", DType::BFloat16},
    {"I64", DType::Int64},   {"I32", DType::Int32},   {"I16", DType::Int16},   {"I8", DType::Int8},
    {"U64", DType::UInt64},  {"U32", DType::UInt32},  {"U16", DType::UInt16},  {"U8", DType::UInt8},
    {"BOOL", DType::Bool}};

struct Declared {
    TensorEntry entry;
    uint64_t begin = 0, end = 0;  // from the start of the data
};

struct Layout {
    uint64_t dataStart = 0;         // 8 + the header's length
    std::vector<Declared> tensors;  // by begin
};

[[noreturn]] void fail(const std::string& path, const std::string& why) {
    throw FormatError("'" + path + "' is not a valid .safetensors file: " + why);
}

DType dtypeOf(const std::string& path, const std::string& key, const nlohmann::json& v) {
    if (!v.is_string()) fail(path, "tensor '" + key + "' has no dtype string");
    const std::string name = v.get<std::string>();
    for (const auto& [text, dtype] : kDtypes)
        if (name == text) return dtype;
    throw FormatError("'" + path + "': tensor '" + key + "' holds dtype " + name +
                      ", which is not a tensor dtype OpScope reads (F16/BF16/F32/F64, I8-I64, U8-U64, BOOL)");
}

Declared declaredTensor(const std::string& path, const std::string& key, const nlohmann::json& t) {
    if (!t.is_object()) fail(path, "entry '" + key + "' is not an object");
    Declared d;
    d.entry.key = key;
    d.entry.dtype = dtypeOf(path, key, t.contains("dtype") ? t["dtype"] : nlohmann::json());
    const auto shape = t.find("shape");
    if (shape == t.end() || !shape->is_array() || shape->size() > kMaxRank)
        fail(path, "tensor '" + key + "' has no shape of at most " + std::to_string(kMaxRank) + " sizes");
    uint64_t count = 1;
    for (const nlohmann::json& n : *shape) {
        if (!n.is_number_unsigned() || n.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
            fail(path, "tensor '" + key + "' has a size that is not a whole number");
        d.entry.shape.push_back(n.get<int64_t>());
        if (!checkedMul(count, n.get<uint64_t>(), &count)) fail(path, "the shape of '" + key + "' overflows");
    }
    const auto offsets = t.find("data_offsets");
    if (offsets == t.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
        !(*offsets)[1].is_number_unsigned())
        fail(path, "tensor '" + key + "' has no data_offsets [begin, end]");
    d.begin = (*offsets)[0].get<uint64_t>();
    d.end = (*offsets)[1].get<uint64_t>();
    uint64_t need = 0;
    if (!checkedMul(count, static_cast<uint64_t>(dtypeSize(d.entry.dtype)), &need) || d.end < d.begin ||
        d.end - d.begin != need)
        fail(path, "tensor '" + key + "' spans bytes " + std::to_string(d.begin) + "-" + std::to_string(d.end) +
                       " but its dtype and shape need " + std::to_string(need));
    return d;
}

// The header, parsed and checked against the file's size before any tensor is read.
Layout layoutOf(const detail::FileReader& file) {
    const std::string& path = file.path();
    const uint64_t fileSize = file.size();
    unsigned char prefix[8];
    if (!file.fits(0, 8)) fail(path, "it is shorter than 8 bytes");
    file.read(0, 8, prefix);
    uint64_t headerBytes = 0;
    for (int i = 7; i >= 0; --i) headerBytes = headerBytes << 8 | prefix[i];
    if (headerBytes > kMaxHeaderBytes || headerBytes > fileSize - 8)
        fail(path,
             "its header claims " + std::to_string(headerBytes) + " bytes in a file of " + std::to_string(fileSize));
    const std::string text = file.read(8, headerBytes);
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        fail(path, std::string("its header is not JSON (") + e.what() + ")");
    }
    if (!header.is_object()) fail(path, "its header is not a JSON object");
    Layout layout;
    layout.dataStart = 8 + headerBytes;
    for (const auto& [key, value] : header.items())
        if (key != "__metadata__") layout.tensors.push_back(declaredTensor(path, key, value));
    std::sort(layout.tensors.begin(), layout.tensors.end(), [](const Declared& a, const Declared& b) {
        return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
    });
    uint64_t at = 0;
    for (const Declared& d : layout.tensors) {
        if (d.begin != at)
            fail(path, "tensor '" + d.entry.key + "' begins at byte " + std::to_string(d.begin) + " of the data, not " +
                           std::to_string(at) + " (the tensors' bytes follow one another, no gap, no overlap)");
        at = d.end;
    }
    if (at != fileSize - layout.dataStart)
        fail(path, "its tensors cover " + std::to_string(at) + " bytes of data but the file holds " +
                       std::to_string(fileSize - layout.dataStart) +
                       (at > fileSize - layout.dataStart ? " (truncated?)" : ""));
    return layout;
}

// A .safetensors opened: its header parsed and checked once, each tensor read from its own bytes.
class SafetensorsSource final : public detail::TensorSource {
public:
    explicit SafetensorsSource(std::string path) : path_(std::move(path)), file_(path_) {
        layout_ = layoutOf(file_);
        for (std::size_t i = 0; i < layout_.tensors.size(); ++i) byKey_.emplace(layout_.tensors[i].entry.key, i);
    }

    std::vector<std::string> keys() const override {
        std::vector<std::string> out;
        for (const Declared& d : layout_.tensors) out.push_back(d.entry.key);
        return out;
    }

    std::vector<TensorEntry> describe() const override {
        std::vector<TensorEntry> out;
        for (const Declared& d : layout_.tensors) out.push_back(d.entry);
        return out;
    }

    HostTensor read(const std::string& key) const override {
        const Declared& d = declared(key);
        HostTensor t(d.entry.dtype, d.entry.shape);  // its bytes are in the file: checked on opening
        readElements(d, 0, static_cast<int64_t>(t.numel()), t.data());
        return t;
    }

    detail::TensorLayout layout(const std::string& key) const override {
        const Declared& d = declared(key);
        detail::TensorLayout l{d.entry, TensorView::contiguousStrides(d.entry.shape), 0, {}};
        l.readElements = [this, &d](int64_t first, int64_t count, void* out) { readElements(d, first, count, out); };
        return l;
    }

private:
    // The tensor of `key`, or the file's one tensor for "" (whose own key may be "").
    const Declared& declared(const std::string& key) const {
        if (key.empty() && layout_.tensors.size() != 1)
            throw FormatError("'" + path_ + "' holds " + std::to_string(layout_.tensors.size()) + " tensors (" +
                              joinList(keys()) + "): name one as '" + path_ + ":KEY'");
        const std::string& name = key.empty() ? layout_.tensors.front().entry.key : key;
        const auto found = byKey_.find(name);
        if (found == byKey_.end())
            throw FormatError("'" + path_ + "' has no tensor '" + name + "' (it holds " +
                              (layout_.tensors.empty() ? "none" : joinList(keys())) + ")");
        return layout_.tensors[found->second];
    }

    void readElements(const Declared& d, int64_t first, int64_t count, void* out) const {
        const std::size_t size = dtypeSize(d.entry.dtype);
        // Inside the file: every tensor's range was checked against its size on opening.
        file_.read(layout_.dataStart + d.begin + static_cast<uint64_t>(first) * size,
                   static_cast<uint64_t>(count) * size, out);
        if (d.entry.dtype == DType::Bool)
            for (int64_t i = 0; i < count; ++i)
                if (static_cast<const uint8_t*>(out)[i] > 1)
                    fail(path_, "bool tensor '" + d.entry.key + "' holds " +
                                    std::to_string(static_cast<const uint8_t*>(out)[i]));
    }

    std::string path_;
    detail::FileReader file_;  // open once: a source is read by one thread at a time
    Layout layout_;
    std::unordered_map<std::string, std::size_t> byKey_;
};

constexpr uint64_t kMaxIndexBytes = 64u * 1000 * 1000;  // a weight map of millions of tensors

// The index's weight map (key -> shard path beside the index), in the index's order.
std::vector<std::pair<std::string, std::string>> weightMap(const std::string& indexPath) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(indexPath, ec);
    if (ec) throw FormatError("cannot read '" + indexPath + "'");
    if (size > kMaxIndexBytes)
        throw FormatError("'" + indexPath + "' is " + std::to_string(size) + " bytes: larger than any index of shards");
    const std::optional<std::string> text = readFileText(indexPath);
    if (!text) throw FormatError("cannot read '" + indexPath + "'");
    nlohmann::ordered_json index;
    try {
        index = nlohmann::ordered_json::parse(*text);
    } catch (const nlohmann::json::exception& e) {
        throw FormatError("'" + indexPath + "' is not JSON (" + e.what() + ")");
    }
    const auto map = index.is_object() ? index.find("weight_map") : index.end();
    if (map == index.end() || !map->is_object())
        throw FormatError("'" + indexPath + "' has no \"weight_map\" object: it is not a sharded checkpoint's index");
    const std::filesystem::path dir = std::filesystem::path(indexPath).parent_path();
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [key, shard] : map->items()) {
        const std::string name = shard.is_string() ? shard.get<std::string>() : "";
        if (name.empty() || name == "." || name == ".." || name.find_first_of("/\\") != std::string::npos)
            throw FormatError("'" + indexPath + "' puts tensor '" + key + "' in " + shard.dump() +
                              ", which is not the name of a file beside the index");
        out.emplace_back(key, (dir / name).string());
    }
    return out;
}

// A sharded checkpoint opened: its weight map read once, each shard opened (its header checked)
// when one of its tensors is first asked for, and kept: a shard's header is small.
class SafetensorsIndexSource final : public detail::TensorSource {
public:
    explicit SafetensorsIndexSource(std::string indexPath) : indexPath_(std::move(indexPath)) {
        for (auto& [key, shard] : weightMap(indexPath_)) {
            if (std::find(shards_.begin(), shards_.end(), shard) == shards_.end()) shards_.push_back(shard);
            shardOf_.emplace(std::move(key), std::move(shard));
        }
    }

    std::vector<std::string> keys() const override {
        std::vector<std::string> out;
        for (const TensorEntry& e : describe()) out.push_back(e.key);
        return out;
    }

    // Shard by shard, in the order of their data; a shard's tensor the index maps elsewhere is
    // left out.
    std::vector<TensorEntry> describe() const override {
        std::vector<TensorEntry> out;
        for (const std::string& shard : shards_)
            for (TensorEntry& e : opened(shard).describe()) {
                const auto mapped = shardOf_.find(e.key);
                if (mapped != shardOf_.end() && mapped->second == shard) out.push_back(std::move(e));
            }
        return out;
    }

    HostTensor read(const std::string& key) const override { return shardOf(key).read(key); }
    detail::TensorLayout layout(const std::string& key) const override { return shardOf(key).layout(key); }

private:
    const SafetensorsSource& shardOf(const std::string& key) const {
        if (key.empty())
            throw FormatError("'" + indexPath_ + "' indexes a sharded checkpoint: name a tensor as '" + indexPath_ +
                              ":KEY'");
        const auto found = shardOf_.find(key);
        if (found == shardOf_.end()) throw FormatError("'" + indexPath_ + "' maps no tensor '" + key + "'");
        return opened(found->second);
    }

    const SafetensorsSource& opened(const std::string& shard) const {
        std::unique_ptr<SafetensorsSource>& slot = open_[shard];
        if (!slot) slot = std::make_unique<SafetensorsSource>(shard);
        return *slot;
    }

    std::string indexPath_;
    std::vector<std::string> shards_;  // in order of first mention
    std::unordered_map<std::string, std::string> shardOf_;
    mutable std::unordered_map<std::string, std::unique_ptr<SafetensorsSource>> open_;
};

}  // namespace

std::unique_ptr<detail::TensorSource> detail::openSafetensors(const std::string& path) {
    return std::make_unique<SafetensorsSource>(path);
}

std::unique_ptr<detail::TensorSource> detail::openSafetensorsIndex(const std::string& indexPath) {
    return std::make_unique<SafetensorsIndexSource>(indexPath);
}

}  // namespace opscope::import
