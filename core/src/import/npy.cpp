// .npy and .npz (see npy.h). The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// parsed strictly: exactly those three keys, a plain descr (no structured dtypes).
#include "opscope/import/npy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "byte_order.h"
#include "opscope/error.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/import/format_error.h"
#include "opscope/import/zip_archive.h"
#include "opscope/text_list.h"
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

TensorEntry describeNpyBytes(const std::string& bytes, const std::string& what, const std::string& key) {
    const Declared d = declared(bytes, what, {});
    return {key, d.dtype, d.h.shape};
}

}  // namespace

HostTensor parseNpy(const std::string& bytes, const std::string& what, const NpyOptions& options) {
    const Declared d = declared(bytes, what, options);
    const Header& h = d.h;
    const DType dtype = d.dtype;
    const uint64_t count = d.count;
    const uint64_t need = count * dtypeSize(dtype);
    const uint64_t have = bytes.size() - d.dataStart;
    if (need != have)
        throw FormatError("'" + what + "' declares " + std::to_string(need) + " bytes of data (" + h.descr + ", " +
                          std::to_string(count) + " elements) but holds " + std::to_string(have) +
                          (have < need ? " (truncated?)" : ""));
    std::vector<int64_t> stored = h.shape;
    if (h.fortran) stored.assign(h.shape.rbegin(), h.shape.rend());
    HostTensor t(dtype, stored);
    if (need) std::memcpy(t.data(), bytes.data() + d.dataStart, static_cast<std::size_t>(need));
    if (d.bigEndian) detail::swapBytes(t.data(), static_cast<std::size_t>(count), dtypeSize(dtype));
    if (dtype == DType::Bool)
        for (uint64_t i = 0; i < count; ++i)
            if (t.dataAs<uint8_t>()[i] > 1)
                throw invalid(what, "a bool element holds " + std::to_string(t.dataAs<uint8_t>()[i]));
    return h.fortran && h.shape.size() > 1 ? fromFortran(t, h.shape) : t;
}

TensorEntry describeNpy(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw FormatError("cannot open '" + path + "'");
    const uint64_t size = static_cast<uint64_t>(in.tellg());
    in.seekg(0);
    std::string prefix(static_cast<std::size_t>(std::min<uint64_t>(size, 12)), '\0');
    if (!in.read(prefix.data(), static_cast<std::streamsize>(prefix.size())))
        throw FormatError("cannot read '" + path + "'");
    const auto [headerLen, start] = headerSpan(prefix, path);
    if (headerLen > size - start) throw invalid(path, "the header is cut short");  // checked before it is read
    std::string bytes(start + headerLen, '\0');
    in.seekg(0);
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
        throw FormatError("cannot read '" + path + "'");
    return describeNpyBytes(bytes, path, "");
}

HostTensor readNpy(const std::string& path, const NpyOptions& options) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw FormatError("cannot open '" + path + "'");
    const std::streamoff size = in.tellg();
    in.seekg(0);
    std::string bytes(static_cast<std::size_t>(size), '\0');
    if (size > 0 && !in.read(bytes.data(), size)) throw FormatError("cannot read '" + path + "'");
    return parseNpy(bytes, path, options);
}

namespace {

class NpySource final : public detail::TensorSource {
public:
    explicit NpySource(std::string path) : path_(std::move(path)) {}
    std::vector<std::string> keys() const override { return {}; }
    std::vector<TensorEntry> describe() const override { return {describeNpy(path_)}; }
    HostTensor read(const std::string&) const override { return readNpy(path_); }

private:
    std::string path_;
};

// An .npz opened: its zip directory read once, each array read (and inflated) when asked for.
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
        for (const std::string& key : keys_)
            out.push_back(describeNpyBytes(zip_.read(*byKey_.at(key)), zip_.path() + ":" + key, key));
        return out;
    }

    HostTensor read(const std::string& key) const override {
        if (key.empty() && keys_.size() != 1)
            throw FormatError("'" + zip_.path() + "' holds " + std::to_string(keys_.size()) + " arrays (" +
                              joinList(keys_) + "): name one as '" + zip_.path() + ":KEY'");
        return member(key.empty() ? keys_.front() : key);  // the one it holds (whose name may be "")
    }

private:
    HostTensor member(const std::string& key) const {
        const auto found = byKey_.find(key);
        if (found == byKey_.end())
            throw FormatError("no array '" + key + "' in '" + zip_.path() +
                              "' (it holds: " + (keys_.empty() ? "nothing" : joinList(keys_)) + ")");
        return parseNpy(zip_.read(*found->second), zip_.path() + ":" + key);
    }

    ZipArchive zip_;
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
