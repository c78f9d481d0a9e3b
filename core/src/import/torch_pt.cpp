// torch.save files (see torch_pt.h). The pickle rebuilds each tensor as
// torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...) with storage = persistent
// id ('storage', torch.FloatStorage, key, location, numel[, view]); where the pickle and the
// storages' bytes lie is the layout's business (torch_archive.h: zip, or legacy).
#include "opscope/import/torch_pt.h"

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "byte_order.h"
#include "opscope/checked_math.h"
#include "opscope/import/format_error.h"
#include "opscope/import/zip_archive.h"
#include "opscope/text_list.h"
#include "pickle_reader.h"
#include "torch_archive.h"
#include "tensor_source.h"

namespace opscope::import {
namespace {

using detail::PyRef;
using detail::PyValue;

DType storageDtype(const std::string& global) {
    static const std::map<std::string, DType> table = {
        {"torch.FloatStorage", DType::Float32},     {"torch.HalfStorage", DType::Float16},
        {"torch.BFloat16Storage", DType::BFloat16}, {"torch.DoubleStorage", DType::Float64},
        {"torch.LongStorage", DType::Int64},        {"torch.IntStorage", DType::Int32},
        {"torch.ShortStorage", DType::Int16},       {"torch.CharStorage", DType::Int8},
        {"torch.ByteStorage", DType::UInt8},        {"torch.BoolStorage", DType::Bool}};
    auto it = table.find(global);
    return it == table.end() ? DType::Undefined : it->second;
}

constexpr uint64_t kMaxExpandedBytes = uint64_t(1) << 30;

using Storage = detail::TorchStorage;

// A tensor as the pickle describes it: a checked view of a storage whose bytes are read only
// when this tensor is asked for, so that one key of a large state dict reads one storage.
struct LazyTensor {
    std::shared_ptr<Storage> storage;
    std::vector<int64_t> size, stride;
    int64_t offset = 0;
    int64_t last = 0;  // the farthest element the view reaches
    bool empty = false;
};

// The meaning of a torch.save pickle, whichever layout holds it: storages by persistent id,
// tensors rebuilt as checked views of them, and nothing else called.
class PtLoader {
public:
    PtLoader(const std::string& path, std::unique_ptr<detail::TorchArchive> archive)
        : path_(path), archive_(std::move(archive)) {}

    PyRef load() {
        detail::PickleHooks hooks;
        hooks.persistentLoad = [this](const PyRef& pid) { return persistentLoad(pid); };
        hooks.call = [this](const std::string& global, const PyRef& args) { return call(global, args); };
        return archive_->load(hooks, storages_, arena_);
    }

    [[noreturn]] void fail(const std::string& why) const { detail::failTorchFile(path_, why); }

    // A tensor of the pickle (load() has checked its view), as a contiguous copy. Only the
    // elements from its offset to the farthest it reaches are read: one tensor of several that
    // share a storage (tied weights, slices of a flat buffer) costs its own bytes.
    HostTensor materialize(const PyRef& tensor) const {
        const LazyTensor& t = *std::static_pointer_cast<LazyTensor>(tensor->object);
        if (t.empty) return HostTensor(t.storage->dtype, t.size);
        archive_->check(*t.storage);  // its size checked before anything is allocated
        const int64_t count = t.last - t.offset + 1;
        const uint64_t viewBytes = static_cast<uint64_t>(shapeNumel(t.size)) * dtypeSize(t.storage->dtype);
        if (shapeNumel(t.size) > count && viewBytes > kMaxExpandedBytes)  // stride 0: more than the file holds
            fail(std::string("a ") + dtypeName(t.storage->dtype) + shapeToString(t.size) + " view of " +
                 std::to_string(count) + " stored elements (an expanded tensor) would take " +
                 std::to_string(viewBytes) + " bytes; OpScope materializes at most 1 GiB beyond what the file holds");
        const bool contiguous = count == shapeNumel(t.size) && t.stride == TensorView::contiguousStrides(t.size);
        HostTensor out(t.storage->dtype, contiguous ? t.size : std::vector<int64_t>{count});
        readElements(*t.storage, t.offset, count, out.data());
        if (contiguous) return out;
        TensorView v = out.view();
        v.shape = t.size;
        v.strides = t.stride;
        return HostTensor::copyOf(v);
    }

    // Where a tensor of the pickle lies in its storage, for reading a block of it.
    detail::TensorLayout layoutOf(const PyRef& tensor, const std::string& key) const {
        const LazyTensor& t = *std::static_pointer_cast<LazyTensor>(tensor->object);
        if (!t.empty) archive_->check(*t.storage);
        detail::TensorLayout l{TensorEntry{key, t.storage->dtype, t.size}, t.stride, t.offset, {}};
        l.readElements = [this, storage = t.storage](int64_t first, int64_t count, void* out) {
            readElements(*storage, first, count, out);
        };
        return l;
    }

private:
    PyRef persistentLoad(const PyRef& pid) {
        const auto& t = pid->items;
        if (pid->kind == PyValue::Kind::Tuple && !t.empty() && t[0]->kind == PyValue::Kind::String &&
            t[0]->s == "module")
            fail("it saves a whole nn.Module (torch.save(model)); save its state_dict() instead");
        const std::size_t arity = archive_->legacy() ? 6 : 5;  // legacy: and a storage view
        if (pid->kind != PyValue::Kind::Tuple || t.size() != arity || t[0]->kind != PyValue::Kind::String ||
            t[0]->s != "storage" || t[1]->kind != PyValue::Kind::Global || t[2]->kind != PyValue::Kind::String ||
            t[4]->kind != PyValue::Kind::Int)
            fail(std::string("a persistent id that is not ('storage', type, key, location, numel") +
                 (archive_->legacy() ? ", view)" : ")"));
        if (arity == 6 && t[5]->kind != PyValue::Kind::None)
            fail("a view of a storage, which PyTorch before 1.0 wrote; load it in PyTorch and save it again");
        const DType dtype = storageDtype(t[1]->s);
        if (dtype == DType::Undefined) fail("storage type " + t[1]->s + " is not one OpScope reads");
        if (t[4]->i < 0) fail("a storage of " + std::to_string(t[4]->i) + " elements");
        auto& slot = storages_[t[2]->s];
        if (!slot) {
            slot = std::make_shared<Storage>();
            slot->dtype = dtype;
            slot->key = t[2]->s;
            slot->numel = t[4]->i;
        } else if (slot->dtype != dtype) {
            fail("storage '" + t[2]->s + "' is used as two dtypes");
        }
        auto v = detail::makeValue(PyValue::Kind::Object);
        v->objectType = "storage";
        v->object = slot;
        return v;
    }

    // `count` elements of a storage from element `first`, into `out`, read for this tensor and not
    // kept: a source stays open over a compare of every key, and a checkpoint's storages together
    // are the checkpoint's size.
    void readElements(const Storage& s, int64_t first, int64_t count, void* out) const {
        const uint64_t size = dtypeSize(s.dtype);
        archive_->read(s, static_cast<uint64_t>(first) * size, static_cast<uint64_t>(count) * size, out);
        if (archive_->bigEndian()) detail::swapBytes(out, static_cast<std::size_t>(count), size);
        if (s.dtype == DType::Bool)
            for (int64_t i = 0; i < count; ++i)
                if (static_cast<const uint8_t*>(out)[i] > 1)
                    fail("bool storage '" + s.key + "' holds a byte other than 0 and 1");
    }

    std::vector<int64_t> intTuple(const PyRef& v, const char* what) const {
        if (v->kind != PyValue::Kind::Tuple && v->kind != PyValue::Kind::List)
            fail(std::string(what) + " is not a tuple");
        std::vector<int64_t> out;
        for (const PyRef& item : v->items) {
            if (item->kind != PyValue::Kind::Int) fail(std::string(what) + " holds a non-integer");
            out.push_back(item->i);
        }
        return out;
    }

    PyRef rebuildTensor(const std::vector<PyRef>& a) {
        if (a.size() < 4 || a[0]->kind != PyValue::Kind::Object || a[0]->objectType != "storage" ||
            a[1]->kind != PyValue::Kind::Int)
            fail("_rebuild_tensor_v2 without (storage, offset, size, stride)");
        Storage& s = *std::static_pointer_cast<Storage>(a[0]->object);
        const std::vector<int64_t> size = intTuple(a[2], "a tensor's size");
        const std::vector<int64_t> stride = intTuple(a[3], "a tensor's stride");
        const int64_t offset = a[1]->i;
        if (size.size() != stride.size()) fail("a tensor's size and stride have different lengths");
        if (size.size() > 64) fail("a tensor of rank " + std::to_string(size.size()));
        // The farthest element the view reaches must lie inside the storage.
        bool empty = false;
        int64_t last = offset;
        uint64_t elements = 1;
        for (int64_t n : size)
            if (n >= 0 && !checkedMul(elements, static_cast<uint64_t>(n), &elements)) fail("a view that overflows");
        if (elements > static_cast<uint64_t>(INT64_MAX)) fail("a view that overflows");
        for (std::size_t i = 0; i < size.size(); ++i) {
            if (size[i] < 0 || stride[i] < 0) fail("a negative size or stride");
            if (size[i] == 0)
                empty = true;
            else if (stride[i] > 0 && size[i] - 1 > (INT64_MAX - last) / stride[i])
                fail("a view that overflows");
            else
                last += (size[i] - 1) * stride[i];
        }
        if (offset < 0 || (!empty && last >= s.numel))
            throw FormatError("'" + path_ + "' is damaged: a " + dtypeName(s.dtype) + shapeToString(size) +
                              " view at offset " + std::to_string(offset) + " reaches element " + std::to_string(last) +
                              " of a storage of " + std::to_string(s.numel));
        auto tensor = std::make_shared<LazyTensor>(
            LazyTensor{std::static_pointer_cast<Storage>(a[0]->object), size, stride, offset, last, empty});
        auto out = detail::makeValue(PyValue::Kind::Object);
        out->objectType = "tensor";
        out->object = tensor;
        return out;
    }

    // torch.save of a tensor on an Ascend NPU, as torch_npu's Tensor.__reduce_ex__ writes it (and
    // so every tensor of an msprobe dump of an NPU run): _rebuild_npu_tensor(storage, offset, size,
    // stride, requires_grad, hooks, npu format) over a copy in the tensor's origin format (its .cpu()
    // copy; before torch_npu 2.x, the device tensor cast back to its origin format, a storage on
    // "npu:0"). The origin format is a base one (ND, NCHW), so the bytes are the plain elements;
    // the device format (FRACTAL_NZ, NC1HWC0, ...) only says how torch_npu lays it out again.
    PyRef rebuildNpuTensor(const std::vector<PyRef>& a) {
        if (a.size() != 7) fail("_rebuild_npu_tensor with " + std::to_string(a.size()) + " arguments, not 7");
        const PyValue::Kind format = a[6]->kind;
        if (format != PyValue::Kind::Int && format != PyValue::Kind::Bool && format != PyValue::Kind::String)
            fail("_rebuild_npu_tensor whose device format is not a format");
        return rebuildTensor(a);
    }

    static bool isTorchNpu(const std::string& global, const std::string& suffix) {
        return global.rfind("torch_npu.", 0) == 0 && global.size() > suffix.size() &&
               global.compare(global.size() - suffix.size(), suffix.size(), suffix) == 0;
    }

    PyRef call(const std::string& global, const PyRef& args) {
        const auto& a = args->items;
        if (global == "torch._utils._rebuild_tensor_v2" || global == "torch._utils._rebuild_tensor")
            return rebuildTensor(a);
        if (isTorchNpu(global, "._rebuild_npu_tensor")) return rebuildNpuTensor(a);
        // The device format of an NPU tensor, an IntEnum: Format(29) as Python before 3.11 pickles a
        // member, getattr(Format, "FRACTAL_NZ") as 3.11 does. Only that getattr is taken.
        if (isTorchNpu(global, "._format.Format")) {
            if (a.size() != 1 || a[0]->kind != PyValue::Kind::Int) fail(global + " of something not an integer");
            return a[0];
        }
        if (global == "__builtin__.getattr" || global == "builtins.getattr") {
            if (a.size() != 2 || a[0]->kind != PyValue::Kind::Global || !isTorchNpu(a[0]->s, "._format.Format") ||
                a[1]->kind != PyValue::Kind::String)
                fail("it calls getattr on something other than torch_npu's Format");
            return a[1];
        }
        // A tensor with Python attributes (PyTorch 2.x: tensor.sequence_parallel = True, ...):
        // _rebuild_from_type_v2(rebuild, torch.Tensor, its arguments, the attributes), which are
        // dropped. The rebuild is one of the calls here; a subclass of Tensor is refused.
        if (global == "torch._tensor._rebuild_from_type_v2") {
            if (a.size() != 4 || a[0]->kind != PyValue::Kind::Global || a[1]->kind != PyValue::Kind::Global ||
                a[2]->kind != PyValue::Kind::Tuple)
                fail("_rebuild_from_type_v2 without (rebuild, type, arguments, state)");
            if (a[1]->s != "torch.Tensor" && a[1]->s != "torch.nn.parameter.Parameter")
                fail("a tensor of the subclass " + a[1]->s + ", which OpScope does not rebuild");
            return call(a[0]->s, a[2]);
        }
        if (global == "torch._utils._rebuild_parameter" || global == "torch._utils._rebuild_parameter_with_state") {
            if (a.empty() || a[0]->objectType != "tensor") fail("_rebuild_parameter without a tensor");
            return a[0];
        }
        if (global == "collections.OrderedDict") {
            if (!a.empty()) fail("OrderedDict built from arguments");
            return detail::makeValue(PyValue::Kind::Dict);
        }
        fail("it calls " + global + ", which is not part of a saved tensor");
    }

    std::string path_;
    std::unique_ptr<detail::TorchArchive> archive_;
    detail::TorchStorages storages_;
    detail::PickleArena arena_;  // the pickle's lists and dicts, freed with the loader (cycles too)
};

std::string keyText(const PyRef& k) {
    if (k->kind == PyValue::Kind::String) return k->s;
    if (k->kind == PyValue::Kind::Int) return std::to_string(k->i);
    return "?";
}

constexpr int kMaxNesting = 32;  // far beyond a checkpoint's {"model": {...}, "optimizer": {"state": {0: {...}}}}

using Members = std::vector<std::pair<std::string, PyRef>>;

void collectTensors(const PyRef& v, const std::string& prefix, int depth, std::set<const PyValue*>& walked,
                    Members& out) {
    if (depth > kMaxNesting || !walked.insert(v.get()).second) return;  // a pickle can make a list hold itself
    auto visit = [&](const std::string& key, const PyRef& member) {
        const std::string path = prefix.empty() ? key : prefix + "/" + key;
        if (member->objectType == "tensor")
            out.emplace_back(path, member);
        else
            collectTensors(member, path, depth + 1, walked, out);
    };
    if (v->kind == PyValue::Kind::Dict)
        for (std::size_t i = 0; i + 1 < v->items.size(); i += 2) visit(keyText(v->items[i]), v->items[i + 1]);
    else if (v->kind == PyValue::Kind::Tuple || v->kind == PyValue::Kind::List)
        for (std::size_t i = 0; i < v->items.size(); ++i) visit(std::to_string(i), v->items[i]);
}

// The tensors of a container (dict, tuple, list) and of the containers in it, each with its key:
// the keys on the way joined with '/', so that a training checkpoint's {"model": state_dict,
// "optimizer": ...} offers "model/conv.weight" (a state dict's own keys hold dots, never '/').
// Other members (numbers, strings) are left out.
Members tensorMembers(const PyRef& v) {
    Members out;
    std::set<const PyValue*> walked;
    collectTensors(v, "", 0, walked, out);
    return out;
}

// The layout of a torch.save file, by its first bytes.
std::unique_ptr<detail::TorchArchive> openArchive(const std::string& path) {
    if (ZipArchive::looksLikeZip(path)) return detail::openTorchZip(path);
    if (detail::looksLikeTorchLegacy(path)) return detail::openTorchLegacy(path);
    std::ifstream probe(path, std::ios::binary);
    if (!probe) throw FormatError("cannot open '" + path + "'");
    char tar[6] = {};
    probe.seekg(257);
    if (probe.read(tar, 5) && std::string(tar) == "ustar")
        throw FormatError("'" + path +
                          "' is a tar archive: the torch.save format of PyTorch 0.3 and older, "
                          "which OpScope does not read; load it in PyTorch and save it again");
    throw FormatError("'" + path +
                      "' is not a torch.save file: it is neither a zip archive (PyTorch 1.6 and "
                      "later) nor the legacy format (_use_new_zipfile_serialization=False, and PyTorch before 1.6)");
}

// A torch.save file opened: its pickle loaded and checked (every view inside its storage), each
// tensor's storage read when the tensor is.
class TorchPtSource final : public detail::TensorSource {
public:
    explicit TorchPtSource(const std::string& path) : path_(path) {
        loader_ = std::make_unique<PtLoader>(path, openArchive(path));
        root_ = loader_->load();
        members_ = tensorMembers(root_);
        for (std::size_t i = 0; i < members_.size(); ++i) byKey_.emplace(members_[i].first, i);
    }

    std::vector<std::string> keys() const override {
        std::vector<std::string> out;
        for (const auto& [k, v] : members_) out.push_back(k);
        return out;
    }

    std::vector<TensorEntry> describe() const override {
        auto entry = [](const std::string& key, const PyRef& v) {
            const LazyTensor& t = *std::static_pointer_cast<LazyTensor>(v->object);
            return TensorEntry{key, t.storage->dtype, t.size};
        };
        if (root_->objectType == "tensor") return {entry("", root_)};
        std::vector<TensorEntry> out;
        for (const auto& [k, v] : members_) out.push_back(entry(k, v));
        return out;
    }

    HostTensor read(const std::string& key) const override { return loader_->materialize(tensorOf(key)); }
    detail::TensorLayout layout(const std::string& key) const override { return loader_->layoutOf(tensorOf(key), key); }

private:
    // The tensor of `key`, or the file's one bare tensor for "".
    const PyRef& tensorOf(const std::string& key) const {
        if (key.empty()) {
            if (root_->objectType == "tensor") return root_;
            const std::string keys = joinList(this->keys());
            throw FormatError("'" + path_ + "' holds " +
                              (keys.empty() ? std::string("no tensor") : "several tensors (" + keys + ")") +
                              (keys.empty() ? "" : ": name one as '" + path_ + ":KEY'"));
        }
        const auto found = byKey_.find(key);
        if (found == byKey_.end()) throw FormatError("no tensor '" + key + "' in '" + path_ + "'");
        return members_[found->second].second;
    }

    std::string path_;
    std::unique_ptr<PtLoader> loader_;
    PyRef root_;
    Members members_;
    std::unordered_map<std::string, std::size_t> byKey_;  // the first member of each key
};

}  // namespace

std::unique_ptr<detail::TensorSource> detail::openTorchPt(const std::string& path) {
    return std::make_unique<TorchPtSource>(path);
}

HostTensor readTorchPt(const std::string& path, const std::string& key) { return TorchPtSource(path).read(key); }

}  // namespace opscope::import
