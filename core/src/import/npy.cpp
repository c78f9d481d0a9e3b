// .npy and .npz (see npy.h). The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// parsed strictly: exactly those three keys, a plain descr (no structured dtypes).
#include "opscope/import/npy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "byte_order.h"
#include "file_reader.h"
#include "opscope/error.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/import/format_error.h"
#include "opscope/import/zip_archive.h"
#include "opscope/text_list.h"
#include "tensor_block.h"
#include "tensor_source.h"

namespace opscope::import {
namespace {

struct Header {
    std::string descr;
    bool fortran = false;
    std::vector<int64_t> shape;
};

class HeaderParser {
public:
    HeaderParser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

    Header parse() {
        Header h;
        bool haveDescr = false, haveOrder = false, haveShape = false;
        expect('{');
        while (true) {
            skipSpace();
            if (peek() == '}') break;
            const std::string key = quoted();
            expect(':');
            if (key == "descr")
                h.descr = quoted(), haveDescr = true;
            else if (key == "fortran_order")
                h.fortran = boolean(), haveOrder = true;
            else if (key == "shape")
                h.shape = tuple(), haveShape = true;
            else
                fail("unknown header key '" + key + "'");
            skipSpace();
            if (peek() == ',') ++i_;
        }
        if (!haveDescr || !haveOrder || !haveShape) fail("the header lacks descr, fortran_order or shape");
        return h;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw FormatError("'" + what_ + "' is not a valid .npy file: " + why);
    }
    void skipSpace() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    char peek() {
        skipSpace();
        if (i_ >= s_.size()) fail("the header ends early");
        return s_[i_];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "' in the header");
        ++i_;
    }
    std::string quoted() {
        const char q = peek();
        if (q != '\'' && q != '"') fail("expected a string in the header (a structured dtype?)");
        const std::size_t end = s_.find(q, ++i_);
        if (end == std::string::npos) fail("an unterminated string in the header");
        std::string v = s_.substr(i_, end - i_);
        i_ = end + 1;
        return v;
    }
    bool boolean() {
        skipSpace();
        if (s_.compare(i_, 4, "True") == 0) return i_ += 4, true;
        if (s_.compare(i_, 5, "False") == 0) return i_ += 5, false;
        fail("fortran_order is neither True nor False");
    }
    std::vector<int64_t> tuple() {
        expect('(');
        std::vector<int64_t> dims;
        while (peek() != ')') {
            if (!std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("a shape entry is not a whole number");
            int64_t v = 0;
            while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
                if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) fail("a shape entry is too large");
                v = v * 10 + (s_[i_++] - '0');
            }
            if (s_.size() > i_ && s_[i_] == 'L') ++i_;  // Python 2 longs
            dims.push_back(v);
            if (peek() == ',') ++i_;
        }
        ++i_;
        return dims;
    }

    const std::string& s_;
    const std::string& what_;
    std::size_t i_ = 0;
};

// '<f4' -> Float32, little-endian. Throws for what OpScope cannot hold.
// The descr names and their dtypes, both ways (numpy's byte order prefix aside).
constexpr std::pair<const char*, DType> kDescrTable[] = {
    {"f2", DType::Float16}, {"f4", DType::Float32}, {"f8", DType::Float64}, {"i1", DType::Int8},
    {"i2", DType::Int16},   {"i4", DType::Int32},   {"i8", DType::Int64},   {"u1", DType::UInt8},
    {"u2", DType::UInt16},  {"u4", DType::UInt32},  {"u8", DType::UInt64},  {"b1", DType::Bool}};

DType dtypeOfDescr(const std::string& descr, bool* bigEndian, const std::string& what, const NpyOptions& o) {
    if (descr.size() < 2) throw FormatError("'" + what + "' has an unknown dtype '" + descr + "'");
    const char order = descr[0];
    std::string kind = descr;
    if (order == '<' || order == '>' || order == '|' || order == '=') kind = descr.substr(1);
    *bigEndian = order == '>';
    for (const auto& [name, dtype] : kDescrTable)
        if (kind == name) return dtype == DType::UInt16 && o.uint16AsBFloat16 ? DType::BFloat16 : dtype;
    throw FormatError("'" + what + "' holds dtype '" + descr +
                      "', which is not a tensor dtype OpScope reads (float16/32/64, int8-64, uint8-64, bool)");
}

// Fortran order is the C order of the reversed shape: transpose it back.
HostTensor fromFortran(const HostTensor& f, const std::vector<int64_t>& shape) {
    std::vector<int64_t> strides(shape.size());
    int64_t s = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) strides[i] = s, s *= shape[i];
    TensorView v = f.view();
    v.shape = shape;
    v.strides = strides;
    return HostTensor::copyOf(v);
}

// What a .npy header declares, with where its data starts: parsed from the file's first bytes
// (at least the whole header; the data may or may not follow).
struct Declared {
    Header h;
    DType dtype = DType::Undefined;
    bool bigEndian = false;
    std::size_t dataStart = 0;
    uint64_t count = 0;  // elements
};

FormatError invalid(const std::string& what, const std::string& why) {
    return FormatError("'" + what + "' is not a valid .npy file: " + why);
}

// The header's length and where it starts, from the first 12 bytes (fewer: cut short).
std::pair<std::size_t, std::size_t> headerSpan(const std::string& bytes, const std::string& what) {
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) throw invalid(what, "no \\x93NUMPY magic");
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    const int major = b[6];
    if (major == 1) return {static_cast<std::size_t>(b[8] | (b[9] << 8)), 10};
    if (major != 2 && major != 3)
        throw invalid(what, "format version " + std::to_string(major) + " (only 1, 2 and 3 exist)");
    if (bytes.size() < 12) throw invalid(what, "the header is cut short");
    return {static_cast<std::size_t>(b[8]) | (static_cast<std::size_t>(b[9]) << 8) |
                (static_cast<std::size_t>(b[10]) << 16) | (static_cast<std::size_t>(b[11]) << 24),
            12};
}

Declared declared(const std::string& bytes, const std::string& what, const NpyOptions& options) {
    const auto [headerLen, start] = headerSpan(bytes, what);
    if (headerLen > bytes.size() - start) throw invalid(what, "the header is cut short");
    Declared d;
    d.h = HeaderParser(bytes.substr(start, headerLen), what).parse();
    d.dtype = dtypeOfDescr(d.h.descr, &d.bigEndian, what, options);
    d.dataStart = start + headerLen;
    if (d.h.shape.size() > 64) throw invalid(what, "rank " + std::to_string(d.h.shape.size()));
    d.count = 1;
    for (int64_t n : d.h.shape) {
        if (n != 0 && d.count > std::numeric_limits<uint64_t>::max() / 16 / static_cast<uint64_t>(n))
            throw invalid(what, "the shape overflows");
        d.count *= static_cast<uint64_t>(n);
    }
    return d;
}

// The data must be exactly what the header declares; checked before any of it is read.
void checkDataBytes(const Declared& d, uint64_t have, const std::string& what) {
    const uint64_t need = d.count * dtypeSize(d.dtype);
    if (need != have)
        throw FormatError("'" + what + "' declares " + std::to_string(need) + " bytes of data (" + d.h.descr + ", " +
                          std::to_string(d.count) + " elements) but holds " + std::to_string(have) +
                          (have < need ? " (truncated?)" : ""));
}

// Elements as read from the file, made this machine's: byte order swapped, bools checked.
void finishElements(const Declared& d, void* data, uint64_t count, const std::string& what) {
    if (d.bigEndian) detail::swapBytes(data, static_cast<std::size_t>(count), dtypeSize(d.dtype));
    if (d.dtype == DType::Bool)
        for (uint64_t i = 0; i < count; ++i)
            if (static_cast<const uint8_t*>(data)[i] > 1)
                throw invalid(what, "a bool element holds " + std::to_string(static_cast<const uint8_t*>(data)[i]));
}

// Element strides of the stored data: C order, or Fortran's (the first axis fastest).
std::vector<int64_t> storedStrides(const Declared& d) {
    if (!d.h.fortran) return TensorView::contiguousStrides(d.h.shape);
    std::vector<int64_t> strides(d.h.shape.size());
    int64_t s = 1;
    for (std::size_t i = 0; i < d.h.shape.size(); ++i) strides[i] = s, s *= d.h.shape[i];
    return strides;
}

// The header's bytes (with the magic and lengths before it), read alone through `readPrefix`
// (bytes [0, n) of a file or of an .npz member of `size` bytes).
std::string headerBytes(uint64_t size, const std::string& what,
                        const std::function<std::string(uint64_t)>& readPrefix) {
    const std::string prefix = readPrefix(std::min<uint64_t>(size, 12));
    const auto [headerLen, start] = headerSpan(prefix, what);
    if (headerLen > size - start) throw invalid(what, "the header is cut short");  // checked before it is read
    return readPrefix(start + headerLen);
}

}  // namespace

HostTensor parseNpy(const std::string& bytes, const std::string& what, const NpyOptions& options) {
    const Declared d = declared(bytes, what, options);
    checkDataBytes(d, bytes.size() - d.dataStart, what);
    std::vector<int64_t> stored = d.h.shape;
    if (d.h.fortran) stored.assign(d.h.shape.rbegin(), d.h.shape.rend());
    HostTensor t(d.dtype, stored);
    if (t.nbytes()) std::memcpy(t.data(), bytes.data() + d.dataStart, t.nbytes());
    finishElements(d, t.data(), d.count, what);
    return d.h.fortran && d.h.shape.size() > 1 ? fromFortran(t, d.h.shape) : t;
}

namespace {

// Bytes [begin, begin + n) of the file, into `out`.
void readFileBytes(const detail::FileReader& file, uint64_t begin, uint64_t n, void* out) {
    if (!file.fits(begin, n)) throw invalid(file.path(), "it is cut short");
    file.read(begin, n, out);
}

std::string readFileBytes(const detail::FileReader& file, uint64_t begin, uint64_t n) {
    if (!file.fits(begin, n)) throw invalid(file.path(), "it is cut short");  // before allocating
    return file.read(begin, n);
}

Declared declaredInFile(const detail::FileReader& file) {
    return declared(headerBytes(file.size(), file.path(), [&](uint64_t n) { return readFileBytes(file, 0, n); }),
                    file.path(), {});
}

}  // namespace

TensorEntry describeNpy(const std::string& path) {
    const Declared d = declaredInFile(detail::FileReader(path));
    return {"", d.dtype, d.h.shape};
}

HostTensor readNpy(const std::string& path, const NpyOptions& options) {
    const detail::FileReader file(path);
    return parseNpy(file.read(0, file.size()), path, options);
}

namespace {

// A tensor read whole through its layout (tensor_block.h).
HostTensor readWhole(const detail::TensorLayout& layout) {
    return detail::readTensorBlock(layout, std::vector<int64_t>(layout.entry.shape.size(), 0), layout.entry.shape);
}

class NpySource final : public detail::TensorSource {
public:
    explicit NpySource(const std::string& path) : file_(path) {}
    std::vector<std::string> keys() const override { return {}; }
    std::vector<TensorEntry> describe() const override {
        const Declared d = declaredInFile(file_);
        return {{"", d.dtype, d.h.shape}};
    }
    // Straight from the file into the tensor (a Fortran-order one gathered a window at a time):
    // the tensor's memory once, not the file's bytes and then a copy.
    HostTensor read(const std::string&) const override { return readWhole(layout("")); }

    detail::TensorLayout layout(const std::string&) const override {
        const Declared d = declaredInFile(file_);
        checkDataBytes(d, file_.size() - d.dataStart, file_.path());
        detail::TensorLayout l{TensorEntry{"", d.dtype, d.h.shape}, storedStrides(d), 0, {}};
        l.readElements = [this, d](int64_t first, int64_t count, void* out) {
            const uint64_t size = dtypeSize(d.dtype);
            readFileBytes(file_, d.dataStart + static_cast<uint64_t>(first) * size, static_cast<uint64_t>(count) * size,
                          out);
            finishElements(d, out, static_cast<uint64_t>(count), file_.path());
        };
        return l;
    }

private:
    detail::FileReader file_;  // open once: a source is read by one thread at a time
};

// An .npz opened: its zip directory read once, each array read (and inflated) when asked for.
// A member numpy stored (np.savez) is read in ranges: its header alone, or a block of its data.
class NpzSource final : public detail::TensorSource {
public:
    explicit NpzSource(const std::string& path) : zip_(path) {
        for (const ZipArchive::Entry& e : zip_.entries()) {
            const bool npy = e.name.size() > 4 && e.name.compare(e.name.size() - 4, 4, ".npy") == 0;
            const std::string key = npy ? e.name.substr(0, e.name.size() - 4) : e.name;
            keys_.push_back(key);
            if (npy)
                byKey_[key] = &e;
            else
                byKey_.emplace(key, &e);
        }
    }

    std::vector<std::string> keys() const override { return keys_; }

    std::vector<TensorEntry> describe() const override {
        std::vector<TensorEntry> out;
        for (const std::string& key : keys_) {
            const ZipArchive::Entry& e = *byKey_.at(key);
            const std::string what = zip_.path() + ":" + key;
            const Declared d = stored(e) ? declaredMember(e, what) : declared(zip_.read(e), what, {});
            out.push_back({key, d.dtype, d.h.shape});
        }
        return out;
    }

    HostTensor read(const std::string& key) const override {
        const auto& [name, entry] = member(key);
        if (stored(*entry)) return readWhole(layout(key));  // from the archive's bytes into the tensor
        return parseNpy(zip_.read(*entry), zip_.path() + ":" + name);
    }

    detail::TensorLayout layout(const std::string& key) const override {
        const auto& [name, entry] = member(key);
        const std::string what = zip_.path() + ":" + name;
        if (!stored(*entry)) return inflatedLayout(name, *entry, what);
        const ZipArchive::Entry* e = entry;
        const Declared d = declaredMember(*e, what);
        checkDataBytes(d, e->size - d.dataStart, what);
        detail::TensorLayout l{TensorEntry{name, d.dtype, d.h.shape}, storedStrides(d), 0, {}};
        l.readElements = [this, e, d, what](int64_t first, int64_t count, void* out) {
            const uint64_t size = dtypeSize(d.dtype);
            zip_.readStoredRange(*e, d.dataStart + static_cast<uint64_t>(first) * size,
                                 static_cast<uint64_t>(count) * size, out);
            finishElements(d, out, static_cast<uint64_t>(count), what);
        };
        return l;
    }

private:
    // A deflated member's layout over its bytes inflated once: the one member kept inflated (the
    // bands of a streamed view read it band after band).
    detail::TensorLayout inflatedLayout(const std::string& name, const ZipArchive::Entry& e,
                                        const std::string& what) const {
        if (!inflated_ || inflatedEntry_ != &e) {
            inflated_ = std::make_shared<const std::string>(zip_.read(e));
            inflatedEntry_ = &e;
        }
        const std::shared_ptr<const std::string> bytes = inflated_;
        const Declared d = declared(*bytes, what, {});
        checkDataBytes(d, bytes->size() - d.dataStart, what);
        detail::TensorLayout l{TensorEntry{name, d.dtype, d.h.shape}, storedStrides(d), 0, {}};
        l.readElements = [bytes, d, what](int64_t first, int64_t count, void* out) {
            const uint64_t size = dtypeSize(d.dtype);
            std::memcpy(out, bytes->data() + d.dataStart + static_cast<uint64_t>(first) * size,
                        static_cast<std::size_t>(static_cast<uint64_t>(count) * size));
            finishElements(d, out, static_cast<uint64_t>(count), what);
        };
        return l;
    }

    // A stored member's header, read alone.
    Declared declaredMember(const ZipArchive::Entry& e, const std::string& what) const {
        return declared(headerBytes(e.size, what, [&](uint64_t n) { return zip_.readStoredRange(e, 0, n); }), what, {});
    }

    static bool stored(const ZipArchive::Entry& e) { return e.method == 0 && e.size == e.compressedSize; }

    // The member of `key` with its key, or the archive's one member for "" (whose name may be "").
    std::pair<std::string, const ZipArchive::Entry*> member(const std::string& key) const {
        if (key.empty() && keys_.size() != 1)
            throw FormatError("'" + zip_.path() + "' holds " + std::to_string(keys_.size()) + " arrays (" +
                              joinList(keys_) + "): name one as '" + zip_.path() + ":KEY'");
        const std::string& name = key.empty() ? keys_.front() : key;
        const auto found = byKey_.find(name);
        if (found == byKey_.end())
            throw FormatError("no array '" + name + "' in '" + zip_.path() +
                              "' (it holds: " + (keys_.empty() ? "nothing" : joinList(keys_)) + ")");
        return {name, found->second};
    }

    ZipArchive zip_;
    mutable const ZipArchive::Entry* inflatedEntry_ = nullptr;
    mutable std::shared_ptr<const std::string> inflated_;
    std::vector<std::string> keys_;
    std::unordered_map<std::string, const ZipArchive::Entry*> byKey_;  // "x.npy" before a member "x"
};

}  // namespace

std::unique_ptr<detail::TensorSource> detail::openNpy(const std::string& path) {
    return std::make_unique<NpySource>(path);
}

std::unique_ptr<detail::TensorSource> detail::openNpz(const std::string& path) {
    return std::make_unique<NpzSource>(path);
}

std::string npyBytes(const TensorView& tensor) {
    const DType stored = tensor.dtype == DType::BFloat16 ? DType::UInt16 : tensor.dtype;
    const char* kind = nullptr;
    for (const auto& [name, dtype] : kDescrTable)
        if (dtype == stored) kind = name;
    if (!kind) throw UsageError(std::string("cannot write dtype ") + dtypeName(tensor.dtype) + " as .npy");
    std::string shape;  // Python tuple syntax: "()", "(5,)", "(2, 3)"
    for (std::size_t i = 0; i < tensor.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(tensor.shape[i]);
    if (tensor.shape.size() == 1) shape += ",";
    const std::string order = dtypeSize(stored) == 1 ? "|" : "<";
    std::string header = "{'descr': '" + order + kind + "', 'fortran_order': False, 'shape': (" + shape + "), }";
    // Magic (6) + version (2) + length (2) + header + '\n', padded with spaces to 64 bytes.
    const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
    header.append(total - 10 - header.size() - 1, ' ');
    header += '\n';
    const HostTensor data = HostTensor::copyOf(tensor);  // contiguous, row-major (x86: little-endian)
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    out.append(static_cast<const char*>(data.data()), static_cast<std::size_t>(data.numel()) * dtypeSize(stored));
    return out;
}

void writeNpy(const std::string& path, const TensorView& tensor, const std::vector<std::string>& inputs) {
    h5::writeFileAtomically(path, npyBytes(tensor), std::vector<std::filesystem::path>(inputs.begin(), inputs.end()));
}

}  // namespace opscope::import
