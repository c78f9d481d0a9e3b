// Writes traces in format version 2 (docs/TRACE_FORMAT.md): rows appended to a few tables,
// executors in batches, the file closed after each batch so that it is complete on disk.
#include <cstdio>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <csignal>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <ctime>

#include "opscope/h5/atomic_write.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/trace.h"
#include "trace_tables.h"

namespace opscope {
namespace {

// Executors handed to background writers and not yet in a file, over all writers. A crash
// handler waits for it to reach zero, so a crashing program still leaves every executor that
// completed before the crash in its trace.
std::atomic<int> gPendingExecutors{0};
constexpr int kWriterNice = 10;
thread_local bool tIsTraceWriter = false;
constexpr int kCrashSignals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
struct sigaction gPreviousActions[sizeof(kCrashSignals) / sizeof(int)];

void drainOnCrash(int sig) {
    if (!tIsTraceWriter) {  // the writers keep running while this thread waits
        const timespec tick{0, 10 * 1000 * 1000};
        for (int i = 0; i < 500 && gPendingExecutors.load() > 0; ++i) nanosleep(&tick, nullptr);
    }
    for (std::size_t i = 0; i < sizeof(kCrashSignals) / sizeof(int); ++i)
        if (kCrashSignals[i] == sig) sigaction(sig, &gPreviousActions[i], nullptr);
    raise(sig);
}

void installCrashDrainOnce() {
    static const bool installed = [] {
        struct sigaction sa {};
        sa.sa_handler = drainOnCrash;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = static_cast<int>(SA_RESETHAND);
        for (std::size_t i = 0; i < sizeof(kCrashSignals) / sizeof(int); ++i)
            sigaction(kCrashSignals[i], &sa, &gPreviousActions[i]);
        return true;
    }();
    (void)installed;
}

using namespace trace_v2;

// Row of a tensor record; its values (level full) go to `valuesPath`.
TensorRow tensorRow(int64_t executorRow, int32_t step, const TensorRecord& r, StringInterner& strings,
                    const std::string& valuesPath) {
    TensorRow row{};
    row.executor = executorRow;
    row.step = step;
    row.name = strings.id(r.name);
    row.kind = strings.id(r.kind);
    row.dtype = strings.id(dtypeName(r.dtype));
    row.rank = static_cast<int32_t>(std::min<std::size_t>(r.shape.size(), kMaxRank));
    for (std::size_t d = 0; d < static_cast<std::size_t>(row.rank); ++d) {
        row.shape[d] = r.shape[d];
        row.strides[d] = d < r.strides.size() ? r.strides[d] : 0;
    }
    row.contiguous = r.contiguous;
    row.min = row.max = row.mean = row.meanAbs = std::numeric_limits<double>::quiet_NaN();
    if (r.stats) {
        const TensorStats& s = *r.stats;
        row.hasStats = 1;
        row.count = s.count;
        row.nanCount = s.nanCount;
        row.infCount = s.infCount;
        row.min = s.min;
        row.max = s.max;
        row.mean = s.mean;
        row.meanAbs = s.meanAbs;
    }
    row.values = r.values ? strings.id(valuesPath) : 0;
    return row;
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
}

// One batch's rows, built in memory and then appended table by table.
struct Rows {
    std::vector<ExecutorRow> executors;
    std::vector<ParamRow> params;
    std::vector<StepRow> steps;
    std::vector<TensorRow> tensors;
    std::vector<std::pair<std::string, const HostTensor*>> values;  // level full

    void addTensor(int64_t executorRow, int32_t step, const TensorRecord& r, StringInterner& strings) {
        const std::string path = r.values ? valuesPath(executorRow, step, r.kind, r.name) : std::string();
        tensors.push_back(tensorRow(executorRow, step, r, strings, path));
        if (r.values) values.emplace_back(path, &*r.values);
    }
};

}  // namespace

namespace trace_v2 {

// The trace file and its tables, kept open from one batch to the next.
struct OpenTrace {
    h5::File file;
    h5::StringTable strings;
    h5::Table executors, params, steps, tensors;

    explicit OpenTrace(h5::File f)
        : file(std::move(f)),
          strings(h5::StringTable::open(file, kStrings)),
          executors(h5::Table::open(file, kExecutors)),
          params(h5::Table::open(file, kParams)),
          steps(h5::Table::open(file, kSteps)),
          tensors(h5::Table::open(file, kTensors)) {}
};

struct WriterState {
    StringInterner strings;
    std::unique_ptr<OpenTrace> open;
};

}  // namespace trace_v2

TraceFileWriter::TraceFileWriter(std::string path, TraceLevel level, TraceWriteMode mode)
    : TraceCapture(level), path_(std::move(path)), mode_(mode), state_(std::make_unique<WriterState>()) {
    // Build the empty trace beside the destination, then rename: an old trace is replaced
    // only by a valid new one.
    h5::AtomicFileWriter out(path_);
    {
        h5::File f = h5::File::create(out.tempPath().string());
        f.writeAttribute("/", "opscope_format", std::string("trace"));
        f.writeAttribute("/", "format_version", kFormatVersion);
        f.writeAttribute("/", "trace_level", std::string(traceLevelName(level)));
        f.writeAttribute("/", "created_by", std::string("OpScope " OPSCOPE_VERSION_STRING));
        h5::StringTable::create(f, kStrings, 256).append({""});
        h5::Table::create(f, kExecutors, executorRowType(), 64);
        h5::Table::create(f, kParams, paramRowType(), 256);
        h5::Table::create(f, kSteps, stepRowType(), 256);
        h5::Table::create(f, kTensors, tensorRowType(), 256);
        f.close();
    }
    out.commit();
    if (mode_ == TraceWriteMode::Background) {
        installCrashDrainOnce();
        writer_ = std::thread([this] { writerLoop(); });
    }
}

TraceFileWriter::~TraceFileWriter() {
    if (writer_.joinable()) {
        {
            std::lock_guard<std::mutex> lk(queueMutex_);
            stopping_ = true;
        }
        queueChanged_.notify_all();
        writer_.join();  // the writer closes the file on its way out
    }
    closeFile();
}

void TraceFileWriter::onExecutorTrace(ExecutorTrace&& t) {
    if (mode_ == TraceWriteMode::Synchronous) {
        std::lock_guard<std::mutex> lk(queueMutex_);
        std::vector<ExecutorTrace> one;
        one.push_back(std::move(t));
        writeBatch(one);
        return;
    }
    std::unique_lock<std::mutex> lk(queueMutex_);
    // Bounded, so a program far faster than the disk is slowed down instead of filling memory.
    queueChanged_.wait(lk, [&] { return queue_.size() < kMaxQueued; });
    queue_.push_back(std::move(t));
    ++gPendingExecutors;
    // The writer needs to hear of the first executor of a batch and of a full batch only.
    if (queue_.size() == 1 || queue_.size() >= kBatchTarget) queueChanged_.notify_all();
}

void TraceFileWriter::writerLoop() {
    tIsTraceWriter = true;
    // The observed program comes first: on busy cores the writer takes the leftovers (Linux
    // applies a nice value per thread). Failure just leaves the default priority.
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kWriterNice);
    std::unique_lock<std::mutex> lk(queueMutex_);
    for (;;) {
        const bool woken =
            queueChanged_.wait_for(lk, kIdleClose, [&] { return stopping_ || closeRequested_ || !queue_.empty(); });
        if (queue_.empty()) {
            // Idle, asked to close, or stopping: close the file so other programs can open it.
            if (woken || state_->open) {
                writing_ = true;
                lk.unlock();
                closeFile();
                lk.lock();
                writing_ = false;
            }
            closeRequested_ = false;
            queueChanged_.notify_all();
            if (stopping_) return;
            continue;
        }
        // Gather a batch (one append per table and one flush for all of it), for at most
        // kBatchWindow, unless asked to finish now.
        queueChanged_.wait_for(lk, kBatchWindow,
                               [&] { return stopping_ || closeRequested_ || queue_.size() >= kBatchTarget; });
        std::vector<ExecutorTrace> batch(std::make_move_iterator(queue_.begin()),
                                         std::make_move_iterator(queue_.end()));
        queue_.clear();
        writing_ = true;
        queueChanged_.notify_all();  // producers waiting for room may go on
        lk.unlock();
        writeBatch(batch);
        gPendingExecutors -= static_cast<int>(batch.size());
        batch.clear();
        lk.lock();
        writing_ = false;
        queueChanged_.notify_all();
    }
}

void TraceFileWriter::drain() {
    std::unique_lock<std::mutex> lk(queueMutex_);
    if (!writer_.joinable()) {  // synchronous: everything is written already
        closeFile();
        return;
    }
    closeRequested_ = true;
    queueChanged_.notify_all();
    queueChanged_.wait(lk, [&] { return queue_.empty() && !writing_ && !closeRequested_; });
}

std::size_t TraceFileWriter::executorsWritten() {
    drain();
    std::lock_guard<std::mutex> lk(queueMutex_);
    return written_;
}

void TraceFileWriter::closeFile() {
    if (!state_->open) return;
    std::unique_ptr<OpenTrace> open = std::move(state_->open);
    try {
        open->file.close();
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "opscope: closing trace %s: %s\n", path_.c_str(), ex.what());
    }
}

void TraceFileWriter::writeBatch(const std::vector<ExecutorTrace>& batch) {
    StringInterner& strings = state_->strings;
    try {
        if (!state_->open) {
            state_->open = std::make_unique<OpenTrace>(h5::File::openReadWrite(path_));
            // A failed earlier batch can leave the string table and the interner out of step.
            if (state_->open->strings.size() != strings.committedCount())
                strings.reset(state_->open->strings.readAll());
        }
        OpenTrace& o = *state_->open;
        Rows rows;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const ExecutorTrace& t = batch[i];
            const int64_t e = o.executors.size() + static_cast<int64_t>(i);
            ExecutorRow x{};
            x.executorId = static_cast<int64_t>(t.executorId);
            x.op = strings.id(t.op);
            x.product = strings.id(t.product);
            x.threads = t.threads;
            x.completed = t.completed;
            x.workspaceBytes = static_cast<int64_t>(t.workspaceBytes);
            x.startUs = t.startUs;
            x.durationUs = t.durationUs;
            x.firstParam = o.params.size() + static_cast<int64_t>(rows.params.size());
            x.firstStep = o.steps.size() + static_cast<int64_t>(rows.steps.size());
            x.firstTensor = o.tensors.size() + static_cast<int64_t>(rows.tensors.size());
            const std::size_t tensorsBefore = rows.tensors.size();
            for (const Param& p : t.params)
                rows.params.push_back(
                    {e, strings.id(p.name), strings.id(paramTypeName(p.value)), strings.id(paramToString(p.value))});
            for (const TensorRecord& r : t.inputs) rows.addTensor(e, -1, r, strings);
            for (const TensorRecord& r : t.outputs) rows.addTensor(e, -1, r, strings);
            for (const StepTrace& s : t.steps) {
                const auto index = static_cast<int32_t>(s.index);
                rows.steps.push_back({e, index, strings.id(s.name), strings.id(s.detail),
                                      strings.id(joinNames(s.inputs)), strings.id(joinNames(s.outputs)), s.startUs,
                                      s.durationUs});
                for (const TensorRecord& r : s.outputTensors) rows.addTensor(e, index, r, strings);
            }
            x.paramCount = static_cast<int32_t>(t.params.size());
            x.stepCount = static_cast<int32_t>(t.steps.size());
            x.tensorCount = static_cast<int32_t>(rows.tensors.size() - tensorsBefore);
            rows.executors.push_back(x);
        }
        // Strings first (every id below refers to them), the executor rows last: a reader
        // sees an executor only once everything it points at is in the file.
        o.strings.append(strings.pending());
        strings.commit();
        for (const auto& [path, values] : rows.values)
            h5::writeTensor(o.file, path, *values, {values->nbytes() > (1 << 20), false});
        o.params.append(paramRowType(), rows.params.data(), rows.params.size());
        o.steps.append(stepRowType(), rows.steps.data(), rows.steps.size());
        o.tensors.append(tensorRowType(), rows.tensors.data(), rows.tensors.size());
        o.executors.append(executorRowType(), rows.executors.data(), rows.executors.size());
        o.file.flush();  // the batch is on disk before the writer reports it written
        written_ += batch.size();
    } catch (const std::exception& ex) {
        strings.rollback();
        state_->open.reset();  // reopened, and re-read, by the next batch
        // A trace must never break the program it observes.
        std::fprintf(stderr, "opscope: could not write %zu executor(s) (%s...) to trace %s: %s\n", batch.size(),
                     batch.empty() ? "" : batch.front().op.c_str(), path_.c_str(), ex.what());
    }
}

}  // namespace opscope
