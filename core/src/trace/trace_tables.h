// The rows of trace format version 2 (docs/TRACE_FORMAT.md): one table per kind of record,
// strings interned in /strings. Shared by the writer (trace_file.cpp) and the reader
// (trace_read.cpp) so the two cannot disagree on a field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "opscope/h5/table.h"
#include "opscope/tensor_view.h"  // kMaxRank: the shape and strides columns hold that many

namespace opscope::trace_v2 {

inline constexpr int64_t kFormatVersion = 2;
inline constexpr const char* kStrings = "/strings";
inline constexpr const char* kExecutors = "/executors";
inline constexpr const char* kParams = "/params";
inline constexpr const char* kSteps = "/steps";
inline constexpr const char* kTensors = "/tensors";
inline constexpr const char* kValues = "/values";  // level full: /values/<executor>/...

// A string column holds a row number of /strings; row 0 is "".
using StringId = int32_t;

struct ExecutorRow {
    int64_t executorId;
    StringId op, product;
    int32_t threads;
    int8_t completed;
    int64_t workspaceBytes;
    double startUs, durationUs;
    int64_t firstParam, firstStep, firstTensor;  // rows of /params, /steps, /tensors
    int32_t paramCount, stepCount, tensorCount;
};

struct ParamRow {
    int64_t executor;            // row of /executors
    StringId name, type, value;  // type: "int", "float", "bool", "string", "int[]", "float[]", "bool[]"
};

struct StepRow {
    int64_t executor;
    int32_t index;
    StringId name, detail;
    StringId inputs, outputs;  // slot names joined by ","
    double startUs, durationUs;
};

struct TensorRow {
    int64_t executor;
    int32_t step;  // -1: an executor input or output (kind tells which); else the step that wrote it
    StringId name, kind, dtype;
    int32_t rank;
    int64_t shape[kMaxRank], strides[kMaxRank];
    int8_t contiguous;
    int8_t hasStats;
    int64_t count, nanCount, infCount;
    double min, max, mean, meanAbs;
    StringId values;  // path of the dataset holding the values (level full), else ""
};

const h5::RowType& executorRowType();
const h5::RowType& paramRowType();
const h5::RowType& stepRowType();
const h5::RowType& tensorRowType();

// Where the values of a tensor record live at level full.
std::string valuesPath(int64_t executorRow, int32_t step, const std::string& kind, const std::string& name);

// Gives each distinct string one row of /strings. New strings wait in pending() until the
// writer appends them; rollback() forgets them when that write fails.
class StringInterner {
public:
    StringInterner();  // "" is row 0
    StringId id(const std::string& s);
    const std::vector<std::string>& pending() const { return pending_; }
    void commit();
    void rollback();
    // Starts over from the strings a file already holds (after a failed write).
    void reset(const std::vector<std::string>& existing);
    int64_t committedCount() const { return committed_; }

private:
    std::unordered_map<std::string, StringId> ids_;
    std::vector<std::string> pending_;
    int64_t committed_ = 1;
};

}  // namespace opscope::trace_v2
