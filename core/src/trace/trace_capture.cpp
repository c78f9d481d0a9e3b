#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "opscope/names.h"
#include "opscope/parallel.h"
#include "opscope/trace.h"
#include "../process_list.h"

namespace opscope {

namespace {
// The name each level is written with comes first; the rest are the spellings `parseTraceLevel` accepts.
constexpr Named<TraceLevel> kTraceLevels[] = {
    {TraceLevel::Metadata, "metadata"}, {TraceLevel::Stats, "stats"},  {TraceLevel::Full, "full"},
    {TraceLevel::Metadata, "meta"},     {TraceLevel::Metadata, "0"},   {TraceLevel::Stats, "statistics"},
    {TraceLevel::Stats, "1"},           {TraceLevel::Full, "tensors"}, {TraceLevel::Full, "2"}};
}  // namespace

const char* traceLevelName(TraceLevel l) { return nameOf(kTraceLevels, l, "stats"); }

bool parseTraceLevel(const std::string& text, TraceLevel* out) { return parseNamed(text, kTraceLevels, out); }

TensorRecord TraceCapture::recordSlot(const Executor& e, int slot, bool withValues) const {
    const Slot& s = e.plan().slot(slot);
    const TensorView v = e.slotView(slot);
    TensorRecord r;
    r.name = s.name;
    r.kind = slotKindName(s.kind);
    r.dtype = v.dtype;
    r.shape = v.shape;
    r.strides = v.strides;
    r.contiguous = v.isContiguous();
    if (level_ >= TraceLevel::Stats) r.stats = computeStats(v);
    if (withValues && level_ >= TraceLevel::Full) r.values = HostTensor::copyOf(v);
    return r;
}

void TraceCapture::onRunBegin(const Executor& e) {
    std::lock_guard<std::mutex> lk(mutex_);
    ExecutorTrace t;
    t.executorId = e.id();
    t.op = e.opName();
    t.product = productId(e.product());
    t.params = e.params();
    t.threads = numThreads();
    t.workspaceBytes = e.plan().workspaceBytes();
    t.startUs = traceClockUs();
    const auto& slots = e.plan().slots();
    for (std::size_t i = 0; i < slots.size(); ++i)
        if (slots[i].kind == SlotKind::Input) t.inputs.push_back(recordSlot(e, static_cast<int>(i), true));
    open_.erase(std::remove_if(open_.begin(), open_.end(), [&](const auto& p) { return p.first == e.id(); }),
                open_.end());
    open_.emplace_back(e.id(), std::move(t));
}

void TraceCapture::onStepEnd(const Executor& e, const StepRecord& r) {
    std::lock_guard<std::mutex> lk(mutex_);
    auto it = std::find_if(open_.begin(), open_.end(), [&](const auto& p) { return p.first == e.id(); });
    if (it == open_.end()) return;
    const Step& step = e.plan().steps()[r.index];
    StepTrace st;
    st.index = r.index;
    st.name = step.name;
    st.detail = step.detail;
    for (int s : step.inputs) st.inputs.push_back(e.plan().slot(s).name);
    for (int s : step.outputs) st.outputs.push_back(e.plan().slot(s).name);
    st.startUs = r.startUs;
    st.durationUs = r.durationUs;
    if (level_ >= TraceLevel::Stats)
        for (int s : step.outputs) st.outputTensors.push_back(recordSlot(e, s, true));
    it->second.steps.push_back(std::move(st));
}

void TraceCapture::onRunEnd(const Executor& e, bool completed) {
    std::lock_guard<std::mutex> lk(mutex_);
    auto it = std::find_if(open_.begin(), open_.end(), [&](const auto& p) { return p.first == e.id(); });
    if (it == open_.end()) return;
    ExecutorTrace t = std::move(it->second);
    open_.erase(it);
    t.completed = completed;
    t.durationUs = traceClockUs() - t.startUs;
    const auto& slots = e.plan().slots();
    for (std::size_t i = 0; i < slots.size(); ++i)
        if (slots[i].kind == SlotKind::Output) t.outputs.push_back(recordSlot(e, static_cast<int>(i), true));
    onExecutorTrace(std::move(t));
}

namespace {

ProcessList<std::weak_ptr<TraceFileWriter>>& activeTraces() {
    static auto* traces = new ProcessList<std::weak_ptr<TraceFileWriter>>();
    return *traces;
}

}  // namespace

std::shared_ptr<TraceFileWriter> startTrace(const std::string& path, TraceLevel level, TraceWriteMode mode) {
    auto w = std::make_shared<TraceFileWriter>(path, level, mode);
    static const bool registered = std::atexit(flushTraces) == 0;  // a queued executor is not lost at exit
    (void)registered;
    activeTraces().add(w);
    addGlobalObserver(w);
    return w;
}

void stopTrace(const std::shared_ptr<TraceFileWriter>& trace) {
    removeGlobalObserver(trace);
    trace->drain();
}

void flushTraces() {
    for (const std::weak_ptr<TraceFileWriter>& w : activeTraces().snapshot())
        if (auto live = w.lock()) live->drain();
}

void startTraceFromEnvironment() {
    static std::once_flag once;
    std::call_once(once, [] {
        const char* path = std::getenv("OPSCOPE_TRACE");
        if (!path || !*path) return;
        TraceLevel level = TraceLevel::Stats;
        if (const char* l = std::getenv("OPSCOPE_TRACE_LEVEL"); l && *l && !parseTraceLevel(l, &level))
            std::fprintf(stderr, "opscope: OPSCOPE_TRACE_LEVEL='%s' is not metadata, stats or full; using stats\n", l);
        const char* sync = std::getenv("OPSCOPE_TRACE_SYNC");
        const TraceWriteMode mode =
            sync && *sync && std::string(sync) != "0" ? TraceWriteMode::Synchronous : TraceWriteMode::Background;
        try {
            startTrace(path, level, mode);
            std::fprintf(stderr, "opscope: tracing executors to %s (level %s%s)\n", path, traceLevelName(level),
                         mode == TraceWriteMode::Synchronous ? ", synchronous" : "");
        } catch (const std::exception& ex) {
            std::fprintf(stderr, "opscope: cannot start the trace requested by OPSCOPE_TRACE: %s\n", ex.what());
        }
    });
}

}  // namespace opscope
