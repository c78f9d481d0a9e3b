// Growing one-dimensional tables of compound rows (what h5py reads as a numpy record array,
// and pandas as a DataFrame), and a growing table of strings. Appending rows to an open table
// costs a few microseconds, where creating a group or an attribute costs tens: the executor
// trace writes its records this way (docs/TRACE_FORMAT.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "opscope/h5/h5_file.h"

namespace opscope::h5 {

// The row layout of a table: named fields at byte offsets of a C++ struct. HDF5 converts
// between the file's and the reader's layouts field by field, by name, so a reader's struct
// may order its fields differently; a field the file lacks is an error that names it.
class RowType {
public:
    explicit RowType(std::size_t rowBytes);
    RowType& int32(const char* name, std::size_t offset);
    RowType& int64(const char* name, std::size_t offset);
    RowType& float64(const char* name, std::size_t offset);
    RowType& boolean(const char* name, std::size_t offset);  // one byte, h5py's numpy bool
    RowType& int64Array(const char* name, std::size_t offset, std::size_t count);
    Id id() const { return type_.id(); }
    std::size_t rowBytes() const { return rowBytes_; }
    const std::vector<std::string>& fieldNames() const { return names_; }

private:
    RowType& insert(const char* name, std::size_t offset, Id type);
    Handle type_;
    std::size_t rowBytes_;
    std::vector<std::string> names_;
};

// A one-dimensional dataset that grows at its end: what both kinds of table are.
class GrowingDataset {
public:
    // Rows readable: the declared rows, or, when the file stores fewer (an append cut off by a
    // kill, at most kMaxUnstoredRows of file_safety.h), the rows it stores.
    int64_t size() const { return size_; }
    // Rows the dataset declares beyond size(): the torn tail that is ignored.
    int64_t unstoredRows() const { return unstored_; }
    const std::string& where() const { return where_; }  // "table '/x' in 'f.h5'"

protected:
    // Creates an empty, unlimited, chunked dataset of `type` at `path` (parents must exist).
    GrowingDataset(File& file, const std::string& path, Id type, std::size_t chunkRows);
    // Opens one whose datatype is of class `typeClass` (an H5T_class_t), described as `wanted`
    // in the sentence thrown otherwise.
    GrowingDataset(const File& file, const std::string& path, int typeClass, const char* wanted);
    // Grows by n rows and writes them, laid out as memoryType, at the end.
    void appendRows(Id memoryType, const void* rows, std::size_t n);
    // Reads rows [first, first + n) into memory laid out as memoryType.
    void readRows(Id memoryType, int64_t first, std::size_t n, void* rows) const;

private:
    Handle dataset_;
    std::string where_;
    int64_t size_ = 0;
    int64_t unstored_ = 0;
};

class Table : public GrowingDataset {
public:
    // Creates an empty table at `path` (parents must exist).
    static Table create(File& file, const std::string& path, const RowType& rowType, std::size_t chunkRows);
    // Opens an existing table; throws a sentence naming the path if it is not a 1-D
    // compound dataset.
    static Table open(const File& file, const std::string& path);

    // Appends n rows laid out as rowType describes.
    void append(const RowType& rowType, const void* rows, std::size_t n) { appendRows(rowType.id(), rows, n); }
    // Reads rows [first, first + n) into memory laid out as rowType describes.
    void read(const RowType& rowType, int64_t first, std::size_t n, void* rows) const {
        readRows(rowType.id(), first, n, rows);
    }

private:
    using GrowingDataset::GrowingDataset;
};

// How many of the first n rows can be read when reading all n failed (a tail a kill kept from
// the disk): the largest count for which read(count) does not throw FileError, found by halving.
template <class Read>
std::size_t readablePrefix(std::size_t n, Read read) {
    std::size_t good = 0, bad = n;  // read(good) succeeds, read(bad) fails
    while (bad - good > 1) {
        const std::size_t mid = good + (bad - good) / 2;
        try {
            read(mid);
            good = mid;
        } catch (const FileError&) {
            bad = mid;
        }
    }
    return good;
}

// A one-dimensional table of variable-length UTF-8 strings (h5py: `.asstr()[:]`).
class StringTable : public GrowingDataset {
public:
    static StringTable create(File& file, const std::string& path, std::size_t chunkRows);
    static StringTable open(const File& file, const std::string& path);
    void append(const std::vector<std::string>& values);
    std::vector<std::string> readAll() const;
    // The same up to the first row that cannot be read (a tail a kill kept from the disk);
    // *cut, when given, tells whether rows were left out (counting those size() leaves out).
    std::vector<std::string> readReadable(bool* cut = nullptr) const;

private:
    using GrowingDataset::GrowingDataset;
    std::vector<std::string> readFirst(std::size_t n) const;
};

}  // namespace opscope::h5
