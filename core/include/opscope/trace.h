// Executor traces: every executor run recorded step by step into an HDF5 file.
// Started by OPSCOPE_TRACE=path.h5 (level from OPSCOPE_TRACE_LEVEL) or by startTrace().
// Layout: docs/TRACE_FORMAT.md.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include "opscope/executor.h"
#include "opscope/host_tensor.h"
#include "opscope/stats.h"

namespace opscope {

namespace h5 {
class File;
}
namespace trace_v2 {
struct WriterState;
}

enum class TraceLevel {
    Metadata = 0,  // names, parameters, shapes, dtypes, durations
    Stats = 1,     // + statistics of every input, output and step output
    Full = 2,      // + values of every input, output and intermediate
};
const char* traceLevelName(TraceLevel l);
bool parseTraceLevel(const std::string& text, TraceLevel* out);

struct TensorRecord {
    std::string name;
    std::string kind;  // "input", "output", "scratch"
    DType dtype = DType::Float32;
    std::vector<int64_t> shape, strides;
    bool contiguous = true;
    std::optional<TensorStats> stats;
    std::optional<HostTensor> values;
    // Read from a file: the dataset that holds the values ("" when they were not recorded),
    // set even when the reader was asked to skip loading them.
    std::string valuesPath;
};

struct StepTrace {
    std::size_t index = 0;
    std::string name, detail;
    std::vector<std::string> inputs, outputs;  // slot names
    double startUs = 0, durationUs = 0;
    std::vector<TensorRecord> outputTensors;  // stats/values of what the step wrote
};

struct ExecutorTrace {
    uint64_t executorId = 0;
    std::string op, product;
    std::vector<Param> params;
    int threads = 1;
    uint64_t workspaceBytes = 0;
    double startUs = 0, durationUs = 0;
    bool completed = false;
    std::vector<TensorRecord> inputs, outputs;
    std::vector<StepTrace> steps;
};

// Captures runs as ExecutorTrace values; subclasses decide where they go.
class TraceCapture : public ExecutorObserver {
public:
    explicit TraceCapture(TraceLevel level) : level_(level) {}
    TraceLevel level() const { return level_; }
    void onRunBegin(const Executor& e) override;
    void onStepEnd(const Executor& e, const StepRecord& r) override;
    void onRunEnd(const Executor& e, bool completed) override;

protected:
    virtual void onExecutorTrace(ExecutorTrace&& trace) = 0;

private:
    TensorRecord recordSlot(const Executor& e, int slot, bool withValues) const;
    TraceLevel level_;
    std::mutex mutex_;  // executors may run on several threads
    // Runs in flight, by executor id (a debugger may interleave executors).
    std::vector<std::pair<uint64_t, ExecutorTrace>> open_;
};

// How a writer hands executors to the file.
enum class TraceWriteMode {
    // A background thread writes them (the observed program waits only for the capture);
    // the queue is drained by stopTrace, aclFinalize, the writer's destructor, at exit, and
    // on a crash signal (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL: the handler waits up to 5 s
    // for the writers, then re-raises with the previous handler).
    Background,
    // Written before the executor call returns: after a crash the file holds every executor
    // that completed before it. OPSCOPE_TRACE_SYNC=1 selects this for OPSCOPE_TRACE.
    Synchronous,
};

// Writes finished executors to an HDF5 trace file in batches, flushing after each batch, so
// the file on disk always holds every executor written so far. The file stays open between batches and is closed when
// the writer has been idle for kIdleClose, by drain() (stopTrace, aclFinalize, exit) and by the destructor.
class TraceFileWriter : public TraceCapture {
public:
    // Creates (atomically replaces) `path` with an empty trace. Throws on I/O errors.
    TraceFileWriter(std::string path, TraceLevel level, TraceWriteMode mode = TraceWriteMode::Synchronous);
    ~TraceFileWriter() override;  // drains the queue
    const std::string& path() const { return path_; }
    // Waits until every executor handed over so far is in the file.
    void drain();
    std::size_t executorsWritten();

protected:
    void onExecutorTrace(ExecutorTrace&& trace) override;

private:
    static constexpr std::size_t kMaxQueued = 64;
    // The background writer writes a batch when kBatchTarget executors are queued or
    // kBatchWindow after the first one (so the file lags the program by at most that), and
    // closes the file after kIdleClose without executors.
    static constexpr std::size_t kBatchTarget = 32;
    static constexpr std::chrono::milliseconds kBatchWindow{50};
    static constexpr std::chrono::milliseconds kIdleClose{500};
    void writeBatch(const std::vector<ExecutorTrace>& batch);
    void writerLoop();
    void closeFile();

    std::string path_;
    TraceWriteMode mode_;
    std::unique_ptr<trace_v2::WriterState> state_;  // the open file and its interned strings
    std::size_t written_ = 0;
    std::mutex queueMutex_;
    std::condition_variable queueChanged_;
    std::deque<ExecutorTrace> queue_;
    bool writing_ = false;
    bool closeRequested_ = false;
    bool stopping_ = false;
    std::thread writer_;
};

// Starts a trace observed by every executor; returns it (stop with stopTrace, which drains).
std::shared_ptr<TraceFileWriter> startTrace(const std::string& path, TraceLevel level,
                                            TraceWriteMode mode = TraceWriteMode::Background);
void stopTrace(const std::shared_ptr<TraceFileWriter>& trace);
// Drains every active trace (aclFinalize and process exit call this).
void flushTraces();
// Honours OPSCOPE_TRACE / OPSCOPE_TRACE_LEVEL once per process (called by every Executor).
void startTraceFromEnvironment();

// Reading a trace back (for replay, the CLI and the GUI), format version 2 or 1. Each throws
// FileError with a sentence for a file that is not an OpScope trace or is damaged.
enum class TraceValues { Load, Skip };  // Skip: metadata and statistics only (valuesPath is set)
// A trace whose recording was cut off (a kill) is read up to its last complete executor; the
// torn tail is ignored and, when `tornTail` is given, described there ("" when there was none).
std::vector<ExecutorTrace> readTraceFile(const std::string& path, TraceValues values = TraceValues::Load,
                                         std::string* tornTail = nullptr);
std::vector<ExecutorTrace> readTrace(const h5::File& file, TraceValues values = TraceValues::Load,
                                     std::string* tornTail = nullptr);
// One executor, by its position in the file, with its values.
ExecutorTrace readTraceExecutor(const h5::File& file, std::size_t index);
// How listings and case paths name executor `index`: "/executors/000003".
std::string traceExecutorPath(std::size_t index);
// Parses such a name back; false when `path` is not one.
bool parseTraceExecutorPath(const std::string& path, std::size_t* index);
// Chrome trace-event JSON (Perfetto, chrome://tracing): one complete event per executor and
// per step. Written atomically.
void exportChromeTrace(const std::vector<ExecutorTrace>& traces, const std::string& jsonPath);

}  // namespace opscope
