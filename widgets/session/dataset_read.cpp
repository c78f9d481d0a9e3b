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

// One pass over the slice, band after band; an empty summary when cancelled. Pipelined: while
// this thread reads and summarizes (in parallel) one group of bands, a child vets the next
// group; a band is read here only after the child that read it ended well, so a damaged band
// is refused before libhdf5 here touches it.
view::SliceSummary streamSlice(const std::string& file, const h5::File& f, const std::vector<h5::DataBlock>& bands,
                               const view::SliceSpec& spec, int64_t rows, int64_t cols, const StreamControl& control) {
    view::SliceRequest request;
    request.spec = spec;
    request.cancelled = control.cancelled;
    view::SliceSummarizer pass(rows, cols, request);
    view::SliceSpec inBand = spec;  // a band holds one index of every other axis: index 0
    std::fill(inBand.index.begin(), inBand.index.end(), 0);
    const auto groups = vettingGroups(bands.size());
    const auto vet = [&](std::size_t g) {
        return std::async(std::launch::async, [&file, &bands, g = groups[g]] {
            h5::vetBlocks(file, std::vector<h5::DataBlock>(bands.begin() + static_cast<std::ptrdiff_t>(g.first),
                                                           bands.begin() + static_cast<std::ptrdiff_t>(g.second)));
        });
    };
    std::future<void> vetting = vet(0);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        vetting.get();  // throws the sentence of a damaged band
        if (g + 1 < groups.size()) vetting = vet(g + 1);
        for (std::size_t i = groups[g].first; i < groups[g].second; ++i) {
            if (control.cancelled && control.cancelled()) return {};  // waits for the child
            const h5::DataBlock& b = bands[i];
            const HostTensor band = h5::readTensorBlock(f, b.dataset, b.start, b.count);
            view::SliceSource source;
            source.tensor = band.view();
            if (!pass.addRows(source, inBand, b.start[spec.rowAxis] - bands.front().start[spec.rowAxis])) return {};
            if (control.progress) control.progress(static_cast<double>(i + 1) / static_cast<double>(bands.size()));
        }
    }
    return pass.take();
}

}  // namespace

DatasetForView readDatasetForView(const std::string& file, const std::string& path, const view::SliceSpec& slice,
                                  uint64_t sliceOnlyAboveBytes, const StreamControl& control) {
    if (import::isTensorFileSpec(file)) {  // a tensor of a .pt/.safetensors/.npz checkpoint: read whole
        DatasetForView d;
        d.tensor = import::readTensorFile(path.empty() ? file : file + ":" + path);
        d.shape = d.tensor.shape();
        d.dtype = d.tensor.dtype();
        return d;
    }
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
    view::SliceSummary summary =
        streamSlice(file, f, bands, spec, block.count[spec.rowAxis], block.count[spec.colAxis], control);
    d.bands = static_cast<int64_t>(bands.size());
    d.streamedSlice = spec;
    if (summary.rows > 0) d.streamed = std::make_shared<const view::SliceSummary>(std::move(summary));
    return d;
}

}  // namespace opscope::gui
