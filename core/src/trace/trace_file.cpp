// HDF5 trace layout (docs/TRACE_FORMAT.md): one group per executor under /executors, written
// whole and followed by closing the file, so the file on disk is complete after each one.
#include <cstdio>

#include <atomic>
#include <csignal>
#include <ctime>

#include "opscope/h5/atomic_write.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/trace.h"

namespace opscope {
namespace {

constexpr int64_t kTraceFormatVersion = 1;

// Executors handed to background writers and not yet in a file, over all writers. A crash
// handler waits for it to reach zero, so a crashing program still leaves every executor that
// completed before the crash in its trace.
std::atomic<int> gPendingExecutors{0};
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
        sa.sa_flags = SA_RESETHAND;
        for (std::size_t i = 0; i < sizeof(kCrashSignals) / sizeof(int); ++i)
            sigaction(kCrashSignals[i], &sa, &gPreviousActions[i]);
        return true;
    }();
    (void)installed;
}

std::string indexName(std::size_t i, int width) {
    std::string s = std::to_string(i);
    return std::string(s.size() < static_cast<std::size_t>(width) ? width - s.size() : 0, '0') + s;
}

void writeTensorRecord(h5::File& f, const std::string& path, const TensorRecord& t) {
    f.createGroup(path);
    f.writeAttribute(path, "kind", t.kind);
    f.writeAttribute(path, "dtype", std::string(dtypeName(t.dtype)));
    f.writeAttribute(path, "shape", t.shape);
    f.writeAttribute(path, "strides", t.strides);
    f.writeAttribute(path, "contiguous", t.contiguous);
    if (t.stats) {
        const TensorStats& s = *t.stats;
        f.writeAttribute(path, "count", s.count);
        f.writeAttribute(path, "min", s.min);
        f.writeAttribute(path, "max", s.max);
        f.writeAttribute(path, "mean", s.mean);
        f.writeAttribute(path, "mean_abs", s.meanAbs);
        f.writeAttribute(path, "nan_count", s.nanCount);
        f.writeAttribute(path, "inf_count", s.infCount);
    }
    if (t.values) h5::writeTensor(f, path + "/values", *t.values, {t.values->nbytes() > (1 << 20), false});
}

void writeParams(h5::File& f, const std::string& path, const std::vector<Param>& params) {
    f.createGroup(path);
    std::vector<std::string> order, types;
    for (const Param& p : params) {
        order.push_back(p.name);
        std::visit([&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::vector<bool>>) {
                f.writeAttribute(path, p.name, std::vector<int64_t>(v.begin(), v.end()));
                types.push_back("bool[]");
            } else {
                f.writeAttribute(path, p.name, v);
                if constexpr (std::is_same_v<T, bool>) types.push_back("bool");
                else if constexpr (std::is_same_v<T, int64_t>) types.push_back("int");
                else if constexpr (std::is_same_v<T, double>) types.push_back("float");
                else if constexpr (std::is_same_v<T, std::string>) types.push_back("string");
                else if constexpr (std::is_same_v<T, std::vector<int64_t>>) types.push_back("int[]");
                else types.push_back("float[]");
            }
        }, p.value);
    }
    f.writeAttribute(path, "_order", order);
    f.writeAttribute(path, "_types", types);
}

}  // namespace

TraceFileWriter::TraceFileWriter(std::string path, TraceLevel level, TraceWriteMode mode)
    : TraceCapture(level), path_(std::move(path)), mode_(mode) {
    // Build the empty trace beside the destination, then rename: an old trace is replaced
    // only by a valid new one.
    h5::AtomicFileWriter out(path_);
    {
        h5::File f = h5::File::create(out.tempPath().string());
        f.writeAttribute("/", "opscope_format", std::string("trace"));
        f.writeAttribute("/", "format_version", kTraceFormatVersion);
        f.writeAttribute("/", "trace_level", std::string(traceLevelName(level)));
        f.writeAttribute("/", "created_by", std::string("OpScope " OPSCOPE_VERSION_STRING));
        f.createGroup("/executors");
        f.close();
    }
    out.commit();
    if (mode_ == TraceWriteMode::Background) {
        installCrashDrainOnce();
        writer_ = std::thread([this] { writerLoop(); });
    }
}

TraceFileWriter::~TraceFileWriter() {
    if (!writer_.joinable()) return;
    {
        std::lock_guard<std::mutex> lk(queueMutex_);
        stopping_ = true;
    }
    queueChanged_.notify_all();
    writer_.join();
}

void TraceFileWriter::onExecutorTrace(ExecutorTrace&& t) {
    if (mode_ == TraceWriteMode::Synchronous) {
        std::lock_guard<std::mutex> lk(queueMutex_);
        write(t);
        return;
    }
    std::unique_lock<std::mutex> lk(queueMutex_);
    // Bounded, so a program far faster than the disk is slowed down instead of filling memory.
    queueChanged_.wait(lk, [&] { return queue_.size() < 64; });
    queue_.push_back(std::move(t));
    ++gPendingExecutors;
    queueChanged_.notify_all();
}

void TraceFileWriter::writerLoop() {
    tIsTraceWriter = true;
    std::unique_lock<std::mutex> lk(queueMutex_);
    for (;;) {
        queueChanged_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left
        ExecutorTrace t = std::move(queue_.front());
        queue_.pop_front();
        writing_ = true;
        lk.unlock();
        write(t);
        --gPendingExecutors;
        lk.lock();
        writing_ = false;
        queueChanged_.notify_all();
    }
}

void TraceFileWriter::drain() {
    std::unique_lock<std::mutex> lk(queueMutex_);
    queueChanged_.wait(lk, [&] { return queue_.empty() && !writing_; });
}

std::size_t TraceFileWriter::executorsWritten() {
    drain();
    std::lock_guard<std::mutex> lk(queueMutex_);
    return written_;
}

void TraceFileWriter::write(const ExecutorTrace& t) {
    try {
        h5::File f = h5::File::openReadWrite(path_);
        const std::string g = "/executors/" + indexName(written_, 6);
        f.createGroup(g);
        f.writeAttribute(g, "op", t.op);
        f.writeAttribute(g, "product", t.product);
        f.writeAttribute(g, "executor_id", static_cast<int64_t>(t.executorId));
        f.writeAttribute(g, "threads", static_cast<int64_t>(t.threads));
        f.writeAttribute(g, "workspace_bytes", static_cast<int64_t>(t.workspaceBytes));
        f.writeAttribute(g, "start_us", t.startUs);
        f.writeAttribute(g, "duration_us", t.durationUs);
        f.writeAttribute(g, "completed", t.completed);
        f.writeAttribute(g, "step_count", static_cast<int64_t>(t.steps.size()));
        writeParams(f, g + "/params", t.params);
        f.createGroup(g + "/inputs");
        for (const TensorRecord& r : t.inputs) writeTensorRecord(f, g + "/inputs/" + r.name, r);
        f.createGroup(g + "/outputs");
        for (const TensorRecord& r : t.outputs) writeTensorRecord(f, g + "/outputs/" + r.name, r);
        f.createGroup(g + "/steps");
        for (const StepTrace& s : t.steps) {
            const std::string sp = g + "/steps/" + indexName(s.index, 3);
            f.createGroup(sp);
            f.writeAttribute(sp, "index", static_cast<int64_t>(s.index));
            f.writeAttribute(sp, "name", s.name);
            f.writeAttribute(sp, "detail", s.detail);
            f.writeAttribute(sp, "inputs", s.inputs);
            f.writeAttribute(sp, "outputs", s.outputs);
            f.writeAttribute(sp, "start_us", s.startUs);
            f.writeAttribute(sp, "duration_us", s.durationUs);
            f.createGroup(sp + "/tensors");
            for (const TensorRecord& r : s.outputTensors) writeTensorRecord(f, sp + "/tensors/" + r.name, r);
        }
        f.writeAttribute("/", "executor_count", static_cast<int64_t>(written_ + 1));
        f.close();
        ++written_;
    } catch (const std::exception& ex) {
        // A trace must never break the program it observes.
        std::fprintf(stderr, "opscope: could not write executor %s to trace %s: %s\n", t.op.c_str(), path_.c_str(),
                     ex.what());
    }
}

namespace {

TensorRecord readTensorRecord(const h5::File& f, const std::string& path, const std::string& name) {
    TensorRecord r;
    r.name = name;
    r.kind = f.readAttribute<std::string>(path, "kind");
    r.dtype = dtypeFromName(f.readAttribute<std::string>(path, "dtype"));
    r.shape = f.readAttribute<std::vector<int64_t>>(path, "shape");
    r.strides = f.readAttribute<std::vector<int64_t>>(path, "strides");
    r.contiguous = f.readAttribute<bool>(path, "contiguous");
    if (f.hasAttribute(path, "count")) {
        TensorStats s;
        s.count = f.readAttribute<int64_t>(path, "count");
        s.min = f.readAttribute<double>(path, "min");
        s.max = f.readAttribute<double>(path, "max");
        s.mean = f.readAttribute<double>(path, "mean");
        s.meanAbs = f.readAttribute<double>(path, "mean_abs");
        s.nanCount = f.readAttribute<int64_t>(path, "nan_count");
        s.infCount = f.readAttribute<int64_t>(path, "inf_count");
        s.finiteCount = s.count - s.nanCount - s.infCount;
        r.stats = s;
    }
    if (f.isDataset(path + "/values")) r.values = h5::readTensor(f, path + "/values");
    return r;
}

std::vector<Param> readParams(const h5::File& f, const std::string& path) {
    std::vector<Param> params;
    const auto order = f.readAttribute<std::vector<std::string>>(path, "_order");
    const auto types = f.readAttribute<std::vector<std::string>>(path, "_types");
    for (std::size_t i = 0; i < order.size() && i < types.size(); ++i) {
        const std::string& n = order[i];
        const std::string& ty = types[i];
        ParamValue v;
        if (ty == "bool") v = f.readAttribute<bool>(path, n);
        else if (ty == "int") v = f.readAttribute<int64_t>(path, n);
        else if (ty == "float") v = f.readAttribute<double>(path, n);
        else if (ty == "string") v = f.readAttribute<std::string>(path, n);
        else if (ty == "int[]") v = f.readAttribute<std::vector<int64_t>>(path, n);
        else if (ty == "float[]") v = f.readAttribute<std::vector<double>>(path, n);
        else {
            const auto ints = f.readAttribute<std::vector<int64_t>>(path, n);
            v = std::vector<bool>(ints.begin(), ints.end());
        }
        params.push_back({n, std::move(v)});
    }
    return params;
}

}  // namespace

std::vector<ExecutorTrace> readTraceFile(const std::string& path) {
    h5::File f = h5::File::openReadOnly(path);
    if (!f.hasAttribute("/", "opscope_format") || f.readAttribute<std::string>("/", "opscope_format") != "trace")
        throw h5::H5Error("'" + path + "' is an HDF5 file but not an OpScope trace (no opscope_format=\"trace\" on /)");
    std::vector<ExecutorTrace> out;
    for (const std::string& name : f.children("/executors")) {
        const std::string g = "/executors/" + name;
        ExecutorTrace t;
        t.op = f.readAttribute<std::string>(g, "op");
        t.product = f.readAttribute<std::string>(g, "product");
        t.executorId = static_cast<uint64_t>(f.readAttribute<int64_t>(g, "executor_id"));
        t.threads = static_cast<int>(f.readAttribute<int64_t>(g, "threads"));
        t.workspaceBytes = static_cast<uint64_t>(f.readAttribute<int64_t>(g, "workspace_bytes"));
        t.startUs = f.readAttribute<double>(g, "start_us");
        t.durationUs = f.readAttribute<double>(g, "duration_us");
        t.completed = f.readAttribute<bool>(g, "completed");
        t.params = readParams(f, g + "/params");
        for (const std::string& n : f.children(g + "/inputs")) t.inputs.push_back(readTensorRecord(f, g + "/inputs/" + n, n));
        for (const std::string& n : f.children(g + "/outputs"))
            t.outputs.push_back(readTensorRecord(f, g + "/outputs/" + n, n));
        for (const std::string& sn : f.children(g + "/steps")) {
            const std::string sp = g + "/steps/" + sn;
            StepTrace s;
            s.index = static_cast<std::size_t>(f.readAttribute<int64_t>(sp, "index"));
            s.name = f.readAttribute<std::string>(sp, "name");
            s.detail = f.readAttribute<std::string>(sp, "detail");
            s.inputs = f.readAttribute<std::vector<std::string>>(sp, "inputs");
            s.outputs = f.readAttribute<std::vector<std::string>>(sp, "outputs");
            s.startUs = f.readAttribute<double>(sp, "start_us");
            s.durationUs = f.readAttribute<double>(sp, "duration_us");
            for (const std::string& n : f.children(sp + "/tensors"))
                s.outputTensors.push_back(readTensorRecord(f, sp + "/tensors/" + n, n));
            t.steps.push_back(std::move(s));
        }
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace opscope
