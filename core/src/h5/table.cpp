// Growing tables: unlimited 1-D chunked datasets, appended with one extent change and one
// hyperslab write.
#include "opscope/h5/table.h"

#include <hdf5.h>

#include "strings_internal.h"

namespace opscope::h5 {
namespace {

std::string tableWhere(const File& file, const std::string& path) {
    return "table '" + normalizePath(path) + "' in '" + file.path() + "'";
}

Handle createGrowingDataset(File& file, const std::string& path, hid_t type, std::size_t chunkRows,
                            const std::string& where) {
    const std::string what = "cannot create " + where;
    file.requireWritable(what);
    const hsize_t empty[1] = {0}, unlimited[1] = {H5S_UNLIMITED}, chunk[1] = {chunkRows > 0 ? chunkRows : 1};
    Handle space = open(Handle::Kind::Dataspace, what, [&] { return H5Screate_simple(1, empty, unlimited); });
    Handle list = open(Handle::Kind::PropertyList, what, [] { return H5Pcreate(H5P_DATASET_CREATE); });
    call(what, [&] { return H5Pset_chunk(list.id(), 1, chunk); });
    const std::string p = normalizePath(path);
    return open(Handle::Kind::Dataset, what, [&] {
        return H5Dcreate2(file.id(), p.c_str(), type, space.id(), H5P_DEFAULT, list.id(), H5P_DEFAULT);
    });
}

// Opens a 1-D dataset whose type is of `wantedClass`; returns its length.
Handle openGrowingDataset(const File& file, const std::string& path, H5T_class_t wantedClass, const char* wanted,
                          const std::string& where, int64_t* size) {
    const std::string what = "cannot open " + where;
    const ObjectKind kind = file.info(path).kind;
    if (kind != ObjectKind::Dataset)
        throw H5Error(kind == ObjectKind::Missing ? "no " + where : where + " is a " + kindName(kind) + ", not a dataset");
    const std::string p = normalizePath(path);
    Handle dataset = open(Handle::Kind::Dataset, what, [&] { return H5Dopen2(file.id(), p.c_str(), H5P_DEFAULT); });
    Handle type = open(Handle::Kind::Datatype, what, [&] { return H5Dget_type(dataset.id()); });
    if (call(what, [&] { return H5Tget_class(type.id()); }) != wantedClass)
        throw H5Error(where + " holds " + describeType(type.id()) + " values, not " + wanted);
    Handle space = open(Handle::Kind::Dataspace, what, [&] { return H5Dget_space(dataset.id()); });
    if (call(what, [&] { return H5Sget_simple_extent_ndims(space.id()); }) != 1)
        throw H5Error(where + " is not one-dimensional");
    hsize_t dims[1] = {0};
    call(what, [&] { return H5Sget_simple_extent_dims(space.id(), dims, nullptr); });
    *size = static_cast<int64_t>(dims[0]);
    return dataset;
}

// Selects rows [first, first + n) of the dataset; returns the file and memory dataspaces.
std::pair<Handle, Handle> selectRows(hid_t dataset, int64_t first, std::size_t n, const std::string& what) {
    Handle fileSpace = open(Handle::Kind::Dataspace, what, [&] { return H5Dget_space(dataset); });
    const hsize_t start[1] = {static_cast<hsize_t>(first)}, count[1] = {n};
    call(what, [&] { return H5Sselect_hyperslab(fileSpace.id(), H5S_SELECT_SET, start, nullptr, count, nullptr); });
    Handle memorySpace = open(Handle::Kind::Dataspace, what, [&] { return H5Screate_simple(1, count, nullptr); });
    return {std::move(fileSpace), std::move(memorySpace)};
}

// Grows the dataset by n rows and writes them at the end.
void appendRows(hid_t dataset, hid_t memoryType, int64_t oldSize, const void* rows, std::size_t n,
                const std::string& what) {
    const hsize_t newSize[1] = {static_cast<hsize_t>(oldSize) + n};
    call(what, [&] { return H5Dset_extent(dataset, newSize); });
    auto [fileSpace, memorySpace] = selectRows(dataset, oldSize, n, what);
    call(what, [&] { return H5Dwrite(dataset, memoryType, memorySpace.id(), fileSpace.id(), H5P_DEFAULT, rows); });
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

// ---- Table ---------------------------------------------------------------------------------

Table::Table(Handle dataset, std::string where, int64_t size)
    : dataset_(std::move(dataset)), where_(std::move(where)), size_(size) {}

Table Table::create(File& file, const std::string& path, const RowType& rowType, std::size_t chunkRows) {
    std::string where = tableWhere(file, path);
    Handle dataset = createGrowingDataset(file, path, rowType.id(), chunkRows, where);
    return Table(std::move(dataset), std::move(where), 0);
}

Table Table::open(const File& file, const std::string& path) {
    std::string where = tableWhere(file, path);
    int64_t size = 0;
    Handle dataset = openGrowingDataset(file, path, H5T_COMPOUND, "compound rows", where, &size);
    return Table(std::move(dataset), std::move(where), size);
}

void Table::append(const RowType& rowType, const void* rows, std::size_t n) {
    if (n == 0) return;
    appendRows(dataset_.id(), rowType.id(), size_, rows, n, "cannot append to " + where_);
    size_ += static_cast<int64_t>(n);
}

void Table::read(const RowType& rowType, int64_t first, std::size_t n, void* rows) const {
    if (n == 0) return;
    const std::string what = "cannot read rows of " + where_;
    if (first < 0 || first + static_cast<int64_t>(n) > size_)
        throw H5Error(what + ": rows " + std::to_string(first) + ".." + std::to_string(first + int64_t(n) - 1) +
                      " asked for, the table has " + std::to_string(size_));
    auto [fileSpace, memorySpace] = selectRows(dataset_.id(), first, n, what);
    call(what, [&] {
        return H5Dread(dataset_.id(), rowType.id(), memorySpace.id(), fileSpace.id(), H5P_DEFAULT, rows);
    });
}

// ---- StringTable ---------------------------------------------------------------------------

StringTable::StringTable(Handle dataset, std::string where, int64_t size)
    : dataset_(std::move(dataset)), where_(std::move(where)), size_(size) {}

StringTable StringTable::create(File& file, const std::string& path, std::size_t chunkRows) {
    std::string where = tableWhere(file, path);
    const Handle type = detail::variableStringType(H5T_CSET_UTF8, "cannot create " + where);
    Handle dataset = createGrowingDataset(file, path, type.id(), chunkRows, where);
    return StringTable(std::move(dataset), std::move(where), 0);
}

StringTable StringTable::open(const File& file, const std::string& path) {
    std::string where = tableWhere(file, path);
    int64_t size = 0;
    Handle dataset = openGrowingDataset(file, path, H5T_STRING, "strings", where, &size);
    return StringTable(std::move(dataset), std::move(where), size);
}

void StringTable::append(const std::vector<std::string>& values) {
    if (values.empty()) return;
    const std::string what = "cannot append to " + where_;
    const Handle type = detail::variableStringType(H5T_CSET_UTF8, what);
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const std::string& v : values) pointers.push_back(v.c_str());
    appendRows(dataset_.id(), type.id(), size_, pointers.data(), pointers.size(), what);
    size_ += static_cast<int64_t>(values.size());
}

std::vector<std::string> StringTable::readAll() const {
    std::vector<std::string> out;
    if (size_ == 0) return out;
    const std::string what = "cannot read " + where_;
    const Handle type = detail::variableStringType(H5T_CSET_UTF8, what);
    auto [fileSpace, memorySpace] = selectRows(dataset_.id(), 0, static_cast<std::size_t>(size_), what);
    std::vector<char*> pointers(static_cast<std::size_t>(size_), nullptr);
    call(what, [&] {
        return H5Dread(dataset_.id(), type.id(), memorySpace.id(), fileSpace.id(), H5P_DEFAULT, pointers.data());
    });
    const detail::ReclaimOnExit reclaim{type.id(), memorySpace.id(), pointers.data()};
    out.reserve(pointers.size());
    for (const char* p : pointers) out.emplace_back(p ? p : "");
    return out;
}

}  // namespace opscope::h5
