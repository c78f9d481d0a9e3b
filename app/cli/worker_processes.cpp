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
#include <fstream>
#include <iterator>

#include "opscope/file_text.h"
#include "cli_common.h"
#include "report.h"
#include "report_merge.h"
#include "result_wire.h"
#include "stop_signals.h"

namespace opscope::cli {
namespace fs = std::filesystem;

namespace {

struct Worker {
    std::string name;   // "worker 2 of 4" in messages
    std::string share;  // the file listing its cases
    std::size_t expected = 0;
    pid_t pid = -1;
    int resultFd = -1, messageFd = -1;          // its stdout and stderr
    std::string resultPending, messagePending;  // lines not yet complete
    std::string messages;                       // its stderr, for when it fails
    std::size_t received = 0;
    int status = 0;
};

// The worker's process: stdout and stderr into the pipes, killed with its parent.
[[noreturn]] void execWorker(const std::vector<std::string>& args, int resultWrite, int messageWrite) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(resultWrite, STDOUT_FILENO);
    dup2(messageWrite, STDERR_FILENO);
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
    args.insert(args.end(), {"--worker", w.share});
    int results[2], messages[2];
    if (pipe2(results, O_CLOEXEC) != 0)
        throw CliError("cannot start a worker process: " + std::string(strerror(errno)));
    if (pipe2(messages, O_CLOEXEC) != 0) {
        close(results[0]);
        close(results[1]);
        throw CliError("cannot start a worker process: " + std::string(strerror(errno)));
    }
    w.pid = fork();
    if (w.pid == 0) execWorker(args, results[1], messages[1]);
    close(results[1]);
    close(messages[1]);
    w.resultFd = results[0];
    w.messageFd = messages[0];
    if (w.pid < 0) throw CliError("cannot start a worker process: " + std::string(strerror(errno)));
}

// Appends what is readable on fd to `pending`; false at the end of the stream (the fd is then
// closed and set to -1).
bool readSome(int& fd, std::string& pending) {
    char buf[65536];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
        close(fd);
        fd = -1;
        return false;
    }
    pending.append(buf, static_cast<std::size_t>(n));
    return true;
}

// The complete result frames a worker has sent so far, added to `out`.
void takeResults(Worker& w, std::vector<OrderedResult>& out, const WorkerPlan& plan) {
    const std::size_t before = out.size();
    w.resultPending.erase(0, takeResultFrames(w.resultPending, out));
    for (std::size_t i = before; i < out.size(); ++i) {
        ++w.received;
        if (plan.progress) plan.progress(i + 1, out[i].result.path);
    }
}

// Its stderr, kept for when it fails.
void takeMessages(Worker& w) {
    const std::size_t nl = w.messagePending.rfind('\n');
    if (nl == std::string::npos) return;
    w.messages += w.messagePending.substr(0, nl + 1);
    w.messagePending.erase(0, nl + 1);
}

enum class Relay { Done, Stopped, WorkerFailed };

// Reads the workers' results and messages until every one has closed both pipes (Done), a stop
// signal comes (Stopped), or a worker closes its results before it has sent them all
// (WorkerFailed: *failed is its index).
Relay relayUntilDone(std::vector<Worker>& workers, const WorkerPlan& plan, std::vector<OrderedResult>& out,
                     std::size_t* failed) {
    for (;;) {
        std::vector<pollfd> fds;
        for (const Worker& w : workers)
            for (int fd : {w.resultFd, w.messageFd})
                if (fd >= 0) fds.push_back({fd, POLLIN, 0});
        if (fds.empty()) return Relay::Done;
        if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return Relay::Stopped;
        if (StopSignals::received()) return Relay::Stopped;
        auto ready = [&](int fd) {
            return fd >= 0 &&
                   std::any_of(fds.begin(), fds.end(), [&](const pollfd& p) { return p.fd == fd && p.revents != 0; });
        };
        for (std::size_t i = 0; i < workers.size(); ++i) {
            Worker& w = workers[i];
            if (ready(w.resultFd)) {
                if (readSome(w.resultFd, w.resultPending))
                    takeResults(w, out, plan);
                else if (w.received < w.expected)
                    return *failed = i, Relay::WorkerFailed;
            }
            if (ready(w.messageFd) && readSome(w.messageFd, w.messagePending)) takeMessages(w);
        }
    }
}

void stopAll(std::vector<Worker>& workers, int sig) {
    for (Worker& w : workers)
        if (w.pid > 0) kill(w.pid, sig);
    for (Worker& w : workers) {
        if (w.pid > 0) waitpid(w.pid, &w.status, 0);
        w.pid = -1;
        for (int* fd : {&w.resultFd, &w.messageFd}) {
            if (*fd >= 0) close(*fd);
            *fd = -1;
        }
    }
}

// The CliError for a worker that did not send every result or did not end normally.
CliError workerFailure(const Worker& w) {
    const std::string how = WIFSIGNALED(w.status) ? "was killed by signal " + std::to_string(WTERMSIG(w.status))
                                                  : "exited with " + std::to_string(WEXITSTATUS(w.status));
    std::string said = w.messages + w.messagePending;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    return CliError(w.name + " " + how + " after " + std::to_string(w.received) + " of its " +
                    std::to_string(w.expected) + " cases" + (said.empty() ? std::string() : ": " + said));
}

void writeShare(const std::string& path, const std::vector<WorkerItem>& items) {
    ReportJson list = ReportJson::array();
    for (const WorkerItem& it : items) list.push_back({it.order, it.file, it.path});
    std::ofstream os(path, std::ios::binary);
    os << list.dump();
    if (!os.flush()) throw CliError("cannot write the list of a worker's cases to " + path);
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

// Starts every worker; on failure the ones already started are stopped.
void startAll(std::vector<Worker>& workers, const WorkerPlan& plan, const TempDir& dir) {
    for (std::size_t i = 0; i < workers.size(); ++i) {
        Worker& w = workers[i];
        w.name = "worker " + std::to_string(i + 1) + " of " + std::to_string(workers.size());
        w.share = (dir.path() / ("share" + std::to_string(i) + ".json")).string();
        w.expected = plan.shares[i].size();
        try {
            writeShare(w.share, plan.shares[i]);
            startWorker(w, plan.args);
        } catch (...) {
            stopAll(workers, SIGTERM);
            throw;
        }
    }
}

}  // namespace

std::vector<OrderedResult> runInWorkerProcesses(const WorkerPlan& plan) {
    const TempDir dir;
    std::vector<Worker> workers(plan.shares.size());
    const StopSignals signals;
    startAll(workers, plan, dir);
    std::vector<OrderedResult> results;
    std::size_t failed = 0;
    Relay relay = Relay::Done;
    try {
        relay = relayUntilDone(workers, plan, results, &failed);
    } catch (...) {
        stopAll(workers, SIGTERM);
        throw;
    }
    if (relay == Relay::Stopped) {
        stopAll(workers, SIGTERM);
        fs::remove_all(dir.path());
        StopSignals::dieOfReceived();
        throw CliError("interrupted");
    }
    if (relay == Relay::WorkerFailed) {
        // Its messages come before its exit: read what is left of them, then stop the others.
        Worker& w = workers[failed];
        while (w.messageFd >= 0 && readSome(w.messageFd, w.messagePending)) {}
        waitpid(w.pid, &w.status, 0);
        w.pid = -1;
        stopAll(workers, SIGTERM);
        throw workerFailure(w);
    }
    for (Worker& w : workers) {
        waitpid(w.pid, &w.status, 0);
        w.pid = -1;
        if (w.received < w.expected || WIFSIGNALED(w.status)) throw workerFailure(w);
    }
    std::sort(results.begin(), results.end(),
              [](const OrderedResult& a, const OrderedResult& b) { return a.order < b.order; });
    return results;
}

std::vector<WorkerItem> readWorkerShare(const std::string& path) {
    const std::optional<std::string> text = readFileText(path);
    const ReportJson list = ReportJson::parse(text.value_or(""), nullptr, false);
    std::vector<WorkerItem> items;
    const auto malformed = [&] { return CliError("'" + path + "' is not a list of a worker's cases"); };
    if (list.is_discarded() || !list.is_array()) throw malformed();
    for (const ReportJson& e : list) {
        if (!e.is_array() || e.size() != 3 || !e[0].is_number_unsigned() || !e[1].is_number_unsigned() ||
            !e[2].is_string())
            throw malformed();
        items.push_back({e[0].get<std::size_t>(), e[1].get<std::size_t>(), e[2].get<std::string>()});
    }
    return items;
}

ResultSender::~ResultSender() {
    try {
        flush();
    } catch (const CliError&) {  // the parent is gone: nobody to tell
    }
}

void ResultSender::send(const ops::CaseResult& r, std::size_t order) {
    appendResultFrame(pending_, order, r);
    const auto now = std::chrono::steady_clock::now();
    if (pending_.size() >= kFlushBytes || now - lastFlush_ >= kFlushInterval) flush();
}

void ResultSender::flush() {
    lastFlush_ = std::chrono::steady_clock::now();
    for (std::size_t done = 0; done < pending_.size();) {
        const ssize_t n = write(fd_, pending_.data() + done, pending_.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw CliError("cannot send results to the parent process: " + std::string(strerror(errno)));
        done += static_cast<std::size_t>(n);
    }
    pending_.clear();
}

}  // namespace opscope::cli
