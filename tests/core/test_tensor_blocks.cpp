// TensorFile::readBlock: a block of a tensor read from the bytes it covers. Every block of every
// reader fixture (C and Fortran .npy, big-endian, .npz stored and deflated, .pt views with offsets
// and transposed strides, .safetensors) must equal the same block cut from the tensor read whole;
// a block of a 4 GiB tensor costs the block's memory, not the tensor's.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "opscope/import/format_error.h"
#include "opscope/import/npy.h"
#include "opscope/import/tensor_file.h"
#include "opscope/row_major_blocks.h"
#include "reader_fixtures.h"
#include "scratch_dir.h"

using namespace opscope;
using opscope::test::errorOf;

namespace {

// The block cut from the whole tensor, element by element (the oracle: no reader code).
std::vector<char> expectedBlock(const HostTensor& whole, const std::vector<int64_t>& start,
                                const std::vector<int64_t>& count) {
    const std::size_t size = dtypeSize(whole.dtype());
    const std::vector<int64_t> strides = TensorView::contiguousStrides(whole.shape());
    const int64_t n = shapeNumel(count);
    std::vector<char> out(static_cast<std::size_t>(n) * size);
    for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i, at = 0;
        for (std::size_t a = count.size(); a-- > 0;) {
            at += (start[a] + rest % count[a]) * strides[a];
            rest /= count[a];
        }
        std::memcpy(out.data() + static_cast<std::size_t>(i) * size,
                    static_cast<const char*>(whole.data()) + static_cast<std::size_t>(at) * size, size);
    }
    return out;
}

// Blocks of every kind for a shape: the whole, each axis's first and last index alone, an
// inner box, and rows of the last two axes one at a time (what the debugger's bands read).
std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> blocksOf(const std::vector<int64_t>& shape) {
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> out;
    const std::vector<int64_t> zero(shape.size(), 0);
    out.emplace_back(zero, shape);
    for (std::size_t a = 0; a < shape.size(); ++a) {
        if (shape[a] == 0) continue;
        for (int64_t at : {int64_t{0}, shape[a] - 1}) {
            auto start = zero, count = shape;
            start[a] = at;
            count[a] = 1;
            out.emplace_back(start, count);
        }
    }
    auto start = zero, count = shape;
    for (std::size_t a = 0; a < shape.size(); ++a) {
        start[a] = shape[a] / 3;
        count[a] = shape[a] - 2 * start[a];
    }
    out.emplace_back(start, count);
    return out;
}

}  // namespace

TEST(TensorBlocks, EveryBlockOfEveryFixtureIsItsCutFromTheWhole) {
    int blocks = 0;
    for (const test::ReaderFixture& f : test::manifest()) {
        SCOPED_TRACE(f.file + (f.key.empty() ? "" : ":" + f.key));
        const import::TensorFile file((test::readersDir() / f.file).string());
        const HostTensor whole = file.read(f.key);
        const import::TensorEntry entry = file.entry(f.key);
        EXPECT_EQ(entry.dtype, whole.dtype());
        EXPECT_EQ(entry.shape, whole.shape());
        for (const auto& [start, count] : blocksOf(whole.shape())) {
            SCOPED_TRACE("block at " + shapeToString(start) + " of " + shapeToString(count));
            const HostTensor block = file.readBlock(f.key, start, count);
            ASSERT_EQ(block.shape(), count);
            ASSERT_EQ(block.dtype(), whole.dtype());
            const std::vector<char> expected = expectedBlock(whole, start, count);
            ASSERT_EQ(block.nbytes(), expected.size());
            if (!expected.empty())  // an empty tensor's data may be null, which memcmp may not take
                EXPECT_EQ(std::memcmp(block.data(), expected.data(), expected.size()), 0);
            ++blocks;
        }
    }
    EXPECT_GE(blocks, 400);
}

TEST(TensorBlocks, ABlockOutsideTheTensorIsRefusedNamingIt) {
    const std::string path = (test::readersDir() / "float32_c.npy").string();
    const import::TensorFile file(path);
    const std::vector<int64_t> shape = file.entry("").shape;
    ASSERT_EQ(shape.size(), 3u);
    const std::string why = errorOf<std::invalid_argument>([&] { file.readBlock("", {0, 0, 1}, shape); });
    EXPECT_NE(why.find("does not lie in '" + path + "' " + shapeToString(shape)), std::string::npos) << why;
    EXPECT_NE(errorOf<std::invalid_argument>([&] {
                  file.readBlock("", {0, 0}, {1, 1});
              }).find("does not lie"),
              std::string::npos);
}

// A row and a column of a 4 GiB float32 matrix (a sparse .npy; its data a hole read as zeros
// but for two written rows): each costs its own bytes. The column reads one element per row,
// not the rows around it.
TEST(TensorBlocks, ARowOrAColumnOfA4GiBNpyCostsItsOwnBytes) {
    test::ScratchDir dir("blocks");
    const std::string path = dir.file("big.npy");
    const int64_t rows = 32768, cols = 32768;
    HostTensor head(DType::Float32, {1, cols});
    for (int64_t c = 0; c < cols; ++c) head.dataAs<float>()[c] = static_cast<float>(c);
    std::string bytes = import::npyBytes(head.view());
    const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (32768, 32768), }";
    const std::size_t headerStart = 10, oldLength = bytes[8] | (bytes[9] << 8);
    std::string padded = header;
    padded.append(oldLength - 1 - header.size(), ' ');
    padded += '\n';
    bytes.replace(headerStart, oldLength, padded);  // the same header length: the data stays at its offset
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    std::filesystem::resize_file(path, headerStart + oldLength + uint64_t(4) * rows * cols);
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const import::TensorFile file(path);
    EXPECT_EQ(file.entry("").shape, (std::vector<int64_t>{rows, cols}));
    const HostTensor row = file.readBlock("", {0, 0}, {1, cols});
    EXPECT_EQ(row.getAsDouble(cols - 1), static_cast<double>(cols - 1));
    const HostTensor column = file.readBlock("", {0, 5}, {rows, 1});
    EXPECT_EQ(column.getAsDouble(0), 5.0);
    EXPECT_EQ(column.getAsDouble(rows - 1), 0.0);
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB of peak memory grew";
}

// rowMajorBlocks: contiguous runs in row-major order, covering each element once, none over the
// limit (but for a single element bigger than it).
TEST(RowMajorBlocks, CoverATensorInOrderWithinTheLimit) {
    struct Case {
        std::vector<int64_t> shape;
        uint64_t maxBytes;
        std::size_t blocks;
    } cases[] = {
        {{6, 8, 10}, 4 * 480, 1},  // all of it fits
        {{6, 8, 10}, 4 * 80, 6},   // one [8, 10] slab a block
        {{6, 8, 10}, 4 * 170, 3},  // two slabs a block
        {{6, 8, 10}, 4 * 30, 18},  // three rows of 10 a block (8 = 3 + 3 + 2)
        {{6, 8, 10}, 4 * 7, 96},   // a row in two (7 + 3)
        {{1000}, 4 * 300, 4},      // 300, 300, 300, 100
        {{}, 4, 1},                // a scalar
        {{3, 0, 2}, 4, 0},         // no elements
        {{5}, 1, 5},               // a limit below one element: one each
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(shapeToString(c.shape) + " in blocks of " + std::to_string(c.maxBytes) + " bytes");
        const std::vector<TensorBlock> blocks = rowMajorBlocks(c.shape, 4, c.maxBytes);
        EXPECT_EQ(blocks.size(), c.blocks);
        const std::vector<int64_t> strides = TensorView::contiguousStrides(c.shape);
        int64_t next = 0;  // the row-major index each block must start at
        for (const TensorBlock& b : blocks) {
            int64_t first = 0;
            for (std::size_t a = 0; a < c.shape.size(); ++a) {
                first += b.start[a] * strides[a];
                EXPECT_LE(b.start[a] + b.count[a], c.shape[a]);
            }
            EXPECT_EQ(first, next);
            EXPECT_LE(uint64_t(shapeNumel(b.count)) * 4, std::max<uint64_t>(c.maxBytes, 4));
            // Contiguous: every axis after the first one counting more than 1 is whole.
            bool whole = false;
            for (std::size_t a = 0; a < c.shape.size(); ++a) {
                if (whole) EXPECT_EQ(b.count[a], c.shape[a]);
                whole = whole || b.count[a] > 1;
            }
            next += shapeNumel(b.count);
        }
        EXPECT_EQ(next, c.blocks ? shapeNumel(c.shape) : 0);
    }
}

// A whole .npy goes from the file into its tensor: a 256 MiB one costs 256 MiB, not the file's
// bytes read into memory and then copied (512 MiB).
TEST(TensorBlocks, AWholeNpyIsReadStraightIntoItsTensor) {
    test::ScratchDir dir("whole");
    const std::string path = dir.file("w.npy");
    HostTensor head(DType::Float32, {1, 8192});
    head.dataAs<float>()[5] = 3.0f;
    std::string bytes = import::npyBytes(head.view());
    const std::size_t length = static_cast<std::size_t>(bytes[8] | (bytes[9] << 8));
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (8192, 8192), }";
    header.append(length - 1 - header.size(), ' ');
    bytes.replace(10, length, header + "\n");
    std::ofstream(path, std::ios::binary) << bytes;
    std::filesystem::resize_file(path, 10 + length + uint64_t(4) * 8192 * 8192);
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const HostTensor t = import::readTensorFile(path);
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    EXPECT_EQ(t.getAsDouble(5), 3.0);
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 384 * 1024) << "KiB of peak memory grew";
}
