#include "opscope/launch_memory.h"

#include <cstring>

#include "opscope/error.h"

namespace opscope {
namespace {

bool isCaller(const Slot& s) { return s.kind != SlotKind::Scratch; }

// [begin, end) addresses of the bytes a non-empty view touches.
struct AddressRange {
    std::uintptr_t begin = 0, end = 0;
    bool overlaps(const AddressRange& o) const { return begin < o.end && o.begin < end; }
};

AddressRange addressRange(const TensorView& v) {
    const TensorView::ByteRange r = v.byteRange();
    const auto base = reinterpret_cast<std::uintptr_t>(v.data);
    return {base + r.begin, base + r.end};  // aclCreateTensor refused views that wrap
}

bool touchesMemory(const Slot& s) { return isCaller(s) && s.view.data && !s.view.empty(); }

}  // namespace

void checkOutputsDoNotOverlapThemselves(const Plan& plan) {
    for (const Slot& s : plan.slots()) {
        if (s.kind != SlotKind::Output) continue;
        for (std::size_t i = 0; i < s.view.shape.size(); ++i)
            if (s.view.shape[i] > 1 && s.view.strides[i] == 0)
                fail(status::kParamInvalid, Msg() << s.name << " " << s.view.describe() << " has stride 0 in dimension "
                                                  << i << " of size " << s.view.shape[i]
                                                  << ": several output elements would share one address");
    }
}

std::vector<device::Region> callerBlocks(const Plan& plan) {
    std::vector<device::Region> blocks(plan.slots().size());
    for (std::size_t i = 0; i < blocks.size(); ++i)
        if (touchesMemory(plan.slots()[i])) blocks[i] = device::find(plan.slots()[i].view.data);
    return blocks;
}

void checkLaunchMemory(const Plan& plan, const std::vector<device::Region>& blocks, const void* workspace,
                       uint64_t workspaceSize) {
    for (std::size_t i = 0; i < plan.slots().size(); ++i) {
        const Slot& s = plan.slots()[i];
        if (!touchesMemory(s)) continue;
        const device::Region was = i < blocks.size() ? blocks[i] : device::Region{};
        const device::Region now = device::find(s.view.data);
        const std::string what = Msg() << s.name << " (" << s.view.describe() << " at " << s.view.data << ")";
        if (!was.base)
            fail(status::kRuntimeError, Msg() << what
                                              << " is not in device memory from aclrtMalloc (host memory, or freed "
                                                 "before phase 1): the device cannot reach it");
        if (!now.base || now.serial != was.serial)
            fail(status::kRuntimeError,
                 Msg() << what << " lies in a block of " << was.size << " bytes that was freed (aclrtFree) "
                       << "after phase 1" << (now.base ? "; another allocation now sits there" : ""));
        const std::size_t need = s.view.byteRange().end, have = now.bytesFrom(s.view.data);
        if (need > have)
            fail(status::kRuntimeError, Msg() << what << " needs " << need
                                              << " bytes from its data pointer but its aclrtMalloc block "
                                              << "has " << have << " from there");
    }
    if (!workspace) return;
    const device::Region ws = device::find(workspace);
    if (!ws.base) {
        if (plan.workspaceBytes() > 0)
            fail(status::kRuntimeError, Msg() << "workspace " << workspace << " is not device memory from aclrtMalloc "
                                              << "(freed, or host memory)");
        return;
    }
    if (ws.bytesFrom(workspace) < workspaceSize)
        fail(status::kRuntimeError, Msg() << "workspaceSize is " << workspaceSize
                                          << " bytes but the aclrtMalloc block at workspace "
                                          << "holds only " << ws.bytesFrom(workspace) << " bytes from there");
}

InputSnapshot::InputSnapshot(Plan& plan) : plan_(plan) {
    const std::vector<Slot>& slots = plan.slots();
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const Slot& in = slots[i];
        if (in.kind != SlotKind::Input || !touchesMemory(in)) continue;
        const AddressRange r = addressRange(in.view);
        bool aliased = false;
        for (const Slot& out : slots)
            aliased =
                aliased || (out.kind == SlotKind::Output && touchesMemory(out) && addressRange(out.view).overlaps(r));
        if (!aliased) continue;
        const TensorView::ByteRange bytes = in.view.byteRange();
        copies_.emplace_back(new char[bytes.end - bytes.begin]);
        std::memcpy(copies_.back().get(), reinterpret_cast<const void*>(r.begin), bytes.end - bytes.begin);
        saved_.push_back({static_cast<int>(i), in.view.data, in.view.offset});
        // The copy starts at the lowest element the view touches.
        const auto lowest = static_cast<int64_t>(bytes.begin / in.view.elementSize());
        plan.rebindCaller(static_cast<int>(i), copies_.back().get(), in.view.offset - lowest);
    }
}

InputSnapshot::~InputSnapshot() {
    for (const Saved& s : saved_) plan_.rebindCaller(s.slot, s.data, s.offset);
}

}  // namespace opscope
