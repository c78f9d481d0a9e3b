// 'run --jobs N' as N worker processes: each is opscope-cli itself, run on one deterministic
// part of the cases (--shard, the split a cluster uses), writing a partial JSON report that
// the parent merges in the order of one run (report merge's merge). Processes, not threads,
// because the HDF5 library reads under one global lock: threads waited on it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "report.h"

namespace opscope::cli {

struct WorkerPlan {
    // The worker's arguments after "opscope-cli": "run", the files and the options that change
    // results (--case, --dtype, --standard, --product, --threads); never --shard or --report.
    std::vector<std::string> args;
    int workers = 2;
    int shardIndex = 0, shardCount = 1;  // the user's --shard, split further among the workers
    std::size_t cases = 0;               // cases in the user's shard (at least `workers`)
    // Called on this thread as each case is done (in any order): the number done and its path.
    std::function<void(std::size_t done, const std::string& path)> progress;
};

// Worker w runs --shard (shardIndex + shardCount*w)/(shardCount*workers): together exactly the
// user's shard, each case once. Returns the merged results in the order of a run in one
// process. A worker that fails without a report is a CliError with its messages. SIGINT or
// SIGTERM stops every worker (and removes the partial reports), then this process dies of the
// same signal.
RunSummary runInWorkerProcesses(const WorkerPlan& plan);

}  // namespace opscope::cli
