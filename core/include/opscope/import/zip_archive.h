// A strict reader of zip archives, enough for numpy's .npz and torch.save's .pt files: the
// central directory (zip64 too), stored and deflated entries, CRC-32 checked. Entries are read
// one at a time straight from the file (kept open); a size is trusted only after it fits in the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace opscope::import {

namespace detail {
class FileReader;
}

class ZipArchive {
public:
    struct Entry {
        std::string name;
        uint16_t method = 0;  // 0 stored, 8 deflated
        uint32_t crc32 = 0;
        uint64_t compressedSize = 0;
        uint64_t size = 0;
        uint64_t localHeaderOffset = 0;
    };

    // Reads the central directory; throws FormatError naming the file when it is not a zip
    // archive or its directory does not fit in the file.
    explicit ZipArchive(std::string path);
    ~ZipArchive();
    ZipArchive(ZipArchive&&) noexcept;

    const std::string& path() const { return path_; }
    const std::vector<Entry>& entries() const { return entries_; }
    const Entry* find(const std::string& name) const;
    // The entry's bytes, inflated and CRC-checked. Throws FormatError.
    std::string read(const Entry& entry) const;
    // `length` bytes from `begin` of a stored (uncompressed) entry, as torch.save writes every
    // storage: a view of a large storage costs its own bytes. The whole entry's CRC is checked
    // the first time, streamed a MiB at a time (nothing the size of the entry is allocated).
    // Throws FormatError for a deflated entry (read() it), a range past its end, or a bad CRC.
    std::string readStoredRange(const Entry& entry, uint64_t begin, uint64_t length) const;
    // The same range into `out` (length bytes): a storage read straight into its tensor.
    void readStoredRange(const Entry& entry, uint64_t begin, uint64_t length, void* out) const;

    // True when the file starts with a zip local header ("PK\3\4").
    static bool looksLikeZip(const std::string& path);

private:
    std::string path_;
    std::unique_ptr<detail::FileReader> file_;  // open once: an archive is read by one thread at a time
    uint64_t fileSize_ = 0;
    std::vector<Entry> entries_;
    std::unordered_map<std::string, std::size_t> byName_;  // the first entry of each name
    mutable std::vector<bool> crcChecked_;                 // by entry, for readStoredRange

    uint64_t dataStart(const Entry& entry) const;
    // Throws FormatError unless `entry` is stored and [begin, begin + length) lies in it.
    void requireStoredRange(const Entry& entry, uint64_t begin, uint64_t length) const;
};

}  // namespace opscope::import
