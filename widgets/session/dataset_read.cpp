#include "session/dataset_read.h"

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

DatasetForView readDatasetForView(const std::string& file, const std::string& path, const view::SliceSpec& slice,
                                  uint64_t sliceOnlyAboveBytes) {
    const h5::File f = openVettedDataset(file, path, {});  // the data is vetted below, as it is read
    const h5::DatasetInfo info = h5::datasetInfo(f, path);
    DatasetForView d;
    d.shape = info.shape;
    const bool big = info.dtype != DType::Undefined &&
                     static_cast<uint64_t>(info.numel()) * dtypeSize(info.dtype) > sliceOnlyAboveBytes;
    if (info.shape.size() < 3 || !big) {
        h5::vetFile(file, {path});
        d.tensor = h5::readTensor(f, path);
        d.shape = d.tensor.shape();
        return d;
    }
    d.block = sliceBlock(info.shape, slice.index.size() == info.shape.size() ? slice : view::defaultSlice(info.shape));
    h5::vetBlocks(file, {{path, d.block.start, d.block.count}});  // only the block, not the dataset
    d.tensor = h5::readTensorBlock(f, path, d.block.start, d.block.count);
    return d;
}

}  // namespace opscope::gui
