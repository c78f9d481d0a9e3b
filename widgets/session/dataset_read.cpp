#include "session/dataset_read.h"

#include <algorithm>
#include <stdexcept>

#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"

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

// One pass over the slice, band after band; an empty summary when cancelled.
view::SliceSummary streamSlice(const h5::File& f, const std::vector<h5::DataBlock>& bands, const view::SliceSpec& spec,
                               int64_t rows, int64_t cols, const StreamControl& control) {
    view::SliceRequest request;
    request.spec = spec;
    view::SliceSummarizer pass(rows, cols, request);
    view::SliceSpec inBand = spec;  // a band holds one index of every other axis: index 0
    std::fill(inBand.index.begin(), inBand.index.end(), 0);
    std::vector<double> row(static_cast<std::size_t>(cols));
    for (std::size_t i = 0; i < bands.size(); ++i) {
        if (control.cancelled && control.cancelled()) return {};
        const h5::DataBlock& b = bands[i];
        const HostTensor band = h5::readTensorBlock(f, b.dataset, b.start, b.count);
        view::SliceSource source;
        source.tensor = band.view();
        view::SliceRows bandRows(source, inBand);
        const int64_t first = b.start[spec.rowAxis] - bands.front().start[spec.rowAxis];
        for (int64_t r = 0; r < bandRows.rows(); ++r) {
            bandRows.read(r, row.data());
            pass.addRow(first + r, row.data());
        }
        if (control.progress) control.progress(static_cast<double>(i + 1) / static_cast<double>(bands.size()));
    }
    return pass.take();
}

}  // namespace

DatasetForView readDatasetForView(const std::string& file, const std::string& path, const view::SliceSpec& slice,
                                  uint64_t sliceOnlyAboveBytes, const StreamControl& control) {
    const h5::File f = openVettedDataset(file, path, {});  // the data is vetted below, as it is read
    const h5::DatasetInfo info = h5::datasetInfo(f, path);
    DatasetForView d;
    d.shape = info.shape;
    d.dtype = info.dtype;
    const auto bytes = [&](const std::vector<int64_t>& shape) {
        return static_cast<uint64_t>(shapeNumel(shape)) * dtypeSize(info.dtype);
    };
    if (info.shape.size() < 2 || info.dtype == DType::Undefined || bytes(info.shape) <= sliceOnlyAboveBytes) {
        h5::vetFile(file, {path});
        d.tensor = h5::readTensor(f, path);
        d.shape = d.tensor.shape();
        return d;
    }
    const view::SliceSpec spec = view::normalizeSlice(
        info.shape, slice.index.size() == info.shape.size() ? slice : view::defaultSlice(info.shape));
    const SliceBlock block = sliceBlock(info.shape, spec);
    if (info.shape.size() >= 3 && bytes(block.count) <= sliceOnlyAboveBytes) {
        d.block = block;
        h5::vetBlocks(file, {{path, d.block.start, d.block.count}});  // only the block, not the dataset
        d.tensor = h5::readTensorBlock(f, path, d.block.start, d.block.count);
        return d;
    }
    const std::vector<h5::DataBlock> bands = rowBands(path, block, spec.rowAxis, info.dtype, control.bandBytes);
    h5::vetBlocks(file, bands);  // one child reads them all, one band at a time
    view::SliceSummary summary =
        streamSlice(f, bands, spec, block.count[spec.rowAxis], block.count[spec.colAxis], control);
    d.bands = static_cast<int64_t>(bands.size());
    d.streamedSlice = spec;
    if (summary.rows > 0) d.streamed = std::make_shared<const view::SliceSummary>(std::move(summary));
    return d;
}

}  // namespace opscope::gui
