// 'run --jobs N' as N worker processes: each is opscope-cli itself (run --worker SHARE) on a
// deterministic share of the cases, listed by this process so the workers do not list the files
// again. A worker sends each case's result on its stdout as soon as the case is done, as a
// binary frame (result_wire.h); this process decodes them as they come. Processes, not threads,
// because the HDF5 library reads under one global lock: threads waited on it.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "opscope/ops/case_runner.h"
#include "result_wire.h"

namespace opscope::cli {

// One case for a worker: its position among all the cases of the run (before --shard), the file
// (an index into the worker's file arguments) and the case's path in it.
struct WorkerItem {
    std::size_t order = 0;
    std::size_t file = 0;
    std::string path;
};

struct WorkerPlan {
    // The worker's arguments after "opscope-cli": "run", the files and the options that change
    // results (--dtype, --standard, --product, --threads); never --case, --shard or --report.
    std::vector<std::string> args;
    std::vector<std::vector<WorkerItem>> shares;  // one per worker process
    // Called on this thread as each case is done (in any order): the number done and its path.
    std::function<void(std::size_t done, const std::string& path)> progress;
};

// Runs every share in its own process; the results sorted by order. A worker that stops before
// it has sent every result (an error, a crash, a kill) is a CliError that names it, how it ended
// and what it printed on stderr; the other workers are stopped. SIGINT or SIGTERM stops every
// worker, then this process dies of the same signal.
std::vector<OrderedResult> runInWorkerProcesses(const WorkerPlan& plan);

// The worker's side: its share as written by runInWorkerProcesses (a CliError when malformed).
std::vector<WorkerItem> readWorkerShare(const std::string& path);

// The worker's side of the result stream (its stdout): frames collected and written every 50 ms
// (or 256 KiB) and at the end, so the parent wakes for batches, not for every case.
class ResultSender {
public:
    explicit ResultSender(int fd = 1) : fd_(fd) {}
    ~ResultSender();
    ResultSender(const ResultSender&) = delete;
    ResultSender& operator=(const ResultSender&) = delete;
    void send(const ops::CaseResult& r, std::size_t order);
    void flush();

private:
    static constexpr std::size_t kFlushBytes = 256 * 1024;
    static constexpr std::chrono::milliseconds kFlushInterval{50};
    int fd_;
    std::string pending_;
    std::chrono::steady_clock::time_point lastFlush_ = std::chrono::steady_clock::now();
};

}  // namespace opscope::cli
