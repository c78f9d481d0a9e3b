// Value types the debugger's context hands to its views: what a prepared plan looks like,
// how far each step got, and the keys by which views ask for tensors. No behaviour here.
#pragma once

#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "opscope/dtype.h"
#include "opscope/executor.h"
#include "opscope/host_tensor.h"
#include "opscope/metrics.h"
#include "opscope/ops/evaluation.h"
#include "opscope/plan.h"
#include "opscope/stats.h"

namespace opscope::gui {

using TensorPtr = std::shared_ptr<const HostTensor>;
// Output name -> tensor (the float64 golden or a case's output source).
using TensorMap = std::map<std::string, HostTensor>;
using TensorMapPtr = std::shared_ptr<const TensorMap>;

struct SlotInfo {
    int id = -1;
    std::string name;
    SlotKind kind = SlotKind::Input;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    bool contiguous = true;
    std::size_t wsOffset = 0, bytes = 0;  // scratch only
    // The operator output this slot holds (itself, or a scratch "gradInput.float32" of the
    // same shape); "" for inputs and other scratch.
    std::string output;
};

struct StepInfo {
    std::size_t index = 0;
    std::string name, detail;
    std::vector<int> inputs, outputs;  // slot ids
};

struct PlanInfo {
    std::string op;       // aclnn name
    std::string product;  // product id the plan was built for
    std::string runAs;    // "" = the case's own dtypes
    uint64_t workspaceBytes = 0;
    std::vector<SlotInfo> slots;
    std::vector<StepInfo> steps;
    std::vector<Param> params;  // as the executor recorded them

    const SlotInfo* slot(int id) const {
        return id >= 0 && static_cast<std::size_t>(id) < slots.size() ? &slots[static_cast<std::size_t>(id)] : nullptr;
    }
    const SlotInfo* findSlot(const std::string& name) const {
        for (const SlotInfo& s : slots)
            if (s.name == name) return &s;
        return nullptr;
    }
};

enum class StepStatus { Pending, Done, Failed };

struct SlotResult {
    int slot = -1;
    TensorStats stats;
    std::optional<metrics::Judgement> judgement;  // when the slot holds an output and a baseline exists
    double maxRelError = 0;                       // valid with judgement
};

struct StepState {
    StepStatus status = StepStatus::Pending;
    double durationUs = 0;
    std::vector<SlotResult> outputs;
    bool nonFinite = false;
    // Worst verdict over the judged outputs of the step.
    std::optional<metrics::Verdict> verdict() const;
};

// True when the slot holds meaningful values at this point of the run: inputs always, other
// slots once a step that writes them has run.
bool slotWritten(const PlanInfo& plan, const std::vector<StepState>& steps, int slot);

// Why a run stopped.
enum class StopKind { None, End, Step, Breakpoint, NonFinite, ErrorExceeded, Cancelled, Failed };
const char* stopKindText(StopKind k);

// What a view may ask the context for.
struct TensorKey {
    enum class Source { Slot, Baseline, AbsError, RelError };
    Source source = Source::Slot;
    std::string name;  // slot name for Slot; output name otherwise

    bool operator==(const TensorKey& o) const { return source == o.source && name == o.name; }
    bool operator!=(const TensorKey& o) const { return !(*this == o); }
    bool operator<(const TensorKey& o) const { return source != o.source ? source < o.source : name < o.name; }
};

// One picked element's value after each step that wrote a tensor of its shape.
struct HistoryEntry {
    std::size_t step = 0;
    std::string stepName, slotName;
    double value = 0;
};

struct ElementPick {
    std::string slot;    // the tensor it was picked on
    std::string output;  // the operator output it belongs to ("" if none)
    std::vector<int64_t> shape;
    std::vector<int64_t> index;
    bool valid() const { return !slot.empty(); }
};

// Accuracy of one output against the baseline, with what the charts draw.
struct OutputAnalysis {
    std::string output;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    bool compared = true;  // false: not judged (no such baseline output, element counts differ)
    std::string note;      // why not
    metrics::ComparisonMetrics metrics;
    std::vector<metrics::Judgement> judgements;  // one per standard, the case's standard first
    // Streamed from the pair (metrics::summarizeErrors): no element-sized error maps are kept.
    // Until `summarized` (attachSummary), the charts have nothing to draw: the verdict comes first.
    bool summarized = false;
    std::vector<std::vector<metrics::AxisErrorStats>> perAxis;  // [axis][index]: the per-axis chart
    metrics::LogHistogram absHistogram, relHistogram;
    std::vector<metrics::ToleranceShare> relShares, absShares;
    // Sampled (|reference|, abs error, rel error) for the scatter chart.
    std::vector<double> sampleRef, sampleAbs, sampleRel;
};

struct AnalysisReport {
    std::string baselineName;  // "golden (float64)", "expected", ...
    std::string standard;      // the standard judging steps and the overall verdict
    std::vector<OutputAnalysis> outputs;
    // The evaluation (ops/evaluation.h) under the primary standard, one per output: what the
    // verdict is made of, as the CLI's.
    std::vector<ops::Comparison> comparisons;
    ops::Overall overall() const { return ops::overallOf(comparisons); }
    // Set by judgeDevices when the case holds a device's outputs and the baseline is the golden.
    ops::DeviceVerdict device;
    std::string storedOutputsNote;  // storedOutputsNote(): the call differs from the case as loaded
    const OutputAnalysis* find(const std::string& output) const {
        for (const OutputAnalysis& o : outputs)
            if (o.output == output) return &o;
        return nullptr;
    }
};
using AnalysisPtr = std::shared_ptr<const AnalysisReport>;

}  // namespace opscope::gui
