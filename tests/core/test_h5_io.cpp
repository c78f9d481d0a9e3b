// HDF5 I/O: tensors of every dtype both ways, fixtures written with the raw C API in the
// layouts h5py uses, attributes, the lazy tree, one-sentence errors, and atomic writes.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "opscope/h5/atomic_write.h"
#include "opscope/h5/attribute_value.h"
#include "opscope/h5/h5_file.h"
#include "scratch_dir.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/host_tensor.h"

namespace fs = std::filesystem;
using namespace opscope;
using namespace opscope::h5;

namespace {

using test::ScratchDir;

// The FileError message of f ("(no error)" when nothing is thrown).
template <class F>
std::string errorOf(F&& f) {
    return test::errorOf<FileError>(std::forward<F>(f));
}

// ---- helpers ---------------------------------------------------------------------------------

// Raw HDF5 calls in fixtures: a negative result fails the test.
int64_t ok(int64_t result) {
    if (result < 0) throw std::runtime_error("raw HDF5 call failed while building a fixture");
    return result;
}

// Values that survive every dtype exactly, plus NaN, infinities and -0 for floating types.
HostTensor pattern(DType dtype, const std::vector<int64_t>& shape) {
    HostTensor t(dtype, shape);
    const bool isSigned = dtype == DType::Int8 || dtype == DType::Int16 || dtype == DType::Int32 ||
                          dtype == DType::Int64 || isFloatingType(dtype);
    for (int64_t i = 0; i < t.numel(); ++i) {
        double v = static_cast<double>(i % 97);
        if (dtype == DType::Bool)
            v = (i % 3 == 0) ? 1 : 0;
        else if (isFloatingType(dtype))
            v = (i % 13) * 0.25 - 1.5;
        else if (isSigned)
            v -= 48;
        t.setFromDouble(i, v);
    }
    if (isFloatingType(dtype) && t.numel() >= 4) {
        t.setFromDouble(0, std::numeric_limits<double>::quiet_NaN());
        t.setFromDouble(1, std::numeric_limits<double>::infinity());
        t.setFromDouble(2, -std::numeric_limits<double>::infinity());
        t.setFromDouble(3, -0.0);
    }
    return t;
}

void expectSameTensor(const HostTensor& expected, const HostTensor& actual) {
    ASSERT_EQ(expected.dtype(), actual.dtype());
    ASSERT_EQ(expected.shape(), actual.shape());
    ASSERT_EQ(expected.nbytes(), actual.nbytes());
    EXPECT_EQ(0, std::memcmp(expected.data(), actual.data(), expected.nbytes())) << "bits differ";
}

// A dataset of `type` written with the raw C API, optionally chunked and gzip-compressed.
void writeRawDataset(const std::string& path, const char* name, hid_t fileType, hid_t memoryType,
                     const std::vector<hsize_t>& dims, const void* data, const std::vector<hsize_t>& chunk = {},
                     int gzipLevel = 0, bool shuffle = false) {
    const hid_t file = ok(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    const hid_t space = ok(dims.empty() ? H5Screate(H5S_SCALAR)
                                        : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    const hid_t dcpl = ok(H5Pcreate(H5P_DATASET_CREATE));
    if (!chunk.empty()) ok(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()));
    if (shuffle) ok(H5Pset_shuffle(dcpl));
    if (gzipLevel > 0) ok(H5Pset_deflate(dcpl, static_cast<unsigned>(gzipLevel)));
    const hid_t dataset = ok(H5Dcreate2(file, name, fileType, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (data) ok(H5Dwrite(dataset, memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
    ok(H5Dclose(dataset));
    ok(H5Pclose(dcpl));
    ok(H5Sclose(space));
    ok(H5Fclose(file));
}

// The float16 type exactly as h5py builds it (h5py/h5t.pyx).
hid_t h5pyHalfType(H5T_order_t order) {
    const hid_t t = ok(H5Tcopy(H5T_IEEE_F32LE));
    ok(H5Tset_fields(t, 15, 10, 5, 0, 10));
    ok(H5Tset_size(t, 2));
    ok(H5Tset_ebias(t, 15));
    ok(H5Tset_order(t, order));
    return t;
}

const DType kAllDTypes[] = {DType::Float16, DType::Float32, DType::Float64, DType::BFloat16, DType::Int8,
                            DType::Int16,   DType::Int32,   DType::Int64,   DType::UInt8,    DType::UInt16,
                            DType::UInt32,  DType::UInt64,  DType::Bool};

// ---- round trips -----------------------------------------------------------------------------

class H5RoundTrip : public testing::TestWithParam<DType> {};

TEST_P(H5RoundTrip, EveryShapeBitExactWithAndWithoutCompression) {
    const DType dtype = GetParam();
    const std::vector<std::vector<int64_t>> shapes = {
        {}, {1}, {7}, {3, 5}, {0}, {4, 0, 2}, {2, 3, 4}, {1, 2, 1, 3, 1, 2, 2, 3}, {600, 700}};
    ScratchDir dir;
    const std::string path = dir.file("round_trip.h5");
    {
        File file = File::create(path);
        for (size_t i = 0; i < shapes.size(); ++i)
            for (bool compress : {false, true})
                writeTensor(file, "/t" + std::to_string(i) + (compress ? "/gz" : "/raw"), pattern(dtype, shapes[i]),
                            WriteOptions{compress, false});
        file.close();
    }
    const File file = File::openReadOnly(path);
    for (size_t i = 0; i < shapes.size(); ++i) {
        for (bool compress : {false, true}) {
            SCOPED_TRACE(shapeToString(shapes[i]) + (compress ? " compressed" : ""));
            const std::string name = "/t" + std::to_string(i) + (compress ? "/gz" : "/raw");
            expectSameTensor(pattern(dtype, shapes[i]), readTensor(file, name));
            const DatasetInfo info = datasetInfo(file, name);
            EXPECT_EQ(dtype, info.dtype);
            EXPECT_EQ(dtypeName(dtype), info.typeName);
            EXPECT_EQ(shapes[i], info.shape);
            const bool compressible = compress && !shapes[i].empty() && shapeNumel(shapes[i]) > 0;
            EXPECT_EQ(compressible, info.compressed);
            EXPECT_EQ(compressible, info.chunked);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(H5, H5RoundTrip, testing::ValuesIn(kAllDTypes),
                         [](const testing::TestParamInfo<DType>& p) { return std::string(dtypeName(p.param)); });

TEST(H5TensorWrite, CompressionIsChunkedGzipAndSmaller) {
    ScratchDir dir;
    File file = File::create(dir.file("gz.h5"));
    HostTensor smooth(DType::Float32, {512, 512});
    for (int64_t i = 0; i < smooth.numel(); ++i) smooth.setFromDouble(i, static_cast<double>(i / 512));
    writeTensor(file, "/a/b/smooth", smooth, WriteOptions{true, false});
    const DatasetInfo info = datasetInfo(file, "/a/b/smooth");
    EXPECT_TRUE(info.chunked);
    EXPECT_TRUE(info.compressed);
    EXPECT_EQ((std::vector<std::string>{"shuffle", "gzip"}), info.filters);
    EXPECT_LE(shapeNumel(info.chunkShape) * 4, 1 << 20);
    EXPECT_LT(info.storageBytes, smooth.nbytes() / 10);
    expectSameTensor(smooth, readTensor(file, "/a/b/smooth"));
}

namespace {

H5D_layout_t layoutOf(const File& file, const std::string& path) {
    const hid_t d = ok(H5Dopen2(file.id(), path.c_str(), H5P_DEFAULT));
    const hid_t list = ok(H5Dget_create_plist(d));
    const H5D_layout_t layout = H5Pget_layout(list);
    H5Pclose(list);
    H5Dclose(d);
    return layout;
}

}  // namespace

TEST(H5TensorWrite, CompactUpToItsLimitAndReadBackAlike) {
    // compact: the data in the object header, up to kCompactMaxBytes; larger or compressed
    // tensors keep their layouts, and every one reads back bit for bit.
    ScratchDir dir;
    File file = File::create(dir.file("compact.h5"));
    const WriteOptions compact{false, false, true};
    const int64_t most = static_cast<int64_t>(kCompactMaxBytes / 4);
    writeTensor(file, "/small", pattern(DType::Float32, {2, 3}), compact);
    writeTensor(file, "/bf16", pattern(DType::BFloat16, {5}), compact);
    writeTensor(file, "/limit", pattern(DType::Float32, {most}), compact);
    writeTensor(file, "/over", pattern(DType::Float32, {most + 1}), compact);
    writeTensor(file, "/empty", pattern(DType::Float32, {0, 3}), compact);
    writeTensor(file, "/gz", pattern(DType::Float32, {4, 4}), WriteOptions{true, false, true});
    writeTensor(file, "/plain", pattern(DType::Float32, {2, 3}));
    EXPECT_EQ(H5D_COMPACT, layoutOf(file, "/small"));
    EXPECT_EQ(H5D_COMPACT, layoutOf(file, "/bf16"));
    EXPECT_EQ(H5D_COMPACT, layoutOf(file, "/limit"));
    EXPECT_EQ(H5D_CONTIGUOUS, layoutOf(file, "/over"));
    EXPECT_EQ(H5D_CONTIGUOUS, layoutOf(file, "/empty"));
    EXPECT_EQ(H5D_CHUNKED, layoutOf(file, "/gz"));
    EXPECT_EQ(H5D_CONTIGUOUS, layoutOf(file, "/plain"));
    file.close();
    const File back = File::openReadOnly(dir.file("compact.h5"));
    expectSameTensor(pattern(DType::Float32, {2, 3}), readTensor(back, "/small"));
    expectSameTensor(pattern(DType::BFloat16, {5}), readTensor(back, "/bf16"));
    expectSameTensor(pattern(DType::Float32, {most}), readTensor(back, "/limit"));
    expectSameTensor(pattern(DType::Float32, {most + 1}), readTensor(back, "/over"));
    expectSameTensor(pattern(DType::Float32, {4, 4}), readTensor(back, "/gz"));
    const HostTensor block = readTensorBlock(back, "/small", {1, 1}, {1, 2});
    EXPECT_EQ(pattern(DType::Float32, {2, 3}).getAsDouble(4), block.getAsDouble(0));
    EXPECT_EQ(datasetInfo(back, "/small").storageBytes, 24u);
}

TEST(H5TensorWrite, OverwriteOnlyWhenAsked) {
    ScratchDir dir;
    File file = File::create(dir.file("overwrite.h5"));
    writeTensor(file, "/x", pattern(DType::Int32, {3}));
    EXPECT_CONTAINS(errorOf([&] { writeTensor(file, "/x", pattern(DType::Int32, {3})); }), "already exists");
    writeTensor(file, "/x", pattern(DType::Float64, {2, 2}), WriteOptions{false, true});
    expectSameTensor(pattern(DType::Float64, {2, 2}), readTensor(file, "/x"));
    file.createGroup("/g");
    EXPECT_CONTAINS(errorOf([&] {
                        writeTensor(file, "/g", pattern(DType::Int32, {3}), WriteOptions{false, true});
                    }),
                    "that path is a group");
    writeTensor(file, "/ds", pattern(DType::Int32, {3}));
    EXPECT_CONTAINS(errorOf([&] { writeTensor(file, "/ds/child", pattern(DType::Int32, {3})); }), "'/ds' is a dataset");
}

TEST(H5TensorWrite, BFloat16IsUint16MarkedByAttribute) {
    ScratchDir dir;
    File file = File::create(dir.file("bf16.h5"));
    writeTensor(file, "/w", pattern(DType::BFloat16, {4}));
    EXPECT_EQ("bfloat16", file.readAttribute<std::string>("/w", kDTypeAttribute));
    const hid_t dataset = ok(H5Dopen2(file.id(), "/w", H5P_DEFAULT));
    const hid_t type = ok(H5Dget_type(dataset));
    EXPECT_GT(H5Tequal(type, H5T_STD_U16LE), 0);
    ok(H5Tclose(type));
    ok(H5Dclose(dataset));
}

TEST(H5TensorWrite, RefusesReadOnlyFilesAndUnstorableDTypes) {
    ScratchDir dir;
    const std::string path = dir.file("ro.h5");
    File::create(path).close();
    File readOnly = File::openReadOnly(path);
    EXPECT_CONTAINS(errorOf([&] { writeTensor(readOnly, "/x", pattern(DType::Int8, {1})); }), "read-only");
    EXPECT_CONTAINS(errorOf([&] { File::openReadWrite(path); }), "already open for read-only in this process");
    readOnly.close();
    File writable = File::openReadWrite(path);
    EXPECT_CONTAINS(errorOf([&] { writeTensor(writable, "/c", HostTensor(DType::Complex64, {2})); }),
                    "no HDF5 layout for complex64");
}

// ---- fixtures in the layouts of other writers ----------------------------------------------

TEST(H5TensorRead, ChunkedGzipFixturesFromTheCApi) {
    ScratchDir dir;
    std::vector<int32_t> ints(100 * 37);
    for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(i * 7919 % 100003) - 50000;
    const std::string intPath = dir.file("ints.h5");
    writeRawDataset(intPath, "v", H5T_STD_I32BE, H5T_NATIVE_INT32, {100, 37}, ints.data(), {16, 8}, 6);
    std::vector<double> reals(3 * 50 * 7);
    for (size_t i = 0; i < reals.size(); ++i) reals[i] = std::sin(static_cast<double>(i));
    const std::string realPath = dir.file("reals.h5");
    writeRawDataset(realPath, "v", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {3, 50, 7}, reals.data(), {2, 9, 7}, 9, true);

    const HostTensor i32 = readTensor(File::openReadOnly(intPath), "/v");
    ASSERT_EQ(DType::Int32, i32.dtype());
    ASSERT_EQ((std::vector<int64_t>{100, 37}), i32.shape());
    EXPECT_EQ(0, std::memcmp(ints.data(), i32.data(), i32.nbytes()));  // big-endian in the file

    const File realFile = File::openReadOnly(realPath);
    const HostTensor f64 = readTensor(realFile, "v");
    ASSERT_EQ((std::vector<int64_t>{3, 50, 7}), f64.shape());
    EXPECT_EQ(0, std::memcmp(reals.data(), f64.data(), f64.nbytes()));
    const DatasetInfo info = datasetInfo(realFile, "v");
    EXPECT_EQ((std::vector<int64_t>{2, 9, 7}), info.chunkShape);
    EXPECT_TRUE(info.compressed);
}

TEST(H5TensorRead, H5pyFloat16InBothByteOrders) {
    ScratchDir dir;
    const std::vector<uint16_t> bits = {0x0000, 0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0xfc00, 0x7e00, 0x8000};
    for (H5T_order_t order : {H5T_ORDER_LE, H5T_ORDER_BE}) {
        const std::string path = dir.file(order == H5T_ORDER_LE ? "le.h5" : "be.h5");
        const hid_t fileType = h5pyHalfType(order);
        const hid_t memoryType = h5pyHalfType(H5T_ORDER_LE);
        writeRawDataset(path, "h", fileType, memoryType, {3, 3}, bits.data());
        ok(H5Tclose(fileType));
        ok(H5Tclose(memoryType));
        const HostTensor t = readTensor(File::openReadOnly(path), "/h");
        ASSERT_EQ(DType::Float16, t.dtype());
        EXPECT_EQ(0, std::memcmp(bits.data(), t.data(), t.nbytes()));
        EXPECT_EQ(1.0, t.getAsDouble(1));
    }
}

TEST(H5TensorRead, BFloat16StoredAsA16BitHdf5Float) {
    // Another writer's choice: bfloat16 as an HDF5 float with 8 exponent and 7 mantissa bits.
    ScratchDir dir;
    const std::string path = dir.file("bf16float.h5");
    const hid_t type = ok(H5Tcopy(H5T_IEEE_F32LE));
    ok(H5Tset_fields(type, 15, 7, 8, 0, 7));
    ok(H5Tset_size(type, 2));
    ok(H5Tset_ebias(type, 127));
    const std::vector<uint16_t> bits = {0x3f80, 0xc020, 0x7f80, 0x0000};  // 1, -2.5, inf, 0
    writeRawDataset(path, "w", type, type, {4}, bits.data());
    ok(H5Tclose(type));
    const File file = File::openReadOnly(path);
    const HostTensor t = readTensor(file, "/w");
    ASSERT_EQ(DType::BFloat16, t.dtype());
    EXPECT_EQ(0, std::memcmp(bits.data(), t.data(), t.nbytes()));
    EXPECT_EQ(-2.5, t.getAsDouble(1));
    EXPECT_EQ("bfloat16", datasetInfo(file, "/w").typeName);
}

TEST(H5TensorRead, H5pyBoolEnumAndScalars) {
    ScratchDir dir;
    const std::string path = dir.file("bool.h5");
    const hid_t boolType = ok(H5Tenum_create(H5T_NATIVE_INT8));
    const int8_t no = 0, yes = 1;
    ok(H5Tenum_insert(boolType, "FALSE", &no));
    ok(H5Tenum_insert(boolType, "TRUE", &yes));
    const int8_t values[4] = {1, 0, 0, 1};
    writeRawDataset(path, "b", boolType, boolType, {4}, values);
    ok(H5Tclose(boolType));
    const HostTensor b = readTensor(File::openReadOnly(path), "/b");
    ASSERT_EQ(DType::Bool, b.dtype());
    EXPECT_EQ((std::vector<double>{1, 0, 0, 1}), b.toDoubles());

    const double pi = 3.25;
    writeRawDataset(path, "s", H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE, {}, &pi);
    const HostTensor s = readTensor(File::openReadOnly(path), "/s");
    EXPECT_EQ(0, s.rank());
    EXPECT_EQ(3.25, s.getAsDouble(0));
}

// ---- files, groups, attributes ---------------------------------------------------------------

TEST(H5File, GroupsChildrenAndKinds) {
    ScratchDir dir;
    File file = File::create(dir.file("groups.h5"));
    file.createGroup("a/b//c/");
    file.createGroup("/a/b");  // already there: fine
    writeTensor(file, "/a/z", pattern(DType::Int8, {2}));
    writeTensor(file, "/a/m", pattern(DType::Int8, {2}));
    EXPECT_TRUE(file.isGroup("/a/b/c"));
    EXPECT_TRUE(file.isDataset("/a/z"));
    EXPECT_FALSE(file.isGroup("/a/z"));
    EXPECT_FALSE(file.exists("/a/q"));
    EXPECT_FALSE(file.exists("/a/z/under/a/dataset"));
    EXPECT_TRUE(file.exists("/"));
    EXPECT_EQ((std::vector<std::string>{"b", "m", "z"}), file.children("/a"));
    EXPECT_EQ("no group '/nope' in file '" + file.path() + "'", errorOf([&] { file.children("/nope"); }));
    EXPECT_CONTAINS(errorOf([&] { file.createGroup("/a/z/g"); }), "'/a/z' is a dataset");
    EXPECT_EQ("/a/b", normalizePath("a//b/"));
    EXPECT_EQ("/", normalizePath(""));
    EXPECT_EQ("/a", parentPath("/a/b"));
    EXPECT_EQ("/", parentPath("/a"));

    const std::vector<File::Child> listed = file.listChildren("a");
    ASSERT_EQ(3u, listed.size());
    EXPECT_EQ("b", listed[0].name);
    EXPECT_EQ(ObjectKind::Group, listed[0].info.kind);
    EXPECT_EQ(ObjectKind::Dataset, listed[2].info.kind);
    EXPECT_EQ(file.info("/a/z").identity, listed[2].info.identity);
}

TEST(H5File, ListingReadsAStringMarkerOfEachChildGroup) {
    ScratchDir dir;
    const std::string path = dir.file("marked.h5");
    {
        File file = File::create(path);
        for (const char* g : {"/a", "/b", "/c", "/e"}) file.createGroup(g);
        file.writeAttribute("/a", "op", "aclnnGroupNormBackward");
        file.writeAttribute("/b", "op", int64_t{3});
        file.writeAttribute("/e", "op", std::vector<std::string>{"x", "y"});
        writeTensor(file, "/d", pattern(DType::Int8, {2}));
        file.close();
    }
    const File file = File::openReadOnly(path);
    const std::vector<File::Child> listed = file.listChildren("/", "op");
    ASSERT_EQ(5u, listed.size());
    EXPECT_EQ(std::optional<std::string>("aclnnGroupNormBackward"), listed[0].marker);
    for (std::size_t i = 1; i < listed.size(); ++i) EXPECT_FALSE(listed[i].marker.has_value()) << listed[i].name;
    EXPECT_FALSE(file.listChildren("/")[0].marker.has_value());  // only when asked
}

TEST(H5File, AttributesLargerThan64KiB) {
    // Files are created in the 1.8 format, whose dense attribute storage lifts HDF5's 64 KiB limit.
    ScratchDir dir;
    const std::string path = dir.file("large.h5");
    const std::vector<double> many(20000, 0.5);
    const std::vector<std::string> names(5000, "a rather long operator name");
    {
        File file = File::create(path);
        file.writeAttribute("/", "many", many);
        file.writeAttribute("/", "names", names);
        file.close();
    }
    File file = File::openReadWrite(path);
    EXPECT_EQ(many, file.readAttribute<std::vector<double>>("/", "many"));
    EXPECT_EQ(names, file.readAttribute<std::vector<std::string>>("/", "names"));
}

TEST(H5File, AttributesOfEveryTypeRoundTrip) {
    ScratchDir dir;
    const std::string path = dir.file("attrs.h5");
    {
        File file = File::create(path);
        writeTensor(file, "/g/t", pattern(DType::Float32, {2}));
        for (const std::string object : {"/", "/g", "/g/t"}) {
            file.writeAttribute(object, "s", std::string("héllo, 世界"));
            file.writeAttribute(object, "c", "literal");
            file.writeAttribute(object, "i", -(int64_t{1} << 40));
            file.writeAttribute(object, "small", 7);  // int goes to int64
            file.writeAttribute(object, "d", 0.1);
            file.writeAttribute(object, "b", true);
            file.writeAttribute(object, "vi", std::vector<int64_t>{1, -2, 3});
            file.writeAttribute(object, "vd", std::vector<double>{0.5, -1e300});
            file.writeAttribute(object, "vs", std::vector<std::string>{"a", "", "ccc"});
            file.writeAttribute(object, "empty", std::vector<double>{});
            file.writeAttribute(object, "nostrings", std::vector<std::string>{});
        }
        file.writeAttribute("/g", "b", false);  // replaces, even with another type:
        file.writeAttribute("/g", "i", std::string("now a string"));
        file.close();
    }
    const File file = File::openReadOnly(path);
    for (const std::string object : {"/", "/g/t"}) {
        SCOPED_TRACE(object);
        EXPECT_EQ("héllo, 世界", file.readAttribute<std::string>(object, "s"));
        EXPECT_EQ("literal", file.readAttribute<std::string>(object, "c"));
        EXPECT_EQ(-(int64_t{1} << 40), file.readAttribute<int64_t>(object, "i"));
        EXPECT_EQ(7, file.readAttribute<int64_t>(object, "small"));
        EXPECT_EQ(7.0, file.readAttribute<double>(object, "small"));  // integers read as reals
        EXPECT_EQ(0.1, file.readAttribute<double>(object, "d"));
        EXPECT_TRUE(file.readAttribute<bool>(object, "b"));
        EXPECT_EQ((std::vector<int64_t>{1, -2, 3}), file.readAttribute<std::vector<int64_t>>(object, "vi"));
        EXPECT_EQ((std::vector<double>{0.5, -1e300}), file.readAttribute<std::vector<double>>(object, "vd"));
        EXPECT_EQ((std::vector<std::string>{"a", "", "ccc"}),
                  file.readAttribute<std::vector<std::string>>(object, "vs"));
        EXPECT_EQ((std::vector<int64_t>{7}), file.readAttribute<std::vector<int64_t>>(object, "small"));
        EXPECT_TRUE(file.readAttribute<std::vector<double>>(object, "empty").empty());
        EXPECT_TRUE(file.readAttribute<std::vector<std::string>>(object, "nostrings").empty());
        EXPECT_EQ((std::vector<std::string>{"b", "c", "d", "empty", "i", "nostrings", "s", "small", "vd", "vi", "vs"}),
                  file.attributeNames(object));
    }
    EXPECT_FALSE(file.readAttribute<bool>("/g", "b"));
    EXPECT_EQ("now a string", file.readAttribute<std::string>("/g", "i"));
    EXPECT_TRUE(file.hasAttribute("/g", "vs"));
    EXPECT_FALSE(file.hasAttribute("/g", "nope"));
    EXPECT_EQ("attribute 's' of '/g' in '" + path + "' is string, not an integer",
              errorOf([&] { file.readAttribute<int64_t>("/g", "s"); }));
    EXPECT_CONTAINS(errorOf([&] { file.readAttribute<int64_t>("/g", "vi"); }), "holds 3 values, not one");
    EXPECT_EQ("no attribute 'nope' of '/g' in '" + path + "'",
              errorOf([&] { file.readAttribute<double>("/g", "nope"); }));
    EXPECT_EQ("no object '/q' in file '" + path + "'", errorOf([&] { file.readAttribute<double>("/q", "x"); }));
}

TEST(H5File, ReadsFixedLengthStringAttributes) {
    ScratchDir dir;
    const std::string path = dir.file("fixed.h5");
    File::create(path).close();
    const hid_t file = ok(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    const hid_t type = ok(H5Tcopy(H5T_C_S1));
    ok(H5Tset_size(type, 8));
    const hid_t space = ok(H5Screate(H5S_SCALAR));
    const hid_t attribute = ok(H5Acreate2(file, "name", type, space, H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Awrite(attribute, type, "conv2d\0\0"));
    ok(H5Aclose(attribute));
    ok(H5Sclose(space));
    ok(H5Tclose(type));
    ok(H5Fclose(file));
    EXPECT_EQ("conv2d", File::openReadOnly(path).readAttribute<std::string>("/", "name"));
}

// ---- the lazy tree ---------------------------------------------------------------------------

// A chunked float64 dataset of 2^40 x 2^20 elements (8 EiB) that was never written: HDF5
// allows it, and listing or inspecting it must not touch its data.
void addEnormousDataset(const std::string& path, const char* name) {
    const hid_t file = ok(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    const hsize_t dims[2] = {hsize_t{1} << 40, hsize_t{1} << 20};
    const hsize_t chunk[2] = {256, 256};
    const hid_t space = ok(H5Screate_simple(2, dims, nullptr));
    const hid_t dcpl = ok(H5Pcreate(H5P_DATASET_CREATE));
    ok(H5Pset_chunk(dcpl, 2, chunk));
    ok(H5Pset_deflate(dcpl, 4));
    const hid_t dataset = ok(H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    ok(H5Dclose(dataset));
    ok(H5Pclose(dcpl));
    ok(H5Sclose(space));
    ok(H5Fclose(file));
}

TEST(H5Tree, ListsEverythingInNameOrderWithoutReadingData) {
    ScratchDir dir;
    const std::string path = dir.file("tree.h5");
    {
        File file = File::create(path);
        writeTensor(file, "/step1/out", pattern(DType::Float16, {2, 3}));
        writeTensor(file, "/step1/in/x", pattern(DType::BFloat16, {4}), WriteOptions{true, false});
        writeTensor(file, "/step0/loss", pattern(DType::Float32, {}));
        file.createGroup("/empty");
        file.writeAttribute("/step1", "op", "aclnnConvolutionBackward");
        file.writeAttribute("/step1", "index", 1);
        file.close();
    }
    addEnormousDataset(path, "/huge");
    // A hard link back to an ancestor and a soft link: listed, never walked into.
    const hid_t raw = ok(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    ok(H5Lcreate_hard(raw, "/step1", raw, "/step1/in/loop", H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Lcreate_soft("/step0", raw, "/alias", H5P_DEFAULT, H5P_DEFAULT));
    ok(H5Fclose(raw));

    const File file = File::openReadOnly(path);
    const std::vector<NodeInfo> nodes = listTree(file);
    std::vector<std::string> paths;
    for (const NodeInfo& n : nodes) paths.push_back(n.path);
    EXPECT_EQ((std::vector<std::string>{"/alias", "/empty", "/huge", "/step0", "/step0/loss", "/step1", "/step1/in",
                                        "/step1/in/loop", "/step1/in/x", "/step1/out"}),
              paths);
    auto node = [&](const std::string& p) {
        for (const NodeInfo& n : nodes)
            if (n.path == p) return n;
        throw std::runtime_error("no node " + p);
    };
    EXPECT_EQ(ObjectKind::Group, node("/step1").kind);
    EXPECT_EQ(2, node("/step1").attributeCount);
    EXPECT_EQ(1, node("/step1").depth);
    EXPECT_EQ(3, node("/step1/in/x").depth);
    EXPECT_EQ("x", node("/step1/in/x").name);
    EXPECT_EQ(DType::BFloat16, node("/step1/in/x").dataset.dtype);
    EXPECT_TRUE(node("/step1/in/x").dataset.compressed);
    EXPECT_EQ(1, node("/step1/in/x").attributeCount);  // the opscope_dtype mark
    EXPECT_EQ((std::vector<int64_t>{2, 3}), node("/step1/out").dataset.shape);
    EXPECT_EQ(0u, node("/step0/loss").dataset.shape.size());
    const DatasetInfo huge = node("/huge").dataset;
    EXPECT_EQ((std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 20}), huge.shape);
    EXPECT_EQ(DType::Float64, huge.dtype);
    EXPECT_EQ(0u, huge.storageBytes);
    EXPECT_EQ(int64_t{1} << 60, huge.numel());

    const std::vector<NodeInfo> top = listTree(file, "/", 1);
    EXPECT_EQ(5u, top.size());
    // From /step1/in, "loop" (= /step1) is new and is walked once; its "in" is not walked again.
    std::vector<std::string> subPaths;
    for (const NodeInfo& n : listTree(file, "/step1/in")) subPaths.push_back(n.path);
    EXPECT_EQ((std::vector<std::string>{"/step1/in/loop", "/step1/in/loop/in", "/step1/in/loop/out", "/step1/in/x"}),
              subPaths);
    EXPECT_TRUE(listTree(file, "/empty").empty());
    EXPECT_CONTAINS(errorOf([&] { listTree(file, "/huge"); }), "is a dataset, not a group");
}

// ---- errors: one sentence each, nothing printed -----------------------------------------------

TEST(H5Errors, UnopenableFiles) {
    ScratchDir dir;
    testing::internal::CaptureStderr();
    const std::string missing = dir.file("missing.h5");
    EXPECT_EQ("cannot open '" + missing + "': no such file or directory",
              errorOf([&] { File::openReadOnly(missing); }));

    const std::string garbage = dir.file("garbage.h5");
    std::ofstream(garbage) << std::string(4096, 'x');
    EXPECT_EQ("cannot open '" + garbage + "': not an HDF5 file (or it is truncated/corrupt)",
              errorOf([&] { File::openReadOnly(garbage); }));

    const std::string truncated = dir.file("truncated.h5");
    {
        File file = File::create(truncated);
        writeTensor(file, "/x", pattern(DType::Float64, {1000}));
        file.close();
    }
    fs::resize_file(truncated, fs::file_size(truncated) / 2);
    EXPECT_EQ("cannot open '" + truncated + "': not an HDF5 file (or it is truncated/corrupt)",
              errorOf([&] { File::openReadWrite(truncated); }));

    EXPECT_CONTAINS(errorOf([&] { File::create(dir.file("no/such/dir/x.h5")); }), "no such file or directory");
    EXPECT_EQ("", testing::internal::GetCapturedStderr());  // HDF5's own stack printing is off
}

TEST(H5Errors, DatasetsThatAreNotTensors) {
    ScratchDir dir;
    const std::string path = dir.file("bad.h5");
    {
        File file = File::create(path);
        file.createGroup("/group");
        file.close();
    }
    addEnormousDataset(path, "/huge");
    {
        const hid_t file = ok(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        const hid_t scalar = ok(H5Screate(H5S_SCALAR));
        const hid_t text = ok(H5Tcopy(H5T_C_S1));
        ok(H5Tset_size(text, H5T_VARIABLE));
        const char* hello = "hello";
        const hid_t strings = ok(H5Dcreate2(file, "/string", text, scalar, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ok(H5Dwrite(strings, text, H5S_ALL, H5S_ALL, H5P_DEFAULT, &hello));
        const hid_t pair = ok(H5Tcreate(H5T_COMPOUND, 16));
        ok(H5Tinsert(pair, "r", 0, H5T_NATIVE_DOUBLE));
        ok(H5Tinsert(pair, "i", 8, H5T_NATIVE_DOUBLE));
        const hid_t complexSet = ok(H5Dcreate2(file, "/complex", pair, scalar, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        const hsize_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
        const hid_t rank9 = ok(H5Screate_simple(9, nine, nullptr));
        const hid_t deep =
            ok(H5Dcreate2(file, "/rank9", H5T_NATIVE_INT8, rank9, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        for (hid_t id : {deep, complexSet, strings}) ok(H5Dclose(id));
        ok(H5Sclose(rank9));
        ok(H5Tclose(pair));
        ok(H5Tclose(text));
        ok(H5Sclose(scalar));
        ok(H5Fclose(file));
    }
    testing::internal::CaptureStderr();
    const File file = File::openReadOnly(path);
    EXPECT_EQ("no dataset '/a/b' in file '" + path + "'", errorOf([&] { readTensor(file, "/a/b"); }));
    EXPECT_EQ("no dataset '/group/x' in file '" + path + "'", errorOf([&] { readTensor(file, "group/x"); }));
    EXPECT_EQ("'/group' in file '" + path + "' is a group, not a dataset",
              errorOf([&] { readTensor(file, "/group"); }));
    // Listing says the same of a dataset where a group is needed.
    EXPECT_EQ("'/string' in file '" + path + "' is a dataset, not a group", errorOf([&] { file.children("/string"); }));
    EXPECT_EQ("no group '/a' in file '" + path + "'", errorOf([&] { file.children("/a"); }));
    EXPECT_EQ("dataset '/string' in '" + path + "' holds string data, not a numeric tensor",
              errorOf([&] { readTensor(file, "/string"); }));
    EXPECT_EQ("dataset '/complex' in '" + path + "' holds compound data, not a numeric tensor",
              errorOf([&] { readTensor(file, "/complex"); }));
    EXPECT_CONTAINS(errorOf([&] { readTensor(file, "/rank9"); }), "has rank 9, more than the 8 dimensions");
    const std::string huge = errorOf([&] { readTensor(file, "/huge"); });
    EXPECT_CONTAINS(huge, "dataset '/huge' in '" + path + "' has shape [1099511627776, 1048576] of float64 (8.0 EiB)");
    EXPECT_CONTAINS(huge, "more than this machine's memory");
    // Inspection still works for all of them.
    EXPECT_EQ("string", datasetInfo(file, "/string").typeName);
    EXPECT_EQ(DType::Undefined, datasetInfo(file, "/complex").dtype);
    EXPECT_EQ(9u, datasetInfo(file, "/rank9").shape.size());
    EXPECT_EQ("", testing::internal::GetCapturedStderr());
}

TEST(H5Errors, SilentOnWorkerThreadsToo) {
    // Thread-safe HDF5 builds keep the error-printing switch per thread.
    ScratchDir dir;
    testing::internal::CaptureStderr();
    std::string message;
    std::thread worker([&] { message = errorOf([&] { File::openReadOnly(dir.file("absent.h5")); }); });
    worker.join();
    EXPECT_CONTAINS(message, "no such file or directory");
    EXPECT_EQ("", testing::internal::GetCapturedStderr());
}

// ---- handles ---------------------------------------------------------------------------------

// Open files, groups, datasets, named types and attributes in the process. HDF5 frees leaked
// identifiers at exit, so valgrind cannot see them. (Transient types, dataspaces and property
// lists are not counted by HDF5; they go through the same Handle.)
ssize_t openObjectCount() { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); }

TEST(H5File, ACreatedFileKnowsItsObjectsAsTheFileDoes) {
    // A created file answers kinds from what it wrote, without asking HDF5: the answers must be
    // those of the file read back, for intermediate groups, replaced and refused datasets.
    ScratchDir dir;
    const std::string path = dir.file("kinds.h5");
    const std::vector<std::string> paths = {"/", "/a", "/a/b", "/a/b/c", "/a/x", "/a/x/y", "/t", "/t/rows", "/q"};
    std::vector<ObjectKind> written;
    {
        File file = File::create(path);
        file.createGroup("/a/b/c");
        writeTensor(file, "/a/x", pattern(DType::Int32, {3}));
        writeTensor(file, "/a/x", pattern(DType::Float64, {2}), WriteOptions{false, true});
        EXPECT_CONTAINS(errorOf([&] { writeTensor(file, "/a/b", pattern(DType::Int32, {3})); }), "is a group");
        EXPECT_CONTAINS(errorOf([&] { file.createGroup("/a/x/y"); }), "'/a/x' is a dataset");
        EXPECT_CONTAINS(errorOf([&] { writeTensor(file, "/a/x/y", pattern(DType::Int32, {1})); }), "is a dataset");
        writeTensor(file, "/t/rows", pattern(DType::Int8, {4}));
        for (const std::string& p : paths) written.push_back(file.kindOf(p));
        file.close();
    }
    EXPECT_EQ(ObjectKind::Group, written[2]);
    EXPECT_EQ(ObjectKind::Dataset, written[4]);
    EXPECT_EQ(ObjectKind::Missing, written[5]);
    const File file = File::openReadOnly(path);
    for (std::size_t i = 0; i < paths.size(); ++i) EXPECT_EQ(file.info(paths[i]).kind, written[i]) << paths[i];
    expectSameTensor(pattern(DType::Float64, {2}), readTensor(file, "/a/x"));
}

TEST(H5File, ACreatedFileWritesFromItsOpenGroupsAndClosesThemAll) {
    // A created file keeps the groups it wrote last open (each case's objects are written from
    // them); writing back to an older group, and closing, must still be exact.
    ScratchDir dir;
    const std::string path = dir.file("created.h5");
    const ssize_t before = openObjectCount();
    {
        File file = File::create(path);
        for (int i = 0; i < 20; ++i) {
            const std::string c = "/cases/rank0/case" + std::to_string(i);
            file.createGroup(c);
            file.writeAttribute(c, "op", "aclnnRmsNormGrad");
            file.writeAttribute(c, "index", int64_t{i});
            writeTensor(file, c + "/inputs/x", pattern(DType::Float32, {2, 3}));
            writeTensor(file, c + "/npu/y", pattern(DType::Int8, {4}));
            file.writeAttribute(c + "/npu", "role", "actual");
        }
        file.writeAttribute("/cases/rank0/case3", "late", std::vector<bool>{true, false});  // long since evicted
        writeTensor(file, "/cases/rank0/case3/inputs/x", pattern(DType::Float32, {1}), WriteOptions{false, true});
        EXPECT_LE(openObjectCount(), before + 1 + 8);  // the file and at most 8 groups
        file.close();
    }
    EXPECT_EQ(before, openObjectCount());
    File file = File::openReadOnly(path);
    for (int i = 0; i < 20; ++i) {
        const std::string c = "/cases/rank0/case" + std::to_string(i);
        EXPECT_EQ(i, file.readAttribute<int64_t>(c, "index"));
        EXPECT_EQ("actual", file.readAttribute<std::string>(c + "/npu", "role"));
        const std::vector<int64_t> shape = i == 3 ? std::vector<int64_t>{1} : std::vector<int64_t>{2, 3};
        EXPECT_EQ(shape, readTensor(file, c + "/inputs/x").shape());
    }
    EXPECT_EQ(ParamValue(std::vector<bool>{true, false}), readAttributeValue(file, "/cases/rank0/case3", "late"));
}

TEST(H5Handles, NoIdentifierOutlivesItsCallEvenOnErrors) {
    ScratchDir dir;
    const std::string path = dir.file("ids.h5");
    File::create(path).close();
    addEnormousDataset(path, "/huge");
    const ssize_t before = openObjectCount();
    {
        File file = File::openReadWrite(path);
        for (DType dtype : kAllDTypes)
            writeTensor(file, "/t/" + std::string(dtypeName(dtype)), pattern(dtype, {3, 2}), WriteOptions{true, false});
        file.writeAttribute("/t", "names", std::vector<std::string>{"a", "b"});
        file.writeAttribute("/t", "flag", true);
        for (DType dtype : kAllDTypes) readTensor(file, "/t/" + std::string(dtypeName(dtype)));
        file.readAttribute<std::vector<std::string>>("/t", "names");
        file.readAttribute<bool>("/t", "flag");
        listTree(file);
        errorOf([&] { readTensor(file, "/huge"); });
        errorOf([&] { readTensor(file, "/t"); });
        errorOf([&] { file.readAttribute<int64_t>("/t", "names"); });
        errorOf([&] { writeTensor(file, "/t/float32", pattern(DType::Float32, {1})); });
        errorOf([&] { File::openReadOnly(dir.file("absent.h5")); });
        EXPECT_EQ(before + 1, openObjectCount());  // only the file itself
        file.close();
    }
    EXPECT_EQ(before, openObjectCount());
}

// ---- atomic writes ---------------------------------------------------------------------------

std::string contents(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(H5AtomicWrite, CommitReplacesTheDestination) {
    ScratchDir dir;
    const std::string destination = dir.file("out.h5");
    std::ofstream(destination) << "old";
    fs::permissions(destination, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    std::string temp;
    {
        AtomicFileWriter writer(destination);
        temp = writer.tempPath().string();
        EXPECT_EQ(fs::path(destination).parent_path(), writer.tempPath().parent_path());
        EXPECT_EQ(0u, writer.tempPath().filename().string().find("out.h5.tmp-"));
        File file = File::create(temp);
        writeTensor(file, "/x", pattern(DType::Int16, {5}));
        file.close();
        EXPECT_EQ("old", contents(destination));  // untouched until commit
        writer.commit();
        EXPECT_TRUE(writer.committed());
    }
    EXPECT_FALSE(fs::exists(temp));
    expectSameTensor(pattern(DType::Int16, {5}), readTensor(File::openReadOnly(destination), "/x"));
    EXPECT_EQ(fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read,
              fs::status(destination).permissions());
}

TEST(H5AtomicWrite, AbandonedWriteLeavesTheDestinationAlone) {
    ScratchDir dir;
    const std::string destination = dir.file("out.csv");
    std::ofstream(destination) << "old";
    std::string temp;
    {
        AtomicFileWriter writer(destination);
        temp = writer.tempPath().string();
        std::ofstream(temp) << "half a fi";
    }
    EXPECT_FALSE(fs::exists(temp));
    EXPECT_EQ("old", contents(destination));

    AtomicFileWriter nothingWritten(dir.file("never.json"));
    try {
        nothingWritten.commit();
        ADD_FAILURE() << "commit without a file should throw";
    } catch (const std::runtime_error& e) {
        EXPECT_CONTAINS(e.what(), "nothing was written");
    }
}

TEST(H5AtomicWrite, RefusesToOverwriteAnInput) {
    ScratchDir dir;
    const std::string input = dir.file("trace.h5");
    std::ofstream(input) << "input";
    fs::create_symlink(input, dir.file("link.h5"));
    fs::create_hard_link(input, dir.file("hard.h5"));
    const std::vector<fs::path> inputs = {dir.file("other.h5"), input};
    for (const std::string& spelling :
         {input, dir.file("./trace.h5"), dir.file("sub/../trace.h5"), dir.file("link.h5"), dir.file("hard.h5")}) {
        SCOPED_TRACE(spelling);
        try {
            AtomicFileWriter writer(spelling, inputs);
            ADD_FAILURE() << "an input was accepted as the output";
        } catch (const std::runtime_error& e) {
            EXPECT_EQ("cannot write '" + spelling + "': it is also an input ('" + input +
                          "'), and outputs never overwrite inputs",
                      std::string(e.what()));
        }
    }
    EXPECT_EQ("input", contents(input));
    EXPECT_NO_THROW(AtomicFileWriter(dir.file("fresh.h5"), inputs));
    EXPECT_THROW(AtomicFileWriter(dir.file("no/such/dir/out.h5")), std::runtime_error);
}

}  // namespace

// ---- chunks compressed off the writing thread -------------------------------------------------

namespace {

// The raw (still filtered) bytes and filter mask of every chunk of a dataset, in storage order.
std::vector<std::pair<uint32_t, std::vector<uint8_t>>> rawChunks(const std::string& file, const std::string& name) {
    std::vector<std::pair<uint32_t, std::vector<uint8_t>>> out;
    const hid_t f = ok(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const hid_t d = ok(H5Dopen2(f, name.c_str(), H5P_DEFAULT));
    const hid_t space = ok(H5Dget_space(d));
    hsize_t count = 0;
    ok(H5Dget_num_chunks(d, space, &count));
    for (hsize_t i = 0; i < count; ++i) {
        hsize_t offset[8] = {}, size = 0;
        haddr_t address = 0;
        unsigned mask = 0;
        ok(H5Dget_chunk_info(d, space, i, offset, &mask, &address, &size));
        std::vector<uint8_t> bytes(size);
        uint32_t readMask = 0;
        ok(H5Dread_chunk(d, H5P_DEFAULT, offset, &readMask, bytes.data()));
        out.emplace_back(readMask, std::move(bytes));
    }
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    return out;
}

}  // namespace

TEST(CompressedChunks, ChunkShapeHalvesTheLargestAxisToAboutOneMiB) {
    EXPECT_EQ((std::vector<ChunkDim>{150000}), chunkShapeFor({600000}, 4));
    // 3x601x300 float32 is 2.1 MB: 601 -> 301 (1.08 MB, still over) -> 151.
    EXPECT_EQ((std::vector<ChunkDim>{3, 151, 300}), chunkShapeFor({3, 601, 300}, 4));
    EXPECT_EQ((std::vector<ChunkDim>{10, 20}), chunkShapeFor({10, 20}, 8));  // small: one chunk
}

TEST(CompressedChunks, OffsetsInRowMajorOrderIncludingEdgeChunks) {
    const HostTensor t = pattern(DType::Float32, {3, 601, 300});
    const CompressedChunks c = compressChunks(t);
    ASSERT_EQ(4u, c.chunks.size());  // 601 rows in chunks of 151: the last holds 148
    EXPECT_EQ((std::vector<ChunkDim>{0, 0, 0}), c.chunkOffset(0));
    EXPECT_EQ((std::vector<ChunkDim>{0, 453, 0}), c.chunkOffset(3));
    EXPECT_NE(std::string("(no error)"),
              test::errorOf<UsageError>([] { compressChunks(HostTensor(DType::Float32, {})); }));
    EXPECT_NE(std::string("(no error)"), test::errorOf<UsageError>([] {
                  compressChunks(HostTensor(DType::Float32, {4, 0}));
              }));
}

// Chunks compressed by compressChunks are stored byte for byte as HDF5's own shuffle + gzip
// pipeline stores them (edge chunks included), and read back to the same tensor.
TEST(CompressedChunks, SameStoredBytesAsHdf5sOwnFilters) {
    ScratchDir dir;
    const std::string path = dir.file("chunks.h5");
    const std::vector<std::pair<DType, std::vector<int64_t>>> tensors = {
        {DType::Float32, {3, 601, 300}}, {DType::BFloat16, {1100, 700}}, {DType::Float16, {70000}},
        {DType::Float64, {2, 5, 9000}},  {DType::Int64, {130001}},       {DType::Bool, {1200, 1000}}};
    std::vector<CompressedChunks> compressed;
    for (const auto& [dtype, shape] : tensors) compressed.push_back(compressChunks(pattern(dtype, shape)));
    {
        File f = File::create(path);
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            const HostTensor t = pattern(tensors[i].first, tensors[i].second);
            WriteOptions byHdf5, precompressed;
            byHdf5.compress = precompressed.compress = true;
            precompressed.precompressed = &compressed[i];
            writeTensor(f, "/hdf5/" + std::to_string(i), t, byHdf5);
            writeTensor(f, "/ours/" + std::to_string(i), t, precompressed);
        }
    }
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        SCOPED_TRACE(dtypeName(tensors[i].first));
        const auto expected = rawChunks(path, "/hdf5/" + std::to_string(i));
        const auto actual = rawChunks(path, "/ours/" + std::to_string(i));
        ASSERT_EQ(compressed[i].chunks.size(), expected.size());
        EXPECT_EQ(expected, actual);
    }
    File f = File::openReadOnly(path);
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        SCOPED_TRACE(dtypeName(tensors[i].first));
        expectSameTensor(pattern(tensors[i].first, tensors[i].second), readTensor(f, "/ours/" + std::to_string(i)));
        EXPECT_TRUE(datasetInfo(f, "/ours/" + std::to_string(i)).compressed);
    }
}

TEST(CompressedChunks, ChunksOfAnotherTensorAreRefused) {
    ScratchDir dir;
    File f = File::create(dir.file("other.h5"));
    const CompressedChunks c = compressChunks(pattern(DType::Float32, {300000}));
    WriteOptions o;
    o.compress = true;
    o.precompressed = &c;
    EXPECT_NE(std::string("(no error)"),
              test::errorOf<UsageError>([&] { writeTensor(f, "/x", pattern(DType::Float32, {300001}), o); }));
}
