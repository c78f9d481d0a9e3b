// Zip archives (see zip_archive.h). Layout from PKWARE's APPNOTE: the end-of-central-directory
// record (and its zip64 form) gives where the central directory is; each directory entry gives
// a local header, whose own name and extra lengths say where the data starts.
#include "opscope/import/zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>

#include "file_reader.h"
#include "opscope/import/format_error.h"

namespace opscope::import {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint64_t kMaxEntries = 1u << 20;  // far beyond any .pt or .npz; bounds the directory walk

uint16_t u16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t u32(const unsigned char* p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
           (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t u64(const unsigned char* p) {
    return static_cast<uint64_t>(u32(p)) | (static_cast<uint64_t>(u32(p + 4)) << 32);
}

// Bytes [offset, offset + size) lie in the file: checked before anything is allocated or read.
void requireInFile(const std::string& path, uint64_t fileSize, uint64_t offset, uint64_t size) {
    if (offset > fileSize || size > fileSize - offset)
        throw FormatError("'" + path + "' is damaged: it ends before byte " + std::to_string(offset + size) +
                          " that its zip directory refers to (the file has " + std::to_string(fileSize) + " bytes)");
}

// `size` bytes at `offset`, which the zip directory says are there, into `out`.
void readInto(const detail::FileReader& file, uint64_t offset, uint64_t size, void* out) {
    requireInFile(file.path(), file.size(), offset, size);
    file.read(offset, size, out);
}

std::string readAt(const detail::FileReader& file, uint64_t offset, uint64_t size) {
    requireInFile(file.path(), file.size(), offset, size);
    return file.read(offset, size);
}

const unsigned char* bytesOf(const std::string& s) { return reinterpret_cast<const unsigned char*>(s.data()); }

uint32_t crcOf(const void* data, uint64_t size) {
    uLong crc = crc32(0L, Z_NULL, 0);
    for (uint64_t off = 0; off < size;) {  // crc32 takes at most 4 GiB a call
        const uint64_t n = std::min<uint64_t>(size - off, 1u << 30);
        crc = crc32(crc, static_cast<const Bytef*>(data) + off, static_cast<uInt>(n));
        off += n;
    }
    return static_cast<uint32_t>(crc);
}

uint32_t crcOf(const std::string& data) { return crcOf(data.data(), data.size()); }

}  // namespace

ZipArchive::~ZipArchive() = default;
ZipArchive::ZipArchive(ZipArchive&&) noexcept = default;

bool ZipArchive::looksLikeZip(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char head[4] = {};
    return in.read(reinterpret_cast<char*>(head), 4) && u32(head) == kLocalHeader;
}

ZipArchive::ZipArchive(std::string path)
    : path_(std::move(path)), file_(std::make_unique<detail::FileReader>(path_)), fileSize_(file_->size()) {
    const auto notZip = [&](const std::string& why) {
        return FormatError("'" + path_ + "' is not a readable zip archive: " + why);
    };
    // The end record is the last 22 bytes plus a comment of at most 65535 bytes.
    const uint64_t tailSize = std::min<uint64_t>(fileSize_, 22 + 65535);
    if (fileSize_ < 22) throw notZip("it has only " + std::to_string(fileSize_) + " bytes");
    const std::string tail = readAt(*file_, fileSize_ - tailSize, tailSize);
    const unsigned char* t = bytesOf(tail);
    int64_t eocd = -1;
    for (int64_t i = static_cast<int64_t>(tailSize) - 22; i >= 0; --i)
        if (u32(t + i) == kEndOfDirectory) {
            eocd = i;
            break;
        }
    if (eocd < 0) throw notZip("no end-of-central-directory record (truncated?)");
    const unsigned char* e = t + eocd;
    uint64_t count = u16(e + 10);
    uint64_t dirSize = u32(e + 12);
    uint64_t dirOffset = u32(e + 16);
    const uint64_t eocdPos = fileSize_ - tailSize + static_cast<uint64_t>(eocd);
    if ((count == 0xFFFF || dirSize == 0xFFFFFFFF || dirOffset == 0xFFFFFFFF) && eocdPos >= 20) {
        const std::string loc = readAt(*file_, eocdPos - 20, 20);
        if (u32(bytesOf(loc)) != kZip64Locator) throw notZip("a zip64 directory without its locator");
        const std::string z = readAt(*file_, u64(bytesOf(loc) + 8), 56);
        if (u32(bytesOf(z)) != kZip64EndOfDirectory) throw notZip("a damaged zip64 end-of-directory record");
        count = u64(bytesOf(z) + 32);
        dirSize = u64(bytesOf(z) + 40);
        dirOffset = u64(bytesOf(z) + 48);
    }
    if (count > kMaxEntries) throw notZip("its directory declares " + std::to_string(count) + " entries");
    const std::string dir = readAt(*file_, dirOffset, dirSize);
    const unsigned char* d = bytesOf(dir);
    uint64_t pos = 0;
    for (uint64_t i = 0; i < count; ++i) {
        if (dirSize - pos < 46 || u32(d + pos) != kCentralHeader) throw notZip("a damaged central directory");
        const unsigned char* h = d + pos;
        Entry entry;
        entry.method = u16(h + 10);
        entry.crc32 = u32(h + 16);
        entry.compressedSize = u32(h + 20);
        entry.size = u32(h + 24);
        const uint64_t nameLen = u16(h + 28), extraLen = u16(h + 30), commentLen = u16(h + 32);
        entry.localHeaderOffset = u32(h + 42);
        if (dirSize - pos - 46 < nameLen + extraLen + commentLen) throw notZip("a damaged central directory");
        entry.name.assign(reinterpret_cast<const char*>(h + 46), nameLen);
        // zip64 extra field: the 64-bit values of the fields that hold 0xFFFFFFFF, in order.
        const unsigned char* x = h + 46 + nameLen;
        for (uint64_t off = 0; off + 4 <= extraLen;) {
            const uint16_t id = u16(x + off), len = u16(x + off + 2);
            if (off + 4 + len > extraLen) break;
            if (id == 0x0001) {
                const unsigned char* v = x + off + 4;
                uint64_t used = 0;
                auto take = [&](uint64_t& field) {
                    if (field != 0xFFFFFFFF) return;
                    if (used + 8 > len) throw notZip("a damaged zip64 field for '" + entry.name + "'");
                    field = u64(v + used);
                    used += 8;
                };
                take(entry.size);
                take(entry.compressedSize);
                take(entry.localHeaderOffset);
            }
            off += 4 + len;
        }
        byName_.emplace(entry.name, entries_.size());  // a repeated name: the first, as a search finds it
        entries_.push_back(std::move(entry));
        pos += 46 + nameLen + extraLen + commentLen;
    }
}

const ZipArchive::Entry* ZipArchive::find(const std::string& name) const {
    const auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : &entries_[it->second];
}

uint64_t ZipArchive::dataStart(const Entry& entry) const {
    const std::string local = readAt(*file_, entry.localHeaderOffset, 30);
    if (u32(bytesOf(local)) != kLocalHeader)
        throw FormatError("'" + entry.name + "' in '" + path_ +
                          "' is damaged: no local header where the directory says");
    return entry.localHeaderOffset + 30 + u16(bytesOf(local) + 26) + u16(bytesOf(local) + 28);
}

void ZipArchive::requireStoredRange(const Entry& entry, uint64_t begin, uint64_t length) const {
    const std::string where = "'" + entry.name + "' in '" + path_ + "'";
    if (entry.method != 0 || entry.size != entry.compressedSize)
        throw FormatError(where + " is not stored uncompressed, so it is read whole");
    if (begin > entry.size || length > entry.size - begin)
        throw FormatError(where + " has " + std::to_string(entry.size) + " bytes, not bytes " + std::to_string(begin) +
                          "-" + std::to_string(begin + length));
}

void ZipArchive::readStoredRange(const Entry& entry, uint64_t begin, uint64_t length, void* out) const {
    requireStoredRange(entry, begin, length);
    const std::string where = "'" + entry.name + "' in '" + path_ + "'";
    const uint64_t start = dataStart(entry);
    if (begin == 0 && length == entry.size) {  // the whole entry: one pass reads and checks it
        readInto(*file_, start, length, out);
        if (crcOf(out, length) != entry.crc32) throw FormatError(where + " is damaged: its CRC-32 does not match");
        return;
    }
    // An entry of this archive's directory is checked once; any other one each time.
    const Entry* first = entries_.data();
    const bool ours =
        std::less_equal<const Entry*>()(first, &entry) && std::less<const Entry*>()(&entry, first + entries_.size());
    const std::size_t index = ours ? static_cast<std::size_t>(&entry - first) : entries_.size();
    if (crcChecked_.empty()) crcChecked_.assign(entries_.size(), false);
    if (index >= crcChecked_.size() || !crcChecked_[index]) {
        uLong crc = crc32(0L, Z_NULL, 0);
        for (uint64_t off = 0; off < entry.size;) {
            const std::string chunk = readAt(*file_, start + off, std::min<uint64_t>(entry.size - off, 1u << 20));
            crc = crc32(crc, bytesOf(chunk), static_cast<uInt>(chunk.size()));
            off += chunk.size();
        }
        if (static_cast<uint32_t>(crc) != entry.crc32)
            throw FormatError(where + " is damaged: its CRC-32 does not match");
        if (index < crcChecked_.size()) crcChecked_[index] = true;
    }
    readInto(*file_, start + begin, length, out);
}

std::string ZipArchive::readStoredRange(const Entry& entry, uint64_t begin, uint64_t length) const {
    requireStoredRange(entry, begin, length);  // before the buffer is allocated
    std::string bytes(static_cast<std::size_t>(length), '\0');
    readStoredRange(entry, begin, length, bytes.data());
    return bytes;
}

std::string ZipArchive::read(const Entry& entry) const {
    const std::string where = "'" + entry.name + "' in '" + path_ + "'";
    std::string data = readAt(*file_, dataStart(entry), entry.compressedSize);
    if (entry.method == 8) {
        // Deflate expands at most ~1032:1; a larger declared size is a lie we do not allocate.
        if (entry.size / 1032 > entry.compressedSize + 1)
            throw FormatError(where + " declares " + std::to_string(entry.size) + " bytes from only " +
                              std::to_string(entry.compressedSize) + " compressed bytes");
        std::string out(static_cast<std::size_t>(entry.size), '\0');
        z_stream z{};
        if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw FormatError("zlib failed to start for " + where);
        z.next_in = reinterpret_cast<Bytef*>(data.data());
        z.avail_in = static_cast<uInt>(std::min<uint64_t>(data.size(), std::numeric_limits<uInt>::max()));
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(std::min<uint64_t>(out.size(), std::numeric_limits<uInt>::max()));
        const int rc = inflate(&z, Z_FINISH);
        const uint64_t produced = z.total_out;
        inflateEnd(&z);
        if (rc != Z_STREAM_END || produced != entry.size)
            throw FormatError(where + " does not inflate to its declared " + std::to_string(entry.size) + " bytes");
        data = std::move(out);
    } else if (entry.method != 0) {
        throw FormatError(where + " uses zip compression method " + std::to_string(entry.method) +
                          " (only stored and deflated entries are read)");
    } else if (entry.size != entry.compressedSize) {
        throw FormatError(where + " is stored but its sizes differ (" + std::to_string(entry.size) + " and " +
                          std::to_string(entry.compressedSize) + ")");
    }
    if (crcOf(data) != entry.crc32) throw FormatError(where + " is damaged: its CRC-32 does not match");
    return data;
}

}  // namespace opscope::import
