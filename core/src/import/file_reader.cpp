#include "file_reader.h"

#include <filesystem>

#include "opscope/import/format_error.h"

namespace opscope::import::detail {

namespace {

// Before anything opens it: a pipe would block the open until someone writes (a safetensors
// shard or a reproducer's output named by a file can be one), and a directory or a device has no
// size to check a header against.
const std::string& regularFile(const std::string& path) {
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) throw FormatError("cannot open '" + path + "': no such file");
    if (!std::filesystem::is_regular_file(status))
        throw FormatError("'" + path + "' is not a regular file (a folder, a pipe or a device)");
    return path;
}

}  // namespace

FileReader::FileReader(std::string path) : path_(regularFile(path)), in_(path_, std::ios::binary | std::ios::ate) {
    if (!in_) throw FormatError("cannot open '" + path_ + "'");
    size_ = static_cast<uint64_t>(in_.tellg());
}

void FileReader::read(uint64_t begin, uint64_t n, void* out) const {
    if (!fits(begin, n))
        throw FormatError("'" + path_ + "' is cut short: it has " + std::to_string(size_) + " bytes, not the " +
                          std::to_string(n) + " from byte " + std::to_string(begin));
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(begin));
    if (n > 0 && !in_.read(static_cast<char*>(out), static_cast<std::streamsize>(n)))
        throw FormatError("cannot read " + std::to_string(n) + " bytes at offset " + std::to_string(begin) + " of '" +
                          path_ + "'");
}

std::string FileReader::read(uint64_t begin, uint64_t n) const {
    if (!fits(begin, n)) read(begin, n, nullptr);  // throws before allocating
    std::string bytes(static_cast<std::size_t>(n), '\0');
    read(begin, n, bytes.data());
    return bytes;
}

}  // namespace opscope::import::detail
