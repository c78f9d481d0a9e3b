#include "session/dataset_read.h"

#include <algorithm>
#include <future>
#include <stdexcept>

#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/import/tensor_file.h"

namespace opscope::gui {

namespace {

// Vets the file (its metadata, and the data of dataPaths), opens it and checks that `path` is
// a dataset.
h5::File openVettedDataset(const std::string& file, const std::string& path,
                           const std::vector<std::string>& dataPaths) {
    h5::vetFile(file, dataPaths);
    h5::File f = h5::File::openReadOnly(file);
    const h5::ObjectKind kind = f.info(path).kind;
    if (kind == h5::ObjectKind::Missing) throw std::runtime_error("no dataset '" + path + "' in '" + file + "'");
    if (kind != h5::ObjectKind::Dataset)
        throw std::runtime_error("'" + path + "' in '" + file + "' is a " + h5::kindName(kind) + ", not a dataset");
    return f;
}

}  // namespace

HostTensor readDatasetVetted(const std::string& file, const std::string& path) {
    return h5::readTensor(openVettedDataset(file, path, {path}), path);
}

SliceBlock sliceBlock(const std::vector<int64_t>& shape, const view::SliceSpec& given) {
    const view::SliceSpec s = view::normalizeSlice(shape, given);
    SliceBlock b{std::vector<int64_t>(shape.size(), 0), shape};
    for (std::size_t a = 0; a < shape.size(); ++a) {
        const int axis = static_cast<int>(a);
        if (axis == s.rowAxis || axis == s.colAxis) continue;
        b.start[a] = s.index[a];
        b.count[a] = 1;
    }
    return b;
}

namespace {

// The slice block cut into bands of rows (along the slice's row axis) of at most maxBytes.
std::vector<h5::DataBlock> rowBands(const std::string& path, const SliceBlock& block, int rowAxis, DType dtype,
                                    uint64_t maxBytes) {
    const uint64_t rowBytes = static_cast<uint64_t>(shapeNumel(block.count) / block.count[rowAxis]) * dtypeSize(dtype);
    const int64_t rowsPerBand = std::max<int64_t>(1, static_cast<int64_t>(maxBytes / std::max<uint64_t>(1, rowBytes)));
    std::vector<h5::DataBlock> bands;
    for (int64_t r = 0; r < block.count[rowAxis]; r += rowsPerBand) {
        h5::DataBlock b{path, block.start, block.count};
        b.start[rowAxis] = block.start[rowAxis] + r;
        b.count[rowAxis] = std::min(rowsPerBand, block.count[rowAxis] - r);
        bands.push_back(std::move(b));
    }
    return bands;
}

// Which bands each vetting child reads: 1, 2, 4, ... of them (at most kMaxBandsPerChild), so
// that the first band is vetted soon and later children start rarely. [begin, end) each.
constexpr std::size_t kMaxBandsPerChild = 8;
std::vector<std::pair<std::size_t, std::size_t>> vettingGroups(std::size_t bands) {
    std::vector<std::pair<std::size_t, std::size_t>> groups;
    for (std::size_t begin = 0, size = 1; begin < bands; begin += size, size = std::min(2 * size, kMaxBandsPerChild))
        groups.emplace_back(begin, std::min(bands, begin + size));
    return groups;
}

// What the view's reading policy needs of one dataset, whichever kind of file holds it.
struct DatasetSource {
    std::vector<int64_t> shape;
    DType dtype = DType::Undefined;
    std::function<HostTensor()> readWhole;
    std::function<HostTensor(const SliceBlock&)> readBlock;
    std::function<HostTensor(const SliceBlock&)> readBand;  // a band of a stream, after beforeBand
    // Called before band i is read (the HDF5 source vets the bands ahead of the reads).
    std::function<void(std::size_t i, const std::vector<h5::DataBlock>& bands)> beforeBand;
};

// One pass over the slice, band after band; an empty summary when cancelled.
view::SliceSummary streamSlice(const DatasetSource& source, const std::vector<h5::DataBlock>& bands,
                               const view::SliceSpec& spec, int64_t rows, int64_t cols, const StreamControl& control) {
    view::SliceRequest request;
    request.spec = spec;
    request.cancelled = control.cancelled;
    view::SliceSummarizer pass(rows, cols, request);
    view::SliceSpec inBand = spec;  // a band holds one index of every other axis: index 0
    std::fill(inBand.index.begin(), inBand.index.end(), 0);
    for (std::size_t i = 0; i < bands.size(); ++i) {
        if (control.cancelled && control.cancelled()) return {};
        if (source.beforeBand) source.beforeBand(i, bands);
        const HostTensor band = source.readBand({bands[i].start, bands[i].count});
        view::SliceSource rowsOfBand;
        rowsOfBand.tensor = band.view();
        if (!pass.addRows(rowsOfBand, inBand, bands[i].start[spec.rowAxis] - bands.front().start[spec.rowAxis]))
            return {};
        if (control.progress) control.progress(static_cast<double>(i + 1) / static_cast<double>(bands.size()));
    }
    return pass.take();
}

// The view's policy: all of a dataset when it holds at most `limit` bytes (or has rank < 2);
// else the block of the slice when that is small enough (rank >= 3); else the slice streamed.
DatasetForView readForView(const DatasetSource& source, const std::string& path, const view::SliceSpec& slice,
                           uint64_t limit, const StreamControl& control) {
    DatasetForView d;
    d.shape = source.shape;
    d.dtype = source.dtype;
    const auto bytes = [&](const std::vector<int64_t>& shape) {
        return static_cast<uint64_t>(shapeNumel(shape)) * dtypeSize(source.dtype);
    };
    if (source.shape.size() < 2 || source.dtype == DType::Undefined || bytes(source.shape) <= limit) {
        d.tensor = source.readWhole();
        d.shape = d.tensor.shape();
        return d;
    }
    const view::SliceSpec spec = view::normalizeSlice(
        source.shape, slice.index.size() == source.shape.size() ? slice : view::defaultSlice(source.shape));
    const SliceBlock block = sliceBlock(source.shape, spec);
    if (source.shape.size() >= 3 && bytes(block.count) <= limit) {
        d.block = block;
        d.tensor = source.readBlock(block);
        return d;
    }
    const std::vector<h5::DataBlock> bands = rowBands(path, block, spec.rowAxis, source.dtype, control.bandBytes);
    view::SliceSummary summary =
        streamSlice(source, bands, spec, block.count[spec.rowAxis], block.count[spec.colAxis], control);
    d.bands = static_cast<int64_t>(bands.size());
    d.streamedSlice = spec;
    if (summary.rows > 0) d.streamed = std::make_shared<const view::SliceSummary>(std::move(summary));
    return d;
}

// An HDF5 dataset: the whole vetted before it is read, a block alone, and the bands of a stream
// pipelined: while this thread reads one group of bands, a child vets the next; a band is read
// only after the child that read it ended well, so a damaged band is refused before libhdf5
// here touches it.
DatasetSource hdf5Source(const std::string& file, const h5::File& f, const std::string& path) {
    const h5::DatasetInfo info = h5::datasetInfo(f, path);
    DatasetSource source;
    source.shape = info.shape;
    source.dtype = info.dtype;
    source.readWhole = [&file, &f, path] {
        h5::vetFile(file, {path});
        return h5::readTensor(f, path);
    };
    source.readBlock = [&file, &f, path](const SliceBlock& b) {
        h5::vetBlocks(file, {{path, b.start, b.count}});  // only the block, not the dataset
        return h5::readTensorBlock(f, path, b.start, b.count);
    };
    source.readBand = [&f, path](const SliceBlock& b) { return h5::readTensorBlock(f, path, b.start, b.count); };
    struct Vetting {
        std::vector<std::pair<std::size_t, std::size_t>> groups;
        std::size_t next = 0;  // the group the child vets next
        std::future<void> running;
    };
    auto vetting = std::make_shared<Vetting>();
    source.beforeBand = [&file, vetting](std::size_t i, const std::vector<h5::DataBlock>& bands) {
        Vetting& v = *vetting;
        if (i == 0) v.groups = vettingGroups(bands.size());
        const auto start = [&](std::size_t g) {
            std::vector<h5::DataBlock> group(bands.begin() + static_cast<std::ptrdiff_t>(v.groups[g].first),
                                             bands.begin() + static_cast<std::ptrdiff_t>(v.groups[g].second));
            v.running =
                std::async(std::launch::async, [&file, group = std::move(group)] { h5::vetBlocks(file, group); });
            v.next = g + 1;
        };
        if (i == 0) start(0);
        if (v.next > 0 && i == v.groups[v.next - 1].first) {  // the first band of the group vetted last
            v.running.get();                                  // throws the sentence of a damaged band
            if (v.next < v.groups.size()) start(v.next);
        }
    };
    return source;
}

// A tensor of a .pt/.safetensors/.npz/.npy file, `key` its key: OpScope's own readers check it
// (no vetting needed), a block or a band read from the bytes it covers.
DatasetSource tensorFileSource(const std::shared_ptr<const import::TensorFile>& file, const std::string& key) {
    const import::TensorEntry entry = file->entry(key);
    DatasetSource source;
    source.shape = entry.shape;
    source.dtype = entry.dtype;
    source.readWhole = [file, key] { return file->read(key); };
    source.readBlock = [file, key](const SliceBlock& b) { return file->readBlock(key, b.start, b.count); };
    source.readBand = source.readBlock;
    return source;
}

}  // namespace

DatasetForView readDatasetForView(const std::string& file, const std::string& path, const view::SliceSpec& slice,
                                  uint64_t sliceOnlyAboveBytes, const StreamControl& control) {
    if (import::isTensorFileSpec(file)) {
        const auto opened = std::make_shared<const import::TensorFile>(file);
        return readForView(tensorFileSource(opened, path), path, slice, sliceOnlyAboveBytes, control);
    }
    const h5::File f = openVettedDataset(file, path, {});  // the data is vetted as it is read
    return readForView(hdf5Source(file, f, path), path, slice, sliceOnlyAboveBytes, control);
}

}  // namespace opscope::gui
