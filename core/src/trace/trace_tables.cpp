#include "trace_tables.h"

#include <cstddef>
#include <cstdio>

namespace opscope::trace_v2 {

namespace {

// A table's row type, built on first use and never destroyed: the trace is still flushed at
// exit (flushTraces), after static destructors may have run.
h5::RowType& newRowType(std::size_t rowBytes) { return *new h5::RowType(rowBytes); }

}  // namespace

const h5::RowType& executorRowType() {
    using R = ExecutorRow;
    static const h5::RowType& type = newRowType(sizeof(R))
                                         .int64("executor_id", offsetof(R, executorId))
                                         .int32("op", offsetof(R, op))
                                         .int32("product", offsetof(R, product))
                                         .int32("threads", offsetof(R, threads))
                                         .boolean("completed", offsetof(R, completed))
                                         .int64("workspace_bytes", offsetof(R, workspaceBytes))
                                         .float64("start_us", offsetof(R, startUs))
                                         .float64("duration_us", offsetof(R, durationUs))
                                         .int64("first_param", offsetof(R, firstParam))
                                         .int32("param_count", offsetof(R, paramCount))
                                         .int64("first_step", offsetof(R, firstStep))
                                         .int32("step_count", offsetof(R, stepCount))
                                         .int64("first_tensor", offsetof(R, firstTensor))
                                         .int32("tensor_count", offsetof(R, tensorCount));
    return type;
}

const h5::RowType& paramRowType() {
    using R = ParamRow;
    static const h5::RowType& type = newRowType(sizeof(R))
                                         .int64("executor", offsetof(R, executor))
                                         .int32("name", offsetof(R, name))
                                         .int32("type", offsetof(R, type))
                                         .int32("value", offsetof(R, value));
    return type;
}

const h5::RowType& stepRowType() {
    using R = StepRow;
    static const h5::RowType& type = newRowType(sizeof(R))
                                         .int64("executor", offsetof(R, executor))
                                         .int32("index", offsetof(R, index))
                                         .int32("name", offsetof(R, name))
                                         .int32("detail", offsetof(R, detail))
                                         .int32("inputs", offsetof(R, inputs))
                                         .int32("outputs", offsetof(R, outputs))
                                         .float64("start_us", offsetof(R, startUs))
                                         .float64("duration_us", offsetof(R, durationUs));
    return type;
}

const h5::RowType& tensorRowType() {
    using R = TensorRow;
    static const h5::RowType& type = newRowType(sizeof(R))
                                         .int64("executor", offsetof(R, executor))
                                         .int32("step", offsetof(R, step))
                                         .int32("name", offsetof(R, name))
                                         .int32("kind", offsetof(R, kind))
                                         .int32("dtype", offsetof(R, dtype))
                                         .int32("rank", offsetof(R, rank))
                                         .int64Array("shape", offsetof(R, shape), kMaxRank)
                                         .int64Array("strides", offsetof(R, strides), kMaxRank)
                                         .boolean("contiguous", offsetof(R, contiguous))
                                         .boolean("has_stats", offsetof(R, hasStats))
                                         .int64("count", offsetof(R, count))
                                         .float64("min", offsetof(R, min))
                                         .float64("max", offsetof(R, max))
                                         .float64("mean", offsetof(R, mean))
                                         .float64("mean_abs", offsetof(R, meanAbs))
                                         .int64("nan_count", offsetof(R, nanCount))
                                         .int64("inf_count", offsetof(R, infCount))
                                         .int32("values", offsetof(R, values));
    return type;
}

std::string valuesPath(int64_t executorRow, int32_t step, const std::string& kind, const std::string& name) {
    char prefix[48];
    if (step >= 0)
        std::snprintf(prefix, sizeof prefix, "%s/%06lld/steps/%03d/", kValues, static_cast<long long>(executorRow),
                      step);
    else
        std::snprintf(prefix, sizeof prefix, "%s/%06lld/%s/", kValues, static_cast<long long>(executorRow),
                      kind == "output" ? "outputs" : "inputs");
    return prefix + name;
}

StringInterner::StringInterner() { ids_.emplace("", 0); }

StringId StringInterner::id(const std::string& s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    const auto next = static_cast<StringId>(committed_ + static_cast<int64_t>(pending_.size()));
    ids_.emplace(s, next);
    pending_.push_back(s);
    return next;
}

void StringInterner::commit() {
    committed_ += static_cast<int64_t>(pending_.size());
    pending_.clear();
}

void StringInterner::rollback() {
    for (const std::string& s : pending_) ids_.erase(s);
    pending_.clear();
}

void StringInterner::reset(const std::vector<std::string>& existing) {
    ids_.clear();
    pending_.clear();
    ids_.emplace("", 0);
    for (std::size_t i = 0; i < existing.size(); ++i) ids_.emplace(existing[i], static_cast<StringId>(i));
    committed_ = static_cast<int64_t>(existing.size());
}

}  // namespace opscope::trace_v2
