// Reading a block of a dataset by hyperslab (h5::readTensorBlock): the values equal the same
// block of the whole tensor, for contiguous and chunked-compressed storage; a block outside the
// shape is a sentence, not a read.
#include <gtest/gtest.h>

#include "opscope/error.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/view/slice.h"
#include "scratch_dir.h"

namespace opscope::h5 {
namespace {

using test::ScratchDir;

HostTensor iota(DType dt, std::vector<int64_t> shape) {
    std::vector<double> v(static_cast<std::size_t>(shapeNumel(shape)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) * 0.5;
    return HostTensor::fromDoubles(dt, std::move(shape), v);
}

TEST(H5Block, ABlockEqualsThatBlockOfTheWholeTensor) {
    ScratchDir dir;
    const HostTensor t = iota(DType::Float32, {5, 6, 7});
    {
        File f = File::create(dir.file("t.h5"));
        writeTensor(f, "/plain", t);
        WriteOptions packed;
        packed.compress = true;
        writeTensor(f, "/packed", t, packed);
        writeTensor(f, "/half", iota(DType::Float16, {4, 3}));
    }
    const File f = File::openReadOnly(dir.file("t.h5"));
    for (const char* path : {"/plain", "/packed"}) {
        const HostTensor b = readTensorBlock(f, path, {2, 0, 3}, {1, 6, 2});  // one [6, 2] plane
        ASSERT_EQ(b.shape(), (std::vector<int64_t>{1, 6, 2}));
        for (int64_t r = 0; r < 6; ++r)
            for (int64_t c = 0; c < 2; ++c)
                EXPECT_EQ(b.getAsDouble(r * 2 + c), view::elementValue(t.view(), {2, r, 3 + c})) << path;
    }
    const HostTensor h = readTensorBlock(f, "/half", {1, 1}, {2, 2});
    EXPECT_EQ(h.dtype(), DType::Float16);
    EXPECT_EQ(h.getAsDouble(3), 0.5 * (2 * 3 + 2));
    EXPECT_EQ(readTensorBlock(f, "/plain", {5, 0, 0}, {0, 6, 7}).numel(), 0);  // empty at the end: fine
}

TEST(H5Block, ABlockOutsideTheShapeIsRefused) {
    ScratchDir dir;
    {
        File f = File::create(dir.file("t.h5"));
        writeTensor(f, "/x", iota(DType::Float64, {4, 4}));
    }
    const File f = File::openReadOnly(dir.file("t.h5"));
    EXPECT_THROW(readTensorBlock(f, "/x", {3, 0}, {2, 4}), UsageError);   // past the end
    EXPECT_THROW(readTensorBlock(f, "/x", {-1, 0}, {1, 4}), UsageError);  // negative
    EXPECT_THROW(readTensorBlock(f, "/x", {0}, {4}), UsageError);         // wrong rank
    try {
        readTensorBlock(f, "/x", {3, 0}, {2, 4});
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("is not inside its shape [4, 4]"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace opscope::h5
