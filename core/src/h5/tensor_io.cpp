// Tensors <-> datasets. The dtype is decided once, from the file datatype when reading and
// from the tensor when writing; the memory datatype is then that dtype's native layout, so
// HDF5 at most swaps bytes. 16-bit floats have no predefined HDF5 type and are built the way
// h5py builds them.
#include "opscope/h5/tensor_io.h"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <set>

#include "opscope/h5/compressed_chunks.h"
#include "opscope/h5/file_safety.h"
#include "opscope/printf_text.h"
#include "opscope/tensor_view.h"

namespace opscope::h5 {
namespace {

// ---- datatypes -----------------------------------------------------------------------------

enum class Float16Layout { Ieee, BFloat };

// h5py's float16 (IEEE half) and the same recipe for bfloat16 bits kept as an HDF5 float.
Handle float16Type(Float16Layout layout, H5T_order_t order, const std::string& what) {
    const bool ieee = layout == Float16Layout::Ieee;
    Handle type = open(Handle::Kind::Datatype, what, [] { return H5Tcopy(H5T_IEEE_F32LE); });
    call(what, [&] { return H5Tset_fields(type.id(), 15, ieee ? 10 : 7, ieee ? 5 : 8, 0, ieee ? 10 : 7); });
    call(what, [&] { return H5Tset_size(type.id(), 2); });
    call(what, [&] { return H5Tset_ebias(type.id(), ieee ? 15 : 127); });
    call(what, [&] { return H5Tset_order(type.id(), order); });
    return type;
}

bool hasFloat16Layout(hid_t type, Float16Layout layout, const std::string& what) {
    const bool ieee = layout == Float16Layout::Ieee;
    size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    call(what, [&] { return H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize); });
    const size_t ebias = call(what, [&] { return H5Tget_ebias(type); });
    return spos == 15 && epos == (ieee ? 10u : 7u) && esize == (ieee ? 5u : 8u) && mpos == 0 &&
           msize == (ieee ? 10u : 7u) && ebias == (ieee ? 15u : 127u);
}

// The predefined little-endian file type and native memory type of the dtypes that have one.
struct PlainTypes {
    hid_t file = -1;
    hid_t memory = -1;
};

PlainTypes plainTypes(DType dtype) {
    switch (dtype) {
        case DType::Float32: return {H5T_IEEE_F32LE, H5T_NATIVE_FLOAT};
        case DType::Float64: return {H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE};
        case DType::Int8: return {H5T_STD_I8LE, H5T_NATIVE_INT8};
        case DType::Int16: return {H5T_STD_I16LE, H5T_NATIVE_INT16};
        case DType::Int32: return {H5T_STD_I32LE, H5T_NATIVE_INT32};
        case DType::Int64: return {H5T_STD_I64LE, H5T_NATIVE_INT64};
        case DType::UInt8: return {H5T_STD_U8LE, H5T_NATIVE_UINT8};
        case DType::UInt16:
        case DType::BFloat16: return {H5T_STD_U16LE, H5T_NATIVE_UINT16};
        case DType::UInt32: return {H5T_STD_U32LE, H5T_NATIVE_UINT32};
        case DType::UInt64: return {H5T_STD_U64LE, H5T_NATIVE_UINT64};
        default: return {};
    }
}

Handle copyType(hid_t type, const std::string& what) {
    return open(Handle::Kind::Datatype, what, [&] { return H5Tcopy(type); });
}

Handle fileType(DType dtype, const std::string& what) {
    if (dtype == DType::Float16) return float16Type(Float16Layout::Ieee, H5T_ORDER_LE, what);
    if (dtype == DType::Bool) return makeBoolType();
    const PlainTypes plain = plainTypes(dtype);
    if (plain.file < 0) throw IoError(what + ": OpScope has no HDF5 layout for " + dtypeName(dtype) + " tensors");
    return copyType(plain.file, what);
}

// bfloat16 read from a 2-byte HDF5 float (rather than our uint16 convention) keeps that layout.
Handle memoryType(DType dtype, bool bfloat16AsFloat, const std::string& what) {
    const H5T_order_t native = call(what, [] { return H5Tget_order(H5T_NATIVE_INT); });
    if (dtype == DType::Float16) return float16Type(Float16Layout::Ieee, native, what);
    if (dtype == DType::BFloat16 && bfloat16AsFloat) return float16Type(Float16Layout::BFloat, native, what);
    if (dtype == DType::Bool) return makeBoolType();
    return copyType(plainTypes(dtype).memory, what);
}

// ---- an open dataset -----------------------------------------------------------------------

struct OpenDataset {
    Handle dataset, type, space;
    std::string path;   // normalized
    std::string where;  // "dataset '/a' in 'f.h5'"
    std::string what;   // "cannot read dataset '/a' in 'f.h5'"
};

// For a path already known to be a dataset.
OpenDataset openKnownDataset(const File& file, const std::string& normalizedPath, const char* verb) {
    OpenDataset d;
    d.path = normalizedPath;
    d.where = "dataset '" + d.path + "' in '" + file.path() + "'";
    d.what = std::string("cannot ") + verb + " " + d.where;
    d.dataset = open(Handle::Kind::Dataset, d.what, [&] { return H5Dopen2(file.id(), d.path.c_str(), H5P_DEFAULT); });
    d.type = open(Handle::Kind::Datatype, d.what, [&] { return H5Dget_type(d.dataset.id()); });
    d.space = open(Handle::Kind::Dataspace, d.what, [&] { return H5Dget_space(d.dataset.id()); });
    return d;
}

OpenDataset openDataset(const File& file, const std::string& datasetPath, const char* verb) {
    return openKnownDataset(file, file.requireKind(datasetPath, ObjectKind::Dataset), verb);
}

struct TensorType {
    DType dtype = DType::Undefined;
    std::string name;
    bool bfloat16AsFloat = false;
};

DType integerDType(size_t size, bool isSigned) {
    switch (size) {
        case 1: return isSigned ? DType::Int8 : DType::UInt8;
        case 2: return isSigned ? DType::Int16 : DType::UInt16;
        case 4: return isSigned ? DType::Int32 : DType::UInt32;
        case 8: return isSigned ? DType::Int64 : DType::UInt64;
        default: return DType::Undefined;
    }
}

TensorType tensorType(const File& file, const OpenDataset& d) {
    const hid_t type = d.type.id();
    TensorType result;
    const H5T_class_t typeClass = call(d.what, [&] { return H5Tget_class(type); });
    const size_t size = call(d.what, [&] { return H5Tget_size(type); });
    if (typeClass == H5T_INTEGER) {
        const bool isSigned = call(d.what, [&] { return H5Tget_sign(type); }) != H5T_SGN_NONE;
        result.dtype = integerDType(size, isSigned);
    } else if (typeClass == H5T_FLOAT) {
        if (size == 4) result.dtype = DType::Float32;
        if (size == 8) result.dtype = DType::Float64;
        if (size == 2 && hasFloat16Layout(type, Float16Layout::Ieee, d.what)) result.dtype = DType::Float16;
        if (size == 2 && hasFloat16Layout(type, Float16Layout::BFloat, d.what)) {
            result.dtype = DType::BFloat16;
            result.bfloat16AsFloat = true;
        }
    } else if (typeClass == H5T_ENUM && isBoolType(type)) {
        result.dtype = DType::Bool;
    }
    if (result.dtype != DType::Undefined)
        result.name = dtypeName(result.dtype);
    else if (typeClass == H5T_FLOAT && size == 2)
        result.name = "float16 of a non-IEEE layout";
    else
        result.name = describeType(type);

    // Our bfloat16 convention: raw bits as uint16, marked by an attribute.
    if (call(d.what, [&] { return H5Aexists(d.dataset.id(), kDTypeAttribute); }) > 0 &&
        file.readAttribute<std::string>(d.path, kDTypeAttribute) == "bfloat16") {
        if (result.dtype != DType::UInt16)
            throw ContentError(d.where + " is marked " + kDTypeAttribute + "='bfloat16' but stores " + result.name +
                               ", not uint16");
        result = TensorType{DType::BFloat16, "bfloat16", false};
    }
    return result;
}

struct Extent {
    std::vector<hsize_t> dims;  // empty for scalar and null dataspaces
    bool null = false;
};

Extent extentOf(const OpenDataset& d) {
    const hid_t space = d.space.id();
    const H5S_class_t spaceClass = call(d.what, [&] { return H5Sget_simple_extent_type(space); });
    Extent extent;
    extent.null = spaceClass == H5S_NULL;
    if (spaceClass != H5S_SIMPLE) return extent;
    const int rank = call(d.what, [&] { return H5Sget_simple_extent_ndims(space); });
    extent.dims.resize(static_cast<size_t>(rank));
    call(d.what, [&] { return H5Sget_simple_extent_dims(space, extent.dims.data(), nullptr); });
    return extent;
}

std::vector<int64_t> toShape(const std::vector<hsize_t>& dims, const OpenDataset& d) {
    std::vector<int64_t> shape;
    for (hsize_t dim : dims) {
        if (dim > static_cast<hsize_t>(std::numeric_limits<int64_t>::max()))
            throw ContentError(d.where + " has a dimension of " + std::to_string(dim) + ", beyond a 64-bit index");
        shape.push_back(static_cast<int64_t>(dim));
    }
    return shape;
}

// ---- filters and storage -------------------------------------------------------------------

struct Filter {
    H5Z_filter_t id;
    std::string name;
};

std::vector<Filter> filtersOf(hid_t createList, const std::string& what) {
    std::vector<Filter> filters;
    const int count = call(what, [&] { return H5Pget_nfilters(createList); });
    for (unsigned i = 0; i < static_cast<unsigned>(count); ++i) {
        unsigned flags = 0, config = 0;
        size_t parameterCount = 0;
        char stored[64] = {};
        const H5Z_filter_t id = call(what, [&] {
            return H5Pget_filter2(createList, i, &flags, &parameterCount, nullptr, sizeof stored, stored, &config);
        });
        std::string name = stored;
        switch (id) {
            case H5Z_FILTER_DEFLATE: name = "gzip"; break;
            case H5Z_FILTER_SHUFFLE: name = "shuffle"; break;
            case H5Z_FILTER_FLETCHER32: name = "fletcher32"; break;
            case H5Z_FILTER_SZIP: name = "szip"; break;
            case H5Z_FILTER_NBIT: name = "nbit"; break;
            case H5Z_FILTER_SCALEOFFSET: name = "scaleoffset"; break;
            default:
                if (name.empty()) name = "filter " + std::to_string(id);
                break;
        }
        filters.push_back({id, name});
    }
    return filters;
}

Handle createListOf(const OpenDataset& d) {
    return open(Handle::Kind::PropertyList, d.what, [&] { return H5Dget_create_plist(d.dataset.id()); });
}

// Fails before reading rather than deep inside HDF5 (e.g. h5py's LZF, or Blosc, not loaded).
void requireFiltersAvailable(const OpenDataset& d) {
    Handle createList = createListOf(d);
    for (const Filter& filter : filtersOf(createList.id(), d.what)) {
        if (call(d.what, [&] { return H5Zfilter_avail(filter.id); }) == 0)
            throw IoError(d.where + " is compressed with '" + filter.name + "' (HDF5 filter " +
                          std::to_string(filter.id) + "), which this HDF5 library cannot decode");
    }
}

// ---- memory limits -------------------------------------------------------------------------

uint64_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return std::numeric_limits<uint64_t>::max();
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(pages), static_cast<uint64_t>(pageSize), &bytes))
        return std::numeric_limits<uint64_t>::max();
    return bytes;
}

std::string humanBytes(uint64_t bytes) {
    constexpr size_t kUnits = 7;
    const char* units[kUnits] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < kUnits) {
        value /= 1024;
        ++unit;
    }
    return unit == 0 ? printfText("%.0f %s", value, units[unit]) : printfText("%.1f %s", value, units[unit]);
}

// A corrupt or hostile file may declare any shape: refuse before allocating, not by crashing,
// whatever is beyond the limit, this machine's memory or what the file really stores.
void requireFitsInMemory(const OpenDataset& d, const std::vector<int64_t>& shape, DType dtype, size_t fileElementSize) {
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return;
    const std::string described = " has shape " + shapeToString(shape) + " of " + dtypeName(dtype);
    uint64_t bytes = dtypeSize(dtype), elements = 1, fileBytes = 0;
    for (int64_t dim : shape)
        if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes) ||
            __builtin_mul_overflow(elements, static_cast<uint64_t>(dim), &elements))
            throw ContentError(d.where + described + ", more bytes than a 64-bit count can hold");
    const uint64_t memory = physicalMemoryBytes();
    if (bytes > memory)
        throw ContentError(d.where + described + " (" + humanBytes(bytes) + "), more than this machine's memory (" +
                           humanBytes(memory) + ")");
    if (elements > static_cast<uint64_t>(kMaxTensorElements))
        throw ContentError(d.where + described + ", more than the " + std::to_string(kMaxTensorElements) +
                           " elements OpScope reads into one tensor");
    const uint64_t stored = storedBytesBound(d.dataset.id(), d.what);
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(fileElementSize), &fileBytes) || fileBytes > stored)
        throw ContentError(d.where + described + " (" + humanBytes(fileBytes) + ") but stores only " +
                           humanBytes(probe([&] { return H5Dget_storage_size(d.dataset.id()); })) +
                           ": the file is truncated or damaged");
}

// ---- writing -------------------------------------------------------------------------------

static_assert(std::is_same_v<hsize_t, ChunkDim>, "compressed_chunks.h's ChunkDim must be hsize_t");

Handle compressedCreateList(const std::vector<hsize_t>& dims, size_t elementSize, const std::string& what) {
    unsigned config = 0;
    const bool gzip = call(what, [] { return H5Zfilter_avail(H5Z_FILTER_DEFLATE); }) > 0;
    if (gzip) call(what, [&] { return H5Zget_filter_info(H5Z_FILTER_DEFLATE, &config); });
    if (!gzip || (config & H5Z_FILTER_CONFIG_ENCODE_ENABLED) == 0)
        throw IoError(what + ": this HDF5 library cannot write gzip");
    Handle list = open(Handle::Kind::PropertyList, what, [] { return H5Pcreate(H5P_DATASET_CREATE); });
    const std::vector<hsize_t> chunk = chunkShapeFor(dims, elementSize);
    call(what, [&] { return H5Pset_chunk(list.id(), static_cast<int>(chunk.size()), chunk.data()); });
    // Shuffling bytes groups exponents together, which roughly doubles what gzip saves on floats.
    call(what, [&] { return H5Pset_shuffle(list.id()); });
    call(what, [&] { return H5Pset_deflate(list.id(), kGzipLevel); });
    return list;
}

DatasetInfo describeDataset(const File& file, const OpenDataset& d) {
    DatasetInfo info;
    const TensorType type = tensorType(file, d);
    info.dtype = type.dtype;
    info.typeName = type.name;
    const Extent extent = extentOf(d);
    info.nullSpace = extent.null;
    info.shape = toShape(extent.dims, d);

    Handle createList = createListOf(d);
    info.chunked = call(d.what, [&] { return H5Pget_layout(createList.id()); }) == H5D_CHUNKED;
    if (info.chunked) {
        std::vector<hsize_t> chunk(std::max<size_t>(extent.dims.size(), 1));
        const int rank =
            call(d.what, [&] { return H5Pget_chunk(createList.id(), static_cast<int>(chunk.size()), chunk.data()); });
        chunk.resize(static_cast<size_t>(rank));
        info.chunkShape = toShape(chunk, d);
    }
    for (const Filter& filter : filtersOf(createList.id(), d.what)) {
        info.filters.push_back(filter.name);
        if (filter.id != H5Z_FILTER_SHUFFLE && filter.id != H5Z_FILTER_FLETCHER32) info.compressed = true;
    }
    // 0 means both "nothing allocated yet" and failure; neither is worth an error here.
    info.storageBytes = probe([&] { return H5Dget_storage_size(d.dataset.id()); });
    info.outside = outsideReference(d.dataset.id(), d.what);
    return info;
}

// Each object's subtree is listed once; other links to it are listed but not walked again,
// which also ends cycles of hard links.
// What a walk fills in for each dataset: everything, or only whether it points outside.
enum class Detail { Full, OutsideOnly };

void collectTree(const File& file, const std::string& group, int depth, int maxDepth, Detail detail,
                 std::set<std::string>& walked, WalkBudget& budget, std::vector<NodeInfo>& out) {
    const std::vector<File::Child> children = file.listChildren(group);  // also checks that it is a group
    if (maxDepth == 0) return;
    for (const File::Child& child : children) {
        const std::string path = (group == "/" ? "" : group) + "/" + child.name;
        budget.visit(path, depth);
        NodeInfo node{
            path, child.name, depth, child.info.kind, child.info.attributeCount, {}, child.info.externalTarget};
        if (node.kind == ObjectKind::Dataset && detail == Detail::Full) {
            node.dataset = describeDataset(file, openKnownDataset(file, path, "inspect"));
        } else if (node.kind == ObjectKind::Dataset) {
            const OpenDataset d = openKnownDataset(file, path, "inspect");
            node.dataset.outside = outsideReference(d.dataset.id(), d.what);
        }
        out.push_back(std::move(node));
        // Soft links are shown, not followed: their target is listed where it lives.
        const bool descend = child.info.kind == ObjectKind::Group && !child.info.viaSoftLink &&
                             (maxDepth < 0 || depth < maxDepth) && walked.insert(child.info.identity).second;
        if (descend) collectTree(file, path, depth + 1, maxDepth, detail, walked, budget, out);
    }
}

}  // namespace

std::string NodeInfo::outside() const {
    if (kind == ObjectKind::Dataset) return dataset.outside;
    if (kind == ObjectKind::Link && !externalTarget.empty()) return "external link -> " + externalTarget;
    return "";
}

int64_t DatasetInfo::numel() const {
    if (nullSpace) return 0;
    int64_t n = 1;
    for (int64_t dim : shape)
        if (__builtin_mul_overflow(n, dim, &n)) return std::numeric_limits<int64_t>::max();
    return n;
}

namespace {

// A dataset opened for reading a tensor, with every check a read needs before touching data.
struct ReadableDataset {
    OpenDataset d;
    TensorType type;
    std::vector<int64_t> shape;
};

ReadableDataset openForReading(const File& file, const std::string& datasetPath) {
    OpenDataset d = openDataset(file, datasetPath, "read");
    const TensorType type = tensorType(file, d);
    if (type.dtype == DType::Undefined)
        throw ContentError(d.where + " holds " + type.name + " data, not a numeric tensor");
    const Extent extent = extentOf(d);
    if (extent.null) throw ContentError(d.where + " has a null dataspace: it holds no values");
    if (extent.dims.size() > static_cast<size_t>(kMaxRank))
        throw ContentError(d.where + " has rank " + std::to_string(extent.dims.size()) + ", more than the " +
                           std::to_string(kMaxRank) + " dimensions a tensor can have");
    const std::string outside = outsideReference(d.dataset.id(), d.what);
    if (!outside.empty() && !file.externalAllowed()) refuseOutsideData(d.where, outside);
    std::vector<int64_t> shape = toShape(extent.dims, d);
    requireFiltersAvailable(d);
    return {std::move(d), type, std::move(shape)};
}

HostTensor readTensorData(const File& file, const std::string& datasetPath) {
    const ReadableDataset r = openForReading(file, datasetPath);
    const OpenDataset& d = r.d;
    requireFitsInMemory(d, r.shape, r.type.dtype, call(d.what, [&] { return H5Tget_size(d.type.id()); }));
    HostTensor tensor(r.type.dtype, r.shape);
    if (tensor.numel() == 0) return tensor;
    Handle memory = memoryType(r.type.dtype, r.type.bfloat16AsFloat, d.what);
    call(d.what, [&] { return H5Dread(d.dataset.id(), memory.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor.data()); });
    return tensor;
}

HostTensor readBlockData(const File& file, const std::string& datasetPath, const std::vector<int64_t>& start,
                         const std::vector<int64_t>& count) {
    const ReadableDataset r = openForReading(file, datasetPath);
    const OpenDataset& d = r.d;
    bool inside = start.size() == r.shape.size() && count.size() == r.shape.size();
    for (std::size_t a = 0; inside && a < r.shape.size(); ++a)
        inside = start[a] >= 0 && count[a] >= 0 && start[a] <= r.shape[a] && count[a] <= r.shape[a] - start[a];
    if (!inside)
        throw UsageError(d.what + ": the block at " + shapeToString(start) + " of size " + shapeToString(count) +
                         " is not inside its shape " + shapeToString(r.shape));
    requireFitsInMemory(d, count, r.type.dtype, call(d.what, [&] { return H5Tget_size(d.type.id()); }));
    HostTensor tensor(r.type.dtype, count);
    if (tensor.numel() == 0) return tensor;
    if (r.shape.empty()) return readTensorData(file, datasetPath);  // a scalar: the block is all of it
    const std::vector<hsize_t> offset(start.begin(), start.end()), size(count.begin(), count.end());
    call(d.what, [&] {
        return H5Sselect_hyperslab(d.space.id(), H5S_SELECT_SET, offset.data(), nullptr, size.data(), nullptr);
    });
    Handle memorySpace = open(Handle::Kind::Dataspace, d.what,
                              [&] { return H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr); });
    Handle memory = memoryType(r.type.dtype, r.type.bfloat16AsFloat, d.what);
    call(d.what, [&] {
        return H5Dread(d.dataset.id(), memory.id(), memorySpace.id(), d.space.id(), H5P_DEFAULT, tensor.data());
    });
    return tensor;
}

// Chunks compressed elsewhere (compressChunks) go into the file as they are: filter mask 0 says
// both filters of the dataset's pipeline were applied.
void writeChunks(Id dataset, const CompressedChunks& chunks, const std::vector<hsize_t>& dims,
                 const std::string& what) {
    if (chunks.shape != dims) throw UsageError(what + ": the compressed chunks are of another tensor");
    for (std::size_t i = 0; i < chunks.chunks.size(); ++i) {
        const std::vector<hsize_t> offset = chunks.chunkOffset(i);
        const std::vector<uint8_t>& bytes = chunks.chunks[i];
        call(what, [&] { return H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, offset.data(), bytes.size(), bytes.data()); });
    }
}

}  // namespace

void writeTensor(File& file, const std::string& datasetPath, const HostTensor& tensor, const WriteOptions& options) {
    const std::string path = normalizePath(datasetPath);
    const std::string what = "cannot write dataset '" + path + "' in '" + file.path() + "'";
    file.requireWritable(what);
    Handle type = fileType(tensor.dtype(), what);
    Handle memory = memoryType(tensor.dtype(), false, what);

    const ObjectKind existing = file.kindOf(path);
    if (existing == ObjectKind::Dataset && !options.overwrite)
        throw IoError(what + ": it already exists (set WriteOptions::overwrite to replace it)");
    if (existing != ObjectKind::Missing && existing != ObjectKind::Dataset)
        throw IoError(what + ": that path is a " + kindName(existing));
    file.createGroup(parentPath(path));
    if (existing == ObjectKind::Dataset) {
        call(what, [&] { return H5Ldelete(file.id(), path.c_str(), H5P_DEFAULT); });
        file.noteRemoved(path);
    }

    const std::vector<hsize_t> dims(tensor.shape().begin(), tensor.shape().end());
    Handle space = open(Handle::Kind::Dataspace, what, [&] {
        return dims.empty() ? H5Screate(H5S_SCALAR)
                            : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    });
    // Chunks need a simple, non-empty dataspace; scalars and empty tensors have nothing to compress.
    const bool compress = options.compress && !dims.empty() && tensor.numel() > 0;
    const bool compact = !compress && options.compact && tensor.numel() > 0 && tensor.nbytes() <= kCompactMaxBytes;
    Handle compressedList;
    if (compress) {
        compressedList = compressedCreateList(dims, dtypeSize(tensor.dtype()), what);
        // No timestamps: the same tensors make the same file.
        call(what, [&] { return H5Pset_obj_track_times(compressedList.id(), false); });
    }
    const Id createList = compress ? compressedList.id() : file.plainDatasetCreateList(compact, what);
    const auto [location, name] = file.placeOf(path);
    Handle dataset = open(Handle::Kind::Dataset, what, [&, &location = location, &name = name] {
        return H5Dcreate2(location, name.c_str(), type.id(), space.id(), H5P_DEFAULT, createList, H5P_DEFAULT);
    });
    file.noteCreated(path, ObjectKind::Dataset);
    try {
        if (compress && options.precompressed)
            writeChunks(dataset.id(), *options.precompressed, dims, what);
        else if (tensor.numel() > 0)
            call(what,
                 [&] { return H5Dwrite(dataset.id(), memory.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor.data()); });
        dataset.close(what);
        if (tensor.dtype() == DType::BFloat16) file.writeAttribute(path, kDTypeAttribute, "bfloat16");
    } catch (...) {
        dataset.reset();
        probe([&] { return H5Ldelete(file.id(), path.c_str(), H5P_DEFAULT); });  // no half-written dataset
        file.noteRemoved(path);
        throw;
    }
}

DatasetInfo datasetInfo(const File& file, const std::string& datasetPath) {
    return describeDataset(file, openDataset(file, datasetPath, "inspect"));
}

namespace {

std::vector<NodeInfo> collectTree(const File& file, const std::string& root, int maxDepth, Detail detail) {
    const std::string path = normalizePath(root);
    std::set<std::string> walked{file.info(path).identity};
    std::vector<NodeInfo> nodes;
    WalkBudget budget(file);
    collectTree(file, path, 1, maxDepth, detail, walked, budget, nodes);
    return nodes;
}

}  // namespace

HostTensor readTensor(const File& file, const std::string& datasetPath) {
    return readingFile(file.path(), [&] { return readTensorData(file, datasetPath); });
}

HostTensor readTensorBlock(const File& file, const std::string& datasetPath, const std::vector<int64_t>& start,
                           const std::vector<int64_t>& count) {
    return readingFile(file.path(), [&] { return readBlockData(file, datasetPath, start, count); });
}

std::vector<NodeInfo> listTree(const File& file, const std::string& root, int maxDepth) {
    return readingFile(file.path(), [&] { return collectTree(file, root, maxDepth, Detail::Full); });
}

std::vector<NodeInfo> listOutside(const File& file) {
    std::vector<NodeInfo> outside;
    for (NodeInfo& n : readingFile(file.path(), [&] { return collectTree(file, "/", -1, Detail::OutsideOnly); }))
        if (!n.outside().empty()) outside.push_back(std::move(n));
    return outside;
}

}  // namespace opscope::h5
