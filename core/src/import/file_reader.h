// A file read at offsets (private to import/): opened once, its size taken once, each read one
// seek and one read. Every tensor-file reader reads through it, so "cannot open" and "cannot
// read" are said one way; what a short file means (truncated, a header that lies) is the
// format's to say, by asking fits() before it reads.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace opscope::import::detail {

class FileReader {
public:
    // Throws FormatError "cannot open 'path'", or that it is not a regular file (checked before
    // it is opened: a pipe would block).
    explicit FileReader(std::string path);

    const std::string& path() const { return path_; }
    uint64_t size() const { return size_; }
    bool fits(uint64_t begin, uint64_t n) const { return begin <= size_ && n <= size_ - begin; }

    // `n` bytes from `begin` into `out`. Throws FormatError when they are not all in the file (a
    // caller that knows why says so first) or cannot be read.
    void read(uint64_t begin, uint64_t n, void* out) const;
    // The same as a string, allocated only once the range is known to be in the file.
    std::string read(uint64_t begin, uint64_t n) const;

private:
    std::string path_;
    mutable std::ifstream in_;  // open once: a reader is used by one thread at a time
    uint64_t size_ = 0;
};

}  // namespace opscope::import::detail
