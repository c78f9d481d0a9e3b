#include "opscope/plan.h"

#include "opscope/checked_math.h"
#include "opscope/error.h"
#include "opscope/names.h"

namespace opscope {

namespace {
constexpr Named<SlotKind> kSlotKinds[] = {
    {SlotKind::Input, "input"}, {SlotKind::Output, "output"}, {SlotKind::Scratch, "scratch"}};
}  // namespace

const char* slotKindName(SlotKind k) { return nameOf(kSlotKinds, k); }

int Plan::addInput(const std::string& name, const TensorView& view) {
    slots_.push_back({name, SlotKind::Input, view, 0, 0});
    return static_cast<int>(slots_.size() - 1);
}

int Plan::addOutput(const std::string& name, const TensorView& view) {
    slots_.push_back({name, SlotKind::Output, view, 0, 0});
    return static_cast<int>(slots_.size() - 1);
}

int Plan::addScratch(const std::string& name, DType dtype, const std::vector<int64_t>& shape) {
    Slot s;
    s.name = name;
    s.kind = SlotKind::Scratch;
    s.view = TensorView::contiguous(dtype, shape, nullptr);
    s.bytes = s.view.byteRange().end;  // checked: numel * element size
    std::size_t end = 0;
    if (!checkedAdd(workspaceBytes_, kWorkspaceAlignment - 1, &s.wsOffset) ||
        !checkedAdd(s.wsOffset / kWorkspaceAlignment * kWorkspaceAlignment, s.bytes, &end))
        fail(status::kParamInvalid, Msg() << "scratch tensor '" << name << "' " << dtypeName(dtype)
                                          << shapeToString(shape)
                                          << " makes the workspace larger than 64-bit sizes hold");
    s.wsOffset = s.wsOffset / kWorkspaceAlignment * kWorkspaceAlignment;
    workspaceBytes_ = end;
    slots_.push_back(std::move(s));
    return static_cast<int>(slots_.size() - 1);
}

void Plan::addStep(Step step) { steps_.push_back(std::move(step)); }

int Plan::findSlot(const std::string& name) const {
    for (std::size_t i = 0; i < slots_.size(); ++i)
        if (slots_[i].name == name) return static_cast<int>(i);
    return -1;
}

void Plan::rebindCaller(int id, void* data, int64_t offset) {
    Slot& s = slots_.at(static_cast<std::size_t>(id));
    if (s.kind == SlotKind::Scratch)
        fail(status::kInner, Msg() << "slot '" << s.name << "' is scratch, not a caller tensor");
    s.view.data = data;
    s.view.offset = offset;
}

void Plan::moveCallerStorage(const void* from, void* to) {
    for (Slot& s : slots_)
        if (s.kind != SlotKind::Scratch && s.view.data == from) s.view.data = to;
}

TensorView Plan::resolve(int id, void* workspace) const {
    const Slot& s = slot(id);
    if (s.kind != SlotKind::Scratch) return s.view;
    TensorView v = s.view;
    if (s.bytes > 0 && !workspace)
        fail(status::kRuntimeError, Msg() << "scratch tensor '" << s.name << "' needs a workspace but none is bound");
    v.data = static_cast<char*>(workspace) + s.wsOffset;
    return v;
}

}  // namespace opscope
