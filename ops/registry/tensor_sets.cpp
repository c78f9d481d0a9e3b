#include "opscope/ops/tensor_sets.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <unordered_set>

#include "opscope/error.h"
#include "opscope/h5/file_safety.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"
#include "opscope/row_major_blocks.h"

namespace opscope::ops {

TensorHandle heldTensor(HostTensor tensor) {
    auto held = std::make_shared<const HostTensor>(std::move(tensor));
    TensorHandle h{held->dtype(), held->shape(), [held] { return *held; }, {}};
    h.readBlock = [held](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
        TensorView v = held->view();
        for (std::size_t a = 0; a < start.size(); ++a) v.offset += start[a] * v.strides[a];
        v.shape = count;
        return HostTensor::copyOf(v);
    };
    return h;
}

namespace {

// A key of an opened tensor file; `file` stays open while the handle lives.
TensorHandle tensorFileHandle(const std::shared_ptr<const import::TensorFile>& file, const std::string& key) {
    const import::TensorEntry entry = file->entry(key);
    return TensorHandle{entry.dtype, entry.shape, [file, key] { return file->read(key); },
                        [file, key](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
                            return file->readBlock(key, start, count);
                        }};
}

}  // namespace

TensorSet tensorFileSet(const std::string& file) {
    auto opened = std::make_shared<const import::TensorFile>(file);
    std::vector<std::string> keys = opened->keys();
    return TensorSet{file, std::move(keys), [opened](const std::string& key) { return tensorFileHandle(opened, key); }};
}

TensorSet hdf5GroupSet(const std::string& file, const std::string& group, const std::string& name) {
    h5::vetFile(file, {group});  // every dataset below the group, in one child
    auto opened = std::make_shared<const h5::File>(h5::File::openReadOnly(file));
    const h5::ObjectKind kind = opened->info(group).kind;
    if (kind != h5::ObjectKind::Group)
        throw ContentError(kind == h5::ObjectKind::Missing
                               ? "no group '" + group + "' in '" + file + "'"
                               : "'" + group + "' in '" + file + "' is a " + h5::kindName(kind) + ", not a group");
    const std::string prefix = group == "/" ? "" : group;
    std::vector<std::string> keys;
    for (const h5::NodeInfo& n : h5::listTree(*opened, group)) {
        // A member that points outside the file is a sentence, as `run` makes it, not a silently
        // shorter set.
        if (!n.outside().empty() && !h5::externalDataAllowed(file)) {
            const std::string outside = n.outside();  // "external link -> f.h5:/g"
            const std::size_t arrow = outside.find(" -> ");
            h5::refuseExternal("'" + n.path + "' in '" + file + "'", outside.substr(0, arrow),
                               arrow == std::string::npos ? "" : outside.substr(arrow + 4));
        }
        if (n.kind == h5::ObjectKind::Dataset && n.dataset.dtype != DType::Undefined)
            keys.push_back(n.path.substr(prefix.size() + 1));
    }
    return TensorSet{
        name, std::move(keys), [opened, prefix, name](const std::string& key) {
            // A libhdf5 sentence names the file; the set's name says which side.
            const auto named = [name](auto read) {
                try {
                    return read();
                } catch (const FileError& e) {
                    throw ContentError(name + ": " + e.what());
                }
            };
            const std::string path = prefix + "/" + key;
            const h5::DatasetInfo info = named([&] { return h5::datasetInfo(*opened, path); });
            return TensorHandle{
                info.dtype, info.shape,
                [opened, path, named] { return named([&] { return h5::readTensor(*opened, path); }); },
                [opened, path, named](const std::vector<int64_t>& start, const std::vector<int64_t>& count) {
                    return named([&] { return h5::readTensorBlock(*opened, path, start, count); });
                }};
        }};
}

TensorSet tensorFolderSet(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw ContentError("'" + dir + "' is not a folder");
    std::vector<std::string> keys;
    // Symbolic links are not followed: a folder's set is what lies in it.
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
        const std::string key = it->path().lexically_relative(dir).generic_string();
        if (import::isTensorFileSpec(key) && import::tensorFilePath(key) == key) keys.push_back(key);
    }
    if (ec) throw IoError("cannot list '" + dir + "': " + ec.message());
    std::sort(keys.begin(), keys.end());
    const fs::path root(dir);
    return TensorSet{dir, std::move(keys), [root](const std::string& key) {
                         // A member file: its one tensor, or the error listing its keys.
                         return tensorFileHandle(std::make_shared<const import::TensorFile>((root / key).string()), "");
                     }};
}

std::vector<std::string> comparedKeys(const TensorSet& actual, const TensorSet& reference) {
    const std::unordered_set<std::string> inActual(actual.keys.begin(), actual.keys.end());
    std::vector<std::string> keys = actual.keys;
    for (const std::string& k : reference.keys)
        if (!inActual.count(k)) keys.push_back(k);
    return keys;
}

namespace {

// One side of a pass over two differently shaped tensors with the same elements: its own bands
// (rowMajorBlocks, each a contiguous run of the row-major order) read one at a time, handed out
// as runs of any length, flat.
class FlatRuns {
public:
    FlatRuns(const TensorHandle& t, std::size_t elementSize, uint64_t bandBytes)
        : t_(t), blocks_(rowMajorBlocks(t.shape, elementSize, bandBytes)) {}

    // Elements left in the band read last (reading the next band when none are).
    int64_t available() {
        if (offset_ == band_.numel() && next_ < blocks_.size()) {
            band_ = t_.readBlock(blocks_[next_].start, blocks_[next_].count);
            ++next_;
            offset_ = 0;
        }
        return band_.numel() - offset_;
    }

    // The next n (<= available()) elements: the band itself when they are all of it, else a copy
    // of them as a rank-1 tensor.
    HostTensor take(int64_t n) {
        if (offset_ == 0 && n == band_.numel()) {
            HostTensor whole = std::move(band_);
            band_ = HostTensor(whole.dtype(), {0});
            return whole;
        }
        const std::size_t size = dtypeSize(band_.dtype());
        HostTensor run(band_.dtype(), {n});
        std::memcpy(run.data(), static_cast<const char*>(band_.data()) + static_cast<std::size_t>(offset_) * size,
                    static_cast<std::size_t>(n) * size);
        offset_ += n;
        return run;
    }

private:
    const TensorHandle& t_;
    std::vector<TensorBlock> blocks_;
    std::size_t next_ = 0;
    HostTensor band_{DType::Float32, {0}};
    int64_t offset_ = 0;
};

// Both sides' bands cut where either side's band ends: each visit gets the same count of each.
bool forEachFlatRunPair(const TensorHandle& actual, const TensorHandle& reference, std::size_t elementSize,
                        uint64_t bandBytes, const std::atomic<bool>* cancelled, const BandVisitor& visit) {
    FlatRuns a(actual, elementSize, bandBytes), r(reference, elementSize, bandBytes);
    const int64_t numel = shapeNumel(actual.shape);
    for (int64_t passed = 0; passed < numel;) {
        if (cancelled && cancelled->load()) return false;
        const int64_t n = std::min(a.available(), r.available());
        if (n <= 0)
            throw UsageError("a band of " + shapeToString(actual.shape) + " or " + shapeToString(reference.shape) +
                             " held no elements");
        passed += n;
        visit(a.take(n), r.take(n), static_cast<double>(passed) / static_cast<double>(numel));
    }
    return true;
}

}  // namespace

bool forEachBandPair(const TensorHandle& actual, const TensorHandle& reference, uint64_t bandBytes,
                     const std::atomic<bool>* cancelled, const BandVisitor& visit) {
    if (shapeNumel(actual.shape) != shapeNumel(reference.shape))
        throw UsageError("cannot pass over " + shapeToString(actual.shape) + " and " + shapeToString(reference.shape) +
                         " together: the element counts differ");
    const auto bytes = [](const TensorHandle& t) { return uint64_t(shapeNumel(t.shape)) * dtypeSize(t.dtype); };
    if (bytes(actual) <= bandBytes && bytes(reference) <= bandBytes) {
        if (cancelled && cancelled->load()) return false;
        visit(actual.read(), reference.read(), 1.0);
        return true;
    }
    const std::size_t elementSize = std::max(dtypeSize(actual.dtype), dtypeSize(reference.dtype));
    if (actual.shape != reference.shape)
        return forEachFlatRunPair(actual, reference, elementSize, bandBytes, cancelled, visit);
    const double numel = static_cast<double>(shapeNumel(actual.shape));
    int64_t passed = 0;
    for (const TensorBlock& b : rowMajorBlocks(actual.shape, elementSize, bandBytes)) {
        if (cancelled && cancelled->load()) return false;
        passed += shapeNumel(b.count);
        visit(actual.readBlock(b.start, b.count), reference.readBlock(b.start, b.count),
              static_cast<double>(passed) / numel);
    }
    return true;
}

namespace {

struct Cancelled {};

}  // namespace

std::optional<Comparison> compareTensors(const std::string& output, const std::string& actualName,
                                         const TensorHandle& actual, const std::string& referenceName,
                                         const TensorHandle& reference, DType outputDtype,
                                         const metrics::Standard& standard, uint64_t bandBytes,
                                         const std::atomic<bool>* cancelled) {
    try {
        return comparePair(output, actualName, actual.dtype, actual.shape, referenceName, reference.dtype,
                           reference.shape, standard, [&] {
                               metrics::ComparisonAccumulator pass(actual.shape, outputDtype, standard.options);
                               const bool done = forEachBandPair(
                                   actual, reference, bandBytes, cancelled,
                                   [&](const HostTensor& a, const HostTensor& r, double) { pass.add(a, r); });
                               if (!done) throw Cancelled{};
                               return pass.finish();
                           });
    } catch (const Cancelled&) {
        return std::nullopt;
    }
}

namespace {

// Both tensors of a key opened and compared; a key either side cannot read is not compared, its
// sentence the note (and told to control.unreadable), and the other keys go on. Nothing when
// cancelled between its bands.
std::optional<Comparison> compareKey(const std::string& key, const TensorSet& actual, const TensorSet& reference,
                                     const metrics::Standard& standard, const SetCompareControl& control,
                                     uint64_t bandBytes) {
    try {
        const TensorHandle a = actual.open(key), r = reference.open(key);
        return compareTensors(key, actual.name, a, reference.name, r, judgedDtype(a.dtype), standard, bandBytes,
                              control.cancelled);
    } catch (const FileError& e) {
        if (control.unreadable) control.unreadable(key, e.what());
        return notCompared(key, actual.name, reference.name, std::string("cannot read: ") + e.what(), standard);
    }
}

}  // namespace

std::vector<Comparison> compareTensorSets(const TensorSet& actual, const TensorSet& reference,
                                          const metrics::Standard& standard, const SetCompareControl& control,
                                          uint64_t bandBytes) {
    const std::unordered_set<std::string> inActual(actual.keys.begin(), actual.keys.end()),
        inReference(reference.keys.begin(), reference.keys.end());
    const std::vector<std::string> keys = comparedKeys(actual, reference);
    std::vector<Comparison> out;
    for (const std::string& key : keys) {
        if (control.cancelled && control.cancelled->load()) break;
        if (!inActual.count(key) || !inReference.count(key)) {
            out.push_back(missingOutput(key, actual.name, reference.name,
                                        inActual.count(key) ? reference.name : actual.name, standard));
        } else {
            std::optional<Comparison> c = compareKey(key, actual, reference, standard, control, bandBytes);
            if (!c) break;  // cancelled within the key
            out.push_back(std::move(*c));
        }
        if (control.compared) control.compared(out.back(), out.size(), keys.size());
    }
    return out;
}

}  // namespace opscope::ops
