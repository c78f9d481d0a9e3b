#include "worker_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cli_common.h"
#include "report_merge.h"

namespace opscope::cli {
namespace fs = std::filesystem;

namespace {

volatile std::sig_atomic_t gStopSignal = 0;
extern "C" void onStopSignal(int sig) { gStopSignal = sig; }

// SIGINT and SIGTERM interrupt poll() (no SA_RESTART) instead of killing this process, so the
// workers can be stopped first; the previous actions come back when this goes out of scope.
class StopSignals {
public:
    StopSignals() {
        gStopSignal = 0;
        struct sigaction sa {};
        sa.sa_handler = onStopSignal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &oldInt_);
        sigaction(SIGTERM, &sa, &oldTerm_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &oldInt_, nullptr);
        sigaction(SIGTERM, &oldTerm_, nullptr);
    }

private:
    struct sigaction oldInt_ {
    }, oldTerm_{};
};

struct Worker {
    std::string shard;   // "3/4"
    std::string report;  // its partial report
    pid_t pid = -1;
    int stderrFd = -1;
    std::string pending;   // a stderr line not yet complete
    std::string messages;  // its stderr other than progress, for when it fails
    int status = 0;
};

// The worker's process: stdout discarded, stderr into the pipe, killed with its parent.
[[noreturn]] void execWorker(const std::vector<std::string>& args, int stderrWrite) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    const int devNull = open("/dev/null", O_WRONLY);
    if (devNull >= 0) dup2(devNull, STDOUT_FILENO);
    dup2(stderrWrite, STDERR_FILENO);
    // This process vetted every file moments ago (requireSafeFile): the workers need not read
    // them all again in a validator each.
    setenv("OPSCOPE_TRUST_FILES", "1", 1);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    const std::string why = "cannot start a worker process: " + std::string(std::strerror(errno)) + "\n";
    (void)!write(STDERR_FILENO, why.data(), why.size());
    _exit(127);
}

void startWorker(Worker& w, std::vector<std::string> args) {
    args.insert(args.begin(), "opscope-cli");
    for (const std::string& a : {std::string("--jobs"), std::string("1"), std::string("--shard"), w.shard,
                                 std::string("--report"), w.report, std::string("--progress"), std::string("--brief")})
        args.push_back(a);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw CliError("cannot start a worker process: " + std::string(strerror(errno)));
    w.pid = fork();
    if (w.pid < 0) throw CliError("cannot start a worker process: " + std::string(strerror(errno)));
    if (w.pid == 0) execWorker(args, fds[1]);
    close(fds[1]);
    w.stderrFd = fds[0];
}

// "[12/500] /msprobe/step0/rank0/Functional.conv2d.3 ..." (run's progress line) -> the path.
bool progressPath(const std::string& line, std::string* path) {
    const std::size_t close = line.find("] ");
    if (line.empty() || line[0] != '[' || close == std::string::npos || line.find('/') > close) return false;
    *path = line.substr(close + 2);
    if (path->size() >= 4 && path->compare(path->size() - 4, 4, " ...") == 0) path->resize(path->size() - 4);
    return true;
}

// Reads what the workers print until every one has closed its stderr; false when a stop
// signal came first.
bool relayUntilDone(std::vector<Worker>& workers, const WorkerPlan& plan) {
    std::size_t done = 0, open = workers.size();
    char buf[4096];
    while (open > 0) {
        std::vector<pollfd> fds;
        for (const Worker& w : workers)
            if (w.stderrFd >= 0) fds.push_back({w.stderrFd, POLLIN, 0});
        if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return false;
        if (gStopSignal) return false;
        for (Worker& w : workers) {
            if (w.stderrFd < 0) continue;
            const auto it = std::find_if(fds.begin(), fds.end(), [&](const pollfd& p) { return p.fd == w.stderrFd; });
            if (it == fds.end() || it->revents == 0) continue;
            const ssize_t n = read(w.stderrFd, buf, sizeof buf);
            if (n <= 0) {
                close(w.stderrFd);
                w.stderrFd = -1;
                --open;
                continue;
            }
            w.pending.append(buf, static_cast<std::size_t>(n));
            for (std::size_t nl; (nl = w.pending.find('\n')) != std::string::npos;) {
                const std::string line = w.pending.substr(0, nl);
                w.pending.erase(0, nl + 1);
                std::string path;
                if (!progressPath(line, &path))
                    w.messages += line + "\n";
                else if (plan.progress)
                    plan.progress(++done, path);
            }
        }
    }
    return true;
}

void stopAll(std::vector<Worker>& workers, int sig) {
    for (Worker& w : workers)
        if (w.pid > 0) kill(w.pid, sig);
    for (Worker& w : workers) {
        if (w.pid > 0) waitpid(w.pid, &w.status, 0);
        w.pid = -1;
        if (w.stderrFd >= 0) close(w.stderrFd);
        w.stderrFd = -1;
    }
}

// The partial reports, or a CliError naming the first worker that wrote none.
std::vector<ReportJson> partialReports(const std::vector<Worker>& workers) {
    std::vector<ReportJson> reports;
    for (const Worker& w : workers) {
        if (!fs::exists(w.report)) {
            const std::string how = WIFSIGNALED(w.status) ? "was killed by signal " + std::to_string(WTERMSIG(w.status))
                                                          : "exited with " + std::to_string(WEXITSTATUS(w.status));
            std::string said = w.messages + w.pending;
            while (!said.empty() && said.back() == '\n') said.pop_back();
            throw CliError("worker process for shard " + w.shard + " " + how + " without a report" +
                           (said.empty() ? std::string() : ": " + said));
        }
        reports.push_back(readReportFile(w.report));
    }
    return reports;
}

class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "opscope-run-XXXXXX").string();
        if (!mkdtemp(pattern.data()))
            throw CliError("cannot create a temporary folder: " + std::string(strerror(errno)));
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

}  // namespace

RunSummary runInWorkerProcesses(const WorkerPlan& plan) {
    const TempDir dir;
    const int count = plan.shardCount * plan.workers;
    std::vector<Worker> workers(static_cast<std::size_t>(plan.workers));
    const StopSignals signals;
    for (int w = 0; w < plan.workers; ++w) {
        Worker& worker = workers[static_cast<std::size_t>(w)];
        worker.shard = std::to_string(plan.shardIndex + plan.shardCount * w) + "/" + std::to_string(count);
        worker.report = (dir.path() / ("part" + std::to_string(w) + ".json")).string();
        try {
            startWorker(worker, plan.args);
        } catch (...) {
            stopAll(workers, SIGTERM);
            throw;
        }
    }
    if (!relayUntilDone(workers, plan)) {
        const int sig = gStopSignal ? static_cast<int>(gStopSignal) : SIGTERM;
        stopAll(workers, SIGTERM);
        fs::remove_all(dir.path());
        signal(sig, SIG_DFL);
        raise(sig);  // die of the signal, as the shell expects
        throw CliError("interrupted");
    }
    for (Worker& w : workers) {
        waitpid(w.pid, &w.status, 0);
        w.pid = -1;
    }
    std::vector<std::string> names;
    for (const Worker& w : workers) names.push_back("shard " + w.shard);
    return summaryFromReport(mergeReports(partialReports(workers), names));
}

}  // namespace opscope::cli
