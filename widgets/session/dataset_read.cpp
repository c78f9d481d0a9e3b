#include "session/dataset_read.h"

#include <algorithm>
#include <future>
#include <optional>
#include <stdexcept>

#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/import/tensor_file.h"
#include "opscope/metrics.h"
#include "opscope/parallel.h"

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

// The slice block cut into bands of rows (along the slice's row axis) of at most maxBytes; a
// rank-1 tensor's one row into parts of at most maxBytes.
std::vector<SliceBlock> rowBands(const SliceBlock& block, int rowAxis, std::size_t elementSize, uint64_t maxBytes) {
    if (rowAxis < 0) {
        const int64_t n = block.count[0], per = std::max<int64_t>(1, static_cast<int64_t>(maxBytes / elementSize));
        std::vector<SliceBlock> parts;
        for (int64_t c = 0; c < n; c += per) parts.push_back({{c}, {std::min(per, n - c)}});
        return parts;
    }
    const uint64_t rowBytes = static_cast<uint64_t>(shapeNumel(block.count) / block.count[rowAxis]) * elementSize;
    const int64_t rowsPerBand = std::max<int64_t>(1, static_cast<int64_t>(maxBytes / std::max<uint64_t>(1, rowBytes)));
    std::vector<SliceBlock> bands;
    for (int64_t r = 0; r < block.count[rowAxis]; r += rowsPerBand) {
        SliceBlock b = block;
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

// What the view's reading policy needs of one dataset, whichever kind of file (or a held tensor)
// it is. The functions own what they read from.
struct DatasetSource {
    std::vector<int64_t> shape;
    DType dtype = DType::Undefined;
    std::function<HostTensor()> readWhole;
    std::function<HostTensor(const SliceBlock&)> readBlock;
    std::function<HostTensor(const SliceBlock&)> readBand;  // a band of a stream, after beforeBand
    // Called before band i is read (the HDF5 source vets the bands ahead of the reads).
    std::function<void(std::size_t i, const std::vector<SliceBlock>& bands)> beforeBand;
};

// The view's policy, the same for a dataset viewed alone and for a pair: all of it when it holds
// at most `limit` bytes (or is a scalar); else the block of the slice when that is small enough
// (rank >= 3); else the slice streamed (a rank-1 tensor: its one row, in parts).
enum class Form { Whole, Block, Stream };
Form formFor(const std::vector<int64_t>& shape, const SliceBlock& block, std::size_t elementSize, uint64_t limit) {
    const auto bytes = [&](const std::vector<int64_t>& s) {
        return static_cast<uint64_t>(shapeNumel(s)) * elementSize;
    };
    if (shape.empty() || elementSize == 0 || bytes(shape) <= limit) return Form::Whole;
    if (shape.size() >= 3 && bytes(block.count) <= limit) return Form::Block;
    return Form::Stream;
}

view::SliceSpec sliceFor(const std::vector<int64_t>& shape, const view::SliceSpec& slice) {
    return view::normalizeSlice(shape, slice.index.size() == shape.size() ? slice : view::defaultSlice(shape));
}

// What band i of a stream brings to each pass: the tensors read (held while their rows are
// added) and one source of rows per pass.
struct BandRows {
    std::vector<HostTensor> held;
    std::vector<view::SliceSource> sources;
};

view::SliceSource valuesOf(const HostTensor& band) {
    view::SliceSource s;
    s.tensor = band.view();
    return s;
}

// A part of a rank-1 tensor (its values, or the relative error of two parts) as columns col0...
// of the slice's one row.
void addRowPart(view::SliceSummarizer& pass, const view::SliceSource& part, const view::SliceSpec& spec, int64_t col0) {
    view::SliceRows row(part, spec);
    std::vector<double> values(static_cast<std::size_t>(row.cols()));
    if (part.content == view::SliceContent::RelError) {
        std::vector<double> abs(values.size());
        row.readErrors(0, abs.data(), values.data());
    } else {
        row.read(0, values.data());
    }
    pass.addRowPart(0, col0, values.data(), row.cols());
}

// A band of `source`, vetted first where it needs it.
HostTensor readBandOf(const DatasetSource& source, std::size_t i, const std::vector<SliceBlock>& bands) {
    if (source.beforeBand) source.beforeBand(i, bands);
    return source.readBand(bands[i]);
}

// Band i of every side (held while its rows are added) and a source of rows per pass: each side's
// values, then the relative error of the first side against the second when `errorDtype` is set.
BandRows readBandRows(const std::vector<const DatasetSource*>& sides, std::optional<DType> errorDtype, std::size_t i,
                      const std::vector<SliceBlock>& bands) {
    BandRows r;
    for (const DatasetSource* side : sides) r.held.push_back(readBandOf(*side, i, bands));
    for (const HostTensor& band : r.held) r.sources.push_back(valuesOf(band));
    if (errorDtype) {
        view::SliceSource error = valuesOf(r.held[0]);
        error.reference = r.held[1].view();
        error.content = view::SliceContent::RelError;
        error.outputDtype = *errorDtype;
        r.sources.push_back(error);
    }
    return r;
}

// The slice `spec` (of `block`) of every side streamed in `bands` read in step: a summary of each
// side, then one of the relative error when `errorDtype` is set (readBandRows). A side in `known`
// is read (for the error) but not summarized again: its entry is left empty. No summaries when
// cancelled.
std::vector<view::SliceSummary> streamSlice(const std::vector<const DatasetSource*>& sides,
                                            std::optional<DType> errorDtype, const std::vector<SliceBlock>& bands,
                                            const view::SliceSpec& spec, const SliceBlock& block,
                                            const StreamControl& control, const std::vector<bool>& known = {}) {
    const std::size_t passes = sides.size() + (errorDtype ? 1 : 0);
    const int64_t rows = view::sliceRows(block.count, spec), cols = view::sliceCols(block.count, spec);
    view::SliceRequest request;
    request.spec = spec;
    request.cancelled = control.cancelled;
    std::vector<std::unique_ptr<view::SliceSummarizer>> summarizers;
    for (std::size_t p = 0; p < passes; ++p)
        summarizers.push_back(
            p < known.size() && known[p] ? nullptr : std::make_unique<view::SliceSummarizer>(rows, cols, request));
    view::SliceSpec inBand = spec;  // a band holds one index of every other axis: index 0
    std::fill(inBand.index.begin(), inBand.index.end(), 0);
    for (std::size_t i = 0; i < bands.size(); ++i) {
        if (control.cancelled && control.cancelled()) return {};
        const BandRows band = readBandRows(sides, errorDtype, i, bands);
        if (spec.rowAxis < 0) {  // a part of a rank-1 tensor's row: the passes side by side
            parallelFor(0, static_cast<int64_t>(passes), 1, [&](int64_t begin, int64_t end) {
                for (int64_t p = begin; p < end; ++p)
                    if (summarizers[std::size_t(p)])
                        addRowPart(*summarizers[std::size_t(p)], band.sources[std::size_t(p)], inBand,
                                   bands[i].start[0]);
            });
        } else {
            const int64_t firstRow = bands[i].start[spec.rowAxis] - bands.front().start[spec.rowAxis];
            for (std::size_t p = 0; p < passes; ++p)
                if (summarizers[p] && !summarizers[p]->addRows(band.sources[p], inBand, firstRow)) return {};
        }
        if (control.progress) control.progress(static_cast<double>(i + 1) / static_cast<double>(bands.size()));
    }
    std::vector<view::SliceSummary> out;
    for (auto& s : summarizers) out.push_back(s ? s->take() : view::SliceSummary{});
    return out;
}

DatasetForView readForView(const DatasetSource& source, const view::SliceSpec& slice, uint64_t limit,
                           const StreamControl& control) {
    DatasetForView d;
    d.shape = source.shape;
    d.dtype = source.dtype;
    const view::SliceSpec spec = sliceFor(source.shape, slice);
    const SliceBlock block = sliceBlock(source.shape, spec);
    const std::size_t elementSize = source.dtype == DType::Undefined ? 0 : dtypeSize(source.dtype);
    switch (formFor(source.shape, block, elementSize, limit)) {
        case Form::Whole:
            d.tensor = source.readWhole();
            d.shape = d.tensor.shape();
            return d;
        case Form::Block:
            d.block = block;
            d.tensor = source.readBlock(block);
            return d;
        case Form::Stream: break;
    }
    const std::vector<SliceBlock> bands = rowBands(block, spec.rowAxis, elementSize, control.bandBytes);
    std::vector<view::SliceSummary> summary = streamSlice({&source}, std::nullopt, bands, spec, block, control);
    d.bands = static_cast<int64_t>(bands.size());
    d.streamedSlice = spec;
    if (!summary.empty()) d.streamed = std::make_shared<const view::SliceSummary>(std::move(summary[0]));
    return d;
}

// An HDF5 dataset: the whole vetted before it is read, a block alone, and the bands of a stream
// pipelined: while this thread reads one group of bands, a child vets the next; a band is read
// only after the child that read it ended well, so a damaged band is refused before libhdf5
// here touches it.
DatasetSource hdf5Source(const std::string& file, const std::shared_ptr<const h5::File>& f, const std::string& path) {
    const h5::DatasetInfo info = h5::datasetInfo(*f, path);
    DatasetSource source;
    source.shape = info.shape;
    source.dtype = info.dtype;
    source.readWhole = [file, f, path] {
        h5::vetFile(file, {path});
        return h5::readTensor(*f, path);
    };
    source.readBlock = [file, f, path](const SliceBlock& b) {
        h5::vetBlocks(file, {{path, b.start, b.count}});  // only the block, not the dataset
        return h5::readTensorBlock(*f, path, b.start, b.count);
    };
    source.readBand = [f, path](const SliceBlock& b) { return h5::readTensorBlock(*f, path, b.start, b.count); };
    struct Vetting {
        std::vector<std::pair<std::size_t, std::size_t>> groups;
        std::size_t next = 0;  // the group the child vets next
        std::future<void> running;
    };
    auto vetting = std::make_shared<Vetting>();
    source.beforeBand = [file, path, vetting](std::size_t i, const std::vector<SliceBlock>& bands) {
        Vetting& v = *vetting;
        if (i == 0) v.groups = vettingGroups(bands.size());
        const auto start = [&](std::size_t g) {
            std::vector<h5::DataBlock> group;
            for (std::size_t k = v.groups[g].first; k < v.groups[g].second; ++k)
                group.push_back({path, bands[k].start, bands[k].count});
            v.running =
                std::async(std::launch::async, [file, group = std::move(group)] { h5::vetBlocks(file, group); });
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

// A tensor in memory: the whole is itself (shared, not copied), a block is cut from it.
DatasetSource heldSource(const std::shared_ptr<const HostTensor>& held) {
    const ops::TensorHandle handle = ops::heldTensor(*held);
    DatasetSource source;
    source.shape = handle.shape;
    source.dtype = handle.dtype;
    source.readWhole = handle.read;
    source.readBlock = [handle](const SliceBlock& b) { return handle.readBlock(b.start, b.count); };
    source.readBand = source.readBlock;
    return source;
}

DatasetSource openSource(const ViewOperand& side) {
    if (side.held) return heldSource(side.held);
    if (import::isTensorFileSpec(side.file))
        return tensorFileSource(std::make_shared<const import::TensorFile>(side.file), side.path);
    // The data is vetted as it is read.
    return hdf5Source(side.file, std::make_shared<const h5::File>(openVettedDataset(side.file, side.path, {})),
                      side.path);
}

}  // namespace

DatasetForView readDatasetForView(const std::string& file, const std::string& path, const view::SliceSpec& slice,
                                  uint64_t sliceOnlyAboveBytes, const StreamControl& control) {
    ViewOperand side;
    side.file = file;
    side.path = path;
    return readForView(openSource(side), slice, sliceOnlyAboveBytes, control);
}

ops::TensorHandle openForCompare(const ViewOperand& side) {
    if (side.held) return ops::heldTensor(*side.held);
    const DatasetSource source = openSource(side);
    return ops::TensorHandle{
        source.dtype, source.shape, source.readWhole,
        [read = source.readBlock](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
            return read({start, count});
        }};
}

namespace {

// B as a tensor of A's shape (the same elements in row-major order), read whole.
HostTensor inShapeOf(const std::vector<int64_t>& shape, const HostTensor& b) {
    TensorView v = b.view();
    v.shape = shape;
    v.strides = TensorView::contiguousStrides(shape);
    return HostTensor::copyOf(v);
}

// The relative error of A and B held alike (whole, or the same block), in A's block.
DatasetForView errorOf(const DatasetForView& a, const DatasetForView& b, DType outputDtype) {
    DatasetForView e;
    e.tensor = metrics::errorMaps(a.tensor, b.tensor, outputDtype).relError;
    e.shape = a.shape;
    e.dtype = DType::Float64;
    e.block = a.block;
    return e;
}

}  // namespace

PairForView readPairForView(const ViewOperand& a, const ViewOperand& b, DType outputDtype, const view::SliceSpec& slice,
                            uint64_t limit, const StreamControl& control) {
    const DatasetSource sa = openSource(a), sb = openSource(b);
    PairForView pair;
    if (sa.shape != sb.shape) {  // B's maps need it in A's shape: whole, and only when small
        pair.a = readForView(sa, slice, limit, control);
        pair.b.shape = sb.shape;  // B's title; no tensor unless read below
        pair.b.dtype = sb.dtype;
        if (shapeNumel(sb.shape) != shapeNumel(sa.shape)) return pair;  // not compared: no maps
        const uint64_t bBytes = static_cast<uint64_t>(shapeNumel(sb.shape)) * dtypeSize(sb.dtype);
        if (pair.a.sliceOnly() || pair.a.streamed || bBytes > limit) {
            pair.bNote = "B is " + shapeToString(sb.shape) + " where A is " + shapeToString(sa.shape) +
                         ": B and the relative error are drawn only when both are read whole";
            return pair;
        }
        pair.b.tensor = inShapeOf(sa.shape, sb.readWhole());
        pair.error = errorOf(pair.a, pair.b, outputDtype);
        return pair;
    }
    const view::SliceSpec spec = sliceFor(sa.shape, slice);
    const SliceBlock block = sliceBlock(sa.shape, spec);
    const std::size_t elementSize = std::max(dtypeSize(sa.dtype), dtypeSize(sb.dtype));
    const Form form = formFor(sa.shape, block, elementSize, limit);
    for (auto [side, d] : {std::pair{&sa, &pair.a}, std::pair{&sb, &pair.b}}) {
        d->shape = side->shape;
        d->dtype = side->dtype;
        if (form == Form::Whole) d->tensor = side->readWhole();
        if (form == Form::Block) {
            d->block = block;
            d->tensor = side->readBlock(block);
        }
    }
    if (form != Form::Stream) {
        pair.error = errorOf(pair.a, pair.b, outputDtype);
        return pair;
    }
    const std::vector<SliceBlock> bands = rowBands(block, spec.rowAxis, elementSize, control.bandBytes);
    const bool aKnown = a.summary && a.summarySlice == spec;  // A's view streamed this slice already
    std::vector<view::SliceSummary> summaries =
        streamSlice({&sa, &sb}, outputDtype, bands, spec, block, control, {aKnown, false});
    for (DatasetForView* d : {&pair.a, &pair.b}) {
        d->bands = static_cast<int64_t>(bands.size());
        d->streamedSlice = spec;
    }
    pair.error.shape = sa.shape;
    pair.error.dtype = DType::Float64;
    pair.error.bands = pair.a.bands;
    pair.error.streamedSlice = spec;
    if (summaries.empty()) return pair;
    pair.a.streamed = aKnown ? a.summary : std::make_shared<const view::SliceSummary>(std::move(summaries[0]));
    pair.b.streamed = std::make_shared<const view::SliceSummary>(std::move(summaries[1]));
    pair.error.streamed = std::make_shared<const view::SliceSummary>(std::move(summaries[2]));
    return pair;
}

}  // namespace opscope::gui
