// Growing tables: unlimited 1-D chunked datasets, appended with one extent change and one
// hyperslab write.
#include "opscope/h5/table.h"

#include <hdf5.h>

#include <algorithm>

#include "opscope/h5/file_safety.h"
#include "strings_internal.h"

namespace opscope::h5 {
namespace {

std::string tableWhere(const File& file, const std::string& path) {
    return "table '" + normalizePath(path) + "' in '" + file.path() + "'";
}

// Selects rows [first, first + n) of the dataset; returns the file and memory dataspaces.
std::pair<Handle, Handle> selectRows(hid_t dataset, int64_t first, std::size_t n, const std::string& what) {
    Handle fileSpace = open(Handle::Kind::Dataspace, what, [&] { return H5Dget_space(dataset); });
    const hsize_t start[1] = {static_cast<hsize_t>(first)}, count[1] = {n};
    call(what, [&] { return H5Sselect_hyperslab(fileSpace.id(), H5S_SELECT_SET, start, nullptr, count, nullptr); });
    Handle memorySpace = open(Handle::Kind::Dataspace, what, [&] { return H5Screate_simple(1, count, nullptr); });
    return {std::move(fileSpace), std::move(memorySpace)};
}

}  // namespace

// ---- RowType -------------------------------------------------------------------------------

RowType::RowType(std::size_t rowBytes)
    : type_(open(Handle::Kind::Datatype, "cannot build a table row type",
                 [&] { return H5Tcreate(H5T_COMPOUND, rowBytes); })),
      rowBytes_(rowBytes) {}

RowType& RowType::insert(const char* name, std::size_t offset, Id type) {
    call(std::string("cannot add field '") + name + "' to a table row type",
         [&] { return H5Tinsert(type_.id(), name, offset, type); });
    names_.emplace_back(name);
    return *this;
}

RowType& RowType::int32(const char* name, std::size_t offset) { return insert(name, offset, H5T_NATIVE_INT32); }
RowType& RowType::int64(const char* name, std::size_t offset) { return insert(name, offset, H5T_NATIVE_INT64); }
RowType& RowType::float64(const char* name, std::size_t offset) { return insert(name, offset, H5T_NATIVE_DOUBLE); }

RowType& RowType::boolean(const char* name, std::size_t offset) {
    const Handle type = makeBoolType();
    return insert(name, offset, type.id());
}

RowType& RowType::int64Array(const char* name, std::size_t offset, std::size_t count) {
    const hsize_t dims[1] = {count};
    const Handle type = open(Handle::Kind::Datatype, std::string("cannot build field '") + name + "'",
                             [&] { return H5Tarray_create2(H5T_NATIVE_INT64, 1, dims); });
    return insert(name, offset, type.id());
}

// ---- GrowingDataset ------------------------------------------------------------------------

GrowingDataset::GrowingDataset(File& file, const std::string& path, Id type, std::size_t chunkRows)
    : where_(tableWhere(file, path)) {
    const std::string what = "cannot create " + where_;
    file.requireWritable(what);
    const hsize_t empty[1] = {0}, unlimited[1] = {H5S_UNLIMITED}, chunk[1] = {chunkRows > 0 ? chunkRows : 1};
    Handle space = open(Handle::Kind::Dataspace, what, [&] { return H5Screate_simple(1, empty, unlimited); });
    Handle list = open(Handle::Kind::PropertyList, what, [] { return H5Pcreate(H5P_DATASET_CREATE); });
    call(what, [&] { return H5Pset_chunk(list.id(), 1, chunk); });
    const std::string p = normalizePath(path);
    dataset_ = open(Handle::Kind::Dataset, what, [&] {
        return H5Dcreate2(file.id(), p.c_str(), type, space.id(), H5P_DEFAULT, list.id(), H5P_DEFAULT);
    });
    file.noteCreated(p, ObjectKind::Dataset);
}

GrowingDataset::GrowingDataset(const File& file, const std::string& path, int typeClass, const char* wanted)
    : where_(tableWhere(file, path)) {
    const std::string what = "cannot open " + where_;
    const ObjectInfo found = file.info(path);
    file.refuseIfExternal(path, found);
    const ObjectKind kind = found.kind;
    if (kind != ObjectKind::Dataset)
        throw ContentError(kind == ObjectKind::Missing ? "no " + where_
                                                       : where_ + " is a " + kindName(kind) + ", not a dataset");
    const std::string p = normalizePath(path);
    dataset_ = open(Handle::Kind::Dataset, what, [&] { return H5Dopen2(file.id(), p.c_str(), H5P_DEFAULT); });
    Handle type = open(Handle::Kind::Datatype, what, [&] { return H5Dget_type(dataset_.id()); });
    if (call(what, [&] { return H5Tget_class(type.id()); }) != static_cast<H5T_class_t>(typeClass))
        throw ContentError(where_ + " holds " + describeType(type.id()) + " values, not " + wanted);
    Handle space = open(Handle::Kind::Dataspace, what, [&] { return H5Dget_space(dataset_.id()); });
    if (call(what, [&] { return H5Sget_simple_extent_ndims(space.id()); }) != 1)
        throw ContentError(where_ + " is not one-dimensional");
    hsize_t dims[1] = {0};
    call(what, [&] { return H5Sget_simple_extent_dims(space.id(), dims, nullptr); });
    const std::string outside = outsideReference(dataset_.id(), what);
    if (!outside.empty() && !file.externalAllowed()) refuseOutsideData(where_, outside);
    // Never trust the declared row count for what it costs to read: bound it by the storage.
    const uint64_t rowBytes = call(what, [&] { return H5Tget_size(type.id()); });
    const uint64_t storedRows = storedBytesBound(dataset_.id(), what) / rowBytes;
    const uint64_t declared = dims[0];
    if (declared > storedRows && declared - storedRows > static_cast<uint64_t>(kMaxUnstoredRows))
        throw ContentError(where_ + " declares " + std::to_string(declared) + " rows but stores at most " +
                           std::to_string(storedRows) + ": the file is damaged");
    size_ = static_cast<int64_t>(std::min(declared, storedRows));
    unstored_ = static_cast<int64_t>(declared) - size_;
}

void GrowingDataset::appendRows(Id memoryType, const void* rows, std::size_t n) {
    if (n == 0) return;
    const std::string what = "cannot append to " + where_;
    const hsize_t newSize[1] = {static_cast<hsize_t>(size_) + n};
    call(what, [&] { return H5Dset_extent(dataset_.id(), newSize); });
    const auto spaces =
        selectRows(dataset_.id(), size_, n, what);  // no structured binding: C++17 lambdas cannot capture one
    call(what,
         [&] { return H5Dwrite(dataset_.id(), memoryType, spaces.second.id(), spaces.first.id(), H5P_DEFAULT, rows); });
    size_ += static_cast<int64_t>(n);
}

void GrowingDataset::readRows(Id memoryType, int64_t first, std::size_t n, void* rows) const {
    if (n == 0) return;
    const std::string what = "cannot read rows of " + where_;
    if (first < 0 || first + static_cast<int64_t>(n) > size_)
        throw ContentError(what + ": rows " + std::to_string(first) + ".." + std::to_string(first + int64_t(n) - 1) +
                           " asked for, the table has " + std::to_string(size_));
    const auto spaces = selectRows(dataset_.id(), first, n, what);  // .first: the file's, .second: memory's
    call(what,
         [&] { return H5Dread(dataset_.id(), memoryType, spaces.second.id(), spaces.first.id(), H5P_DEFAULT, rows); });
}

// ---- Table and StringTable -----------------------------------------------------------------

Table Table::create(File& file, const std::string& path, const RowType& rowType, std::size_t chunkRows) {
    return Table(file, path, rowType.id(), chunkRows);
}

Table Table::open(const File& file, const std::string& path) {
    return Table(file, path, H5T_COMPOUND, "compound rows");
}

StringTable StringTable::create(File& file, const std::string& path, std::size_t chunkRows) {
    const Handle type = detail::variableStringType(H5T_CSET_UTF8, "cannot create " + tableWhere(file, path));
    return StringTable(file, path, type.id(), chunkRows);
}

StringTable StringTable::open(const File& file, const std::string& path) {
    return StringTable(file, path, H5T_STRING, "strings");
}

void StringTable::append(const std::vector<std::string>& values) {
    const Handle type = detail::variableStringType(H5T_CSET_UTF8, "cannot append to " + where());
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const std::string& v : values) pointers.push_back(v.c_str());
    appendRows(type.id(), pointers.data(), pointers.size());
}

std::vector<std::string> StringTable::readAll() const { return readFirst(static_cast<std::size_t>(size())); }

std::vector<std::string> StringTable::readReadable(bool* cut) const {
    if (cut) *cut = unstoredRows() > 0;
    try {
        return readAll();
    } catch (const FileError&) {
        if (cut) *cut = true;
    }
    return readFirst(readablePrefix(static_cast<std::size_t>(size()), [&](std::size_t n) { readFirst(n); }));
}

std::vector<std::string> StringTable::readFirst(std::size_t n) const {
    std::vector<std::string> out;
    if (n == 0) return out;
    const Handle type = detail::variableStringType(H5T_CSET_UTF8, "cannot read " + where());
    std::vector<char*> pointers(n, nullptr);
    const Handle space = h5::open(Handle::Kind::Dataspace, "cannot read " + where(), [&] {
        const hsize_t count[1] = {pointers.size()};
        return H5Screate_simple(1, count, nullptr);
    });
    // Also gives back what a read that failed half way had allocated.
    const detail::ReclaimOnExit reclaim{type.id(), space.id(), pointers.data()};
    readRows(type.id(), 0, pointers.size(), pointers.data());
    out.reserve(pointers.size());
    for (const char* p : pointers) out.emplace_back(p ? p : "");
    return out;
}

}  // namespace opscope::h5
