// The parent's side of vetting: finding opscope-vet, running it under limits, turning how it
// ended into a sentence, and remembering the answer per file version.
//
// fork + exec rather than posix_spawn because the limits must be in place before the child's
// first instruction. The GUI that calls this has many threads, so between fork and exec the
// child makes only direct system calls (prctl, dup2, close_range, setrlimit, execv, _exit): no
// allocation, no locks, nothing another thread could have held at the fork.
#include "opscope/h5/vetting.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "opscope/h5/h5_handle.h"
#include "opscope/printf_text.h"

namespace opscope::h5 {
namespace {

// Sanitizer runtimes reserve terabytes of address space for shadow memory: an address-space
// limit would stop the child before main.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

constexpr uint64_t kMiB = 1024ull * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;
constexpr std::size_t kMaxStderr = 64 * 1024;  // enough for a sanitizer's first lines

std::string memoryText(uint64_t bytes) {
    if (bytes >= kGiB) return printfText("%.1f GiB", static_cast<double>(bytes) / static_cast<double>(kGiB));
    return printfText("%.0f MiB", static_cast<double>(bytes) / static_cast<double>(kMiB));
}

std::string secondsText(double s) { return printfText("%g s", s); }

std::string signalText(int sig) {
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// "AddressSanitizer: heap-buffer-overflow" from a sanitizer report, or "".
std::string sanitizerFinding(const std::string& text) {
    const std::size_t at = text.find("Sanitizer: ");
    if (at == std::string::npos) return "";
    std::size_t begin = text.rfind(' ', at);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::size_t end = text.find_first_of(" \n", at + 11);
    if (end == std::string::npos) end = text.size();
    return text.substr(begin, end - begin);
}

bool isExecutable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

std::string directoryOf(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

// One file version: what has been read without trouble, or why it is corrupt.
struct FileVersion {
    std::string path;
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    bool operator<(const FileVersion& o) const {
        return std::tie(path, size, mtimeNs) < std::tie(o.path, o.size, o.mtimeNs);
    }
};
struct Verdict {
    bool metadataVetted = false;
    std::set<std::string> dataVetted;  // data paths read whole, and blocks (blockKey)
    std::string corrupt;               // the sentence, once found
};

std::mutex cacheMutex;
std::map<FileVersion, Verdict>& cache() {
    static std::map<FileVersion, Verdict> c;
    return c;
}

}  // namespace

VetLimits defaultVetLimits(uint64_t fileBytes, bool readsData) {
    VetLimits l;
    l.seconds = 15 + (readsData ? static_cast<double>(fileBytes / (64 * kMiB)) : 0.0);
    l.memoryBytes = kSanitized ? 0 : 2 * kGiB + 4 * fileBytes;
    return l;
}

namespace {

// The child's CPU limit: the wall clock ends it first.
rlim_t cpuSecondsFor(const VetLimits& limits) { return static_cast<rlim_t>(limits.seconds) + 1; }

// Forks and execs argv under the limits, stdin/stdout on /dev/null and stderr into a pipe.
// Returns the child's pid and the pipe's read end.
std::pair<pid_t, int> startLimitedChild(const std::vector<std::string>& argv, const VetLimits& limits) {
    // Everything the child needs is prepared here: it may not allocate after the fork.
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const rlim_t cpuSeconds = cpuSecondsFor(limits);
    const rlimit noCore{0, 0};
    const rlimit cpu{cpuSeconds, cpuSeconds + 1};
    const rlimit memory{limits.memoryBytes, limits.memoryBytes};
    const pid_t parent = ::getpid();

    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) throw IoError(std::string("cannot create a pipe: ") + std::strerror(errno));
    const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devNull < 0) {
        ::close(err[0]);
        ::close(err[1]);
        throw IoError(std::string("cannot open /dev/null: ") + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        ::close(err[0]);
        ::close(err[1]);
        ::close(devNull);
        throw IoError(std::string("cannot start a process: ") + std::strerror(e));
    }
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
        ::dup2(devNull, STDIN_FILENO);
        ::dup2(devNull, STDOUT_FILENO);
        ::dup2(err[1], STDERR_FILENO);
        ::close_range(3, ~0U, 0);  // none of the parent's files (an open trace, ...) go along
        ::setrlimit(RLIMIT_CORE, &noCore);
        ::setrlimit(RLIMIT_CPU, &cpu);
        if (limits.memoryBytes > 0) ::setrlimit(RLIMIT_AS, &memory);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(err[1]);
    ::close(devNull);
    return {pid, err[0]};
}

// How the child ended: its wait status, or killed at the deadline, and the start of its stderr.
struct ChildEnd {
    int status = 0;
    bool timedOut = false;
    std::string stderrText;
};

// Seconds the process has spent runnable but waiting for a CPU (/proc/PID/schedstat's run
// delay); 0 where the kernel does not say.
double secondsWaitingForCpu(pid_t pid) {
    std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/schedstat").c_str(), "r");
    if (!f) return 0;
    unsigned long long cpuNs = 0, waitNs = 0;
    const int n = std::fscanf(f, "%llu %llu", &cpuNs, &waitNs);
    std::fclose(f);
    return n == 2 ? static_cast<double>(waitNs) / 1e9 : 0;
}

// Waits for the child until `seconds` of its own time have passed (then kills it), collecting
// its stderr; closes `stderrFd`. Time the child spent waiting for a CPU does not count: on a
// loaded machine a big file is slow, not corrupt. kMaxStretch bounds that in wall time.
ChildEnd waitForChild(pid_t pid, int stderrFd, double seconds) {
    using Clock = std::chrono::steady_clock;
    constexpr double kMaxStretch = 8;
    const auto start = Clock::now();
    const auto hardDeadline =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds * kMaxStretch));
    auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    ChildEnd end;
    bool stderrOpen = true;
    pollfd p{stderrFd, POLLIN, 0};
    // Reads what the child wrote so far; false once it closed stderr.
    auto readStderr = [&] {
        char buf[4096];
        const ssize_t n = ::read(stderrFd, buf, sizeof buf);
        if (n > 0 && end.stderrText.size() < kMaxStderr) end.stderrText.append(buf, static_cast<std::size_t>(n));
        return n > 0 || (n < 0 && errno == EINTR);
    };
    for (;;) {
        const pid_t r = ::waitpid(pid, &end.status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) {
            ::close(stderrFd);
            throw IoError(std::string("lost the validating process: ") + std::strerror(errno));
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {  // move the deadline by the time the child waited for a CPU
            deadline =
                std::min(hardDeadline, start + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(seconds + secondsWaitingForCpu(pid))));
            left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        }
        if (left <= 0) {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &end.status, 0) < 0 && errno == EINTR) {}
            end.timedOut = true;
            break;
        }
        // Wake for stderr output, else every 10 ms to look at the child again.
        const int wait = static_cast<int>(std::min<long long>(left, 10));
        if (stderrOpen && ::poll(&p, 1, wait) > 0)
            stderrOpen = readStderr();
        else if (!stderrOpen)
            ::poll(nullptr, 0, wait);
    }
    // What the child wrote just before it ended (a sanitizer's report).
    while (stderrOpen && ::poll(&p, 1, 0) > 0) stderrOpen = readStderr();
    ::close(stderrFd);
    return end;
}

// The child's end as a sentence about the file; throws IoError when the validator itself could
// not run (exit 127: exec or the dynamic loader failed).
ChildOutcome outcomeOf(const ChildEnd& end, const VetLimits& limits, const std::string& program) {
    ChildOutcome out;
    if (end.timedOut) {
        out.reason = "reading it did not finish within " + secondsText(limits.seconds);
    } else if (WIFSIGNALED(end.status)) {
        const int sig = WTERMSIG(end.status);
        out.reason = sig == SIGXCPU ? "reading it used more than " +
                                          secondsText(static_cast<double>(cpuSecondsFor(limits))) + " of CPU time"
                                    : "reading it crashed with " + signalText(sig);
    } else if (WIFEXITED(end.status)) {
        const int code = WEXITSTATUS(end.status);
        const std::string finding = sanitizerFinding(end.stderrText);
        if (code == kVetExitOk)
            out.ok = true;
        else if (code == kVetExitOutOfMemory)
            out.reason = "reading it needs more than " +
                         (limits.memoryBytes ? memoryText(limits.memoryBytes) : std::string("the available")) +
                         " of memory";
        else if (!finding.empty())
            out.reason = "reading it failed a memory check: " + finding;
        else if (code == 127)
            throw IoError(
                "cannot run the file validator '" + program + "'" +
                (end.stderrText.empty() ? std::string() : ": " + end.stderrText.substr(0, end.stderrText.find('\n'))));
        else
            out.reason = "the validating process ended with status " + std::to_string(code);
    }
    return out;
}

}  // namespace

ChildOutcome runLimitedChild(const std::vector<std::string>& argv, const VetLimits& limits) {
    if (argv.empty()) throw UsageError("runLimitedChild: no program to run");
    const auto [pid, stderrFd] = startLimitedChild(argv, limits);
    return outcomeOf(waitForChild(pid, stderrFd, limits.seconds), limits, argv[0]);
}

std::string vetHelperPath() {
    constexpr const char* kName = "/opscope-vet";
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        const std::string candidate = directoryOf(std::string(self, static_cast<std::size_t>(n))) + kName;
        if (isExecutable(candidate)) return candidate;
    }
    Dl_info lib{};
    if (::dladdr(reinterpret_cast<void*>(&vetHelperPath), &lib) != 0 && lib.dli_fname) {
        const std::string candidate = directoryOf(lib.dli_fname) + "/../bin" + kName;  // the install tree
        if (isExecutable(candidate)) return candidate;
    }
#ifdef OPSCOPE_VET_BUILD_PATH
    if (isExecutable(OPSCOPE_VET_BUILD_PATH)) return OPSCOPE_VET_BUILD_PATH;  // the build tree (tests)
#endif
    return "";
}

bool vettingDisabled() {
    const char* v = std::getenv("OPSCOPE_TRUST_FILES");
    return v && std::strcmp(v, "1") == 0;
}

std::vector<std::string> vetArguments(const std::string& helper, const std::string& path,
                                      const std::vector<std::string>& dataPaths, const std::vector<DataBlock>& blocks,
                                      bool metadataVetted) {
    std::vector<std::string> argv{helper};
    if (metadataVetted) argv.push_back("--data-only");
    for (const std::string& d : dataPaths) argv.insert(argv.end(), {"--data", d});
    for (const DataBlock& b : blocks)
        argv.insert(argv.end(), {"--block", b.dataset, blockAxesText(b.start), blockAxesText(b.count)});
    argv.insert(argv.end(), {"--", path});
    return argv;
}

std::string blockAxesText(const std::vector<int64_t>& axes) {
    std::string t;
    for (std::size_t i = 0; i < axes.size(); ++i) t += (i ? "," : "") + std::to_string(axes[i]);
    return t;
}

std::vector<int64_t> parseBlockAxes(const std::string& text) {
    std::vector<int64_t> axes;
    if (text.empty()) return axes;  // a scalar's block
    for (std::size_t at = 0;;) {
        const std::size_t comma = text.find(',', at);
        const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        char* end = nullptr;
        errno = 0;
        const long long v = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || errno != 0) throw UsageError("not a list of integers: '" + text + "'");
        axes.push_back(v);
        if (comma == std::string::npos) return axes;
        at = comma + 1;
    }
}

namespace {

// How a block is remembered among a file version's vetted reads.
std::string blockKey(const DataBlock& b) {
    return b.dataset + "\n" + blockAxesText(b.start) + "\n" + blockAxesText(b.count);
}

// What the child must still read: the data paths and blocks no earlier child read.
struct Unread {
    std::vector<std::string> paths;
    std::vector<DataBlock> blocks;
    bool empty() const { return paths.empty() && blocks.empty(); }
};

// The file version on disk; false for what is not a regular file (the open that follows says
// what is wrong).
bool fileVersionOf(const std::string& path, FileVersion* version) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::canonical(path, ec);
    *version = {ec ? path : canonical.string(), static_cast<uint64_t>(st.st_size),
                static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
    return true;
}

// What of the request no child has read yet; throws the sentence of a file known corrupt.
Unread unreadOf(const FileVersion& version, const std::vector<std::string>& dataPaths,
                const std::vector<DataBlock>& blocks, bool* metadataVetted) {
    std::lock_guard<std::mutex> lock(cacheMutex);
    const Verdict& v = cache()[version];
    if (!v.corrupt.empty()) throw ContentError(v.corrupt);
    Unread unread;
    for (const std::string& d : dataPaths)
        if (!v.dataVetted.count(d)) unread.paths.push_back(d);
    for (const DataBlock& b : blocks)
        if (!v.dataVetted.count(b.dataset) && !v.dataVetted.count(blockKey(b))) unread.blocks.push_back(b);
    *metadataVetted = v.metadataVetted;
    return unread;
}

void vet(const std::string& path, const std::vector<std::string>& dataPaths, const std::vector<DataBlock>& blocks) {
    if (vettingDisabled()) return;
    FileVersion version;
    if (!fileVersionOf(path, &version)) return;
    bool metadataVetted = false;
    const Unread unread = unreadOf(version, dataPaths, blocks, &metadataVetted);
    if (metadataVetted && unread.empty()) return;
    const std::string helper = vetHelperPath();
    if (helper.empty())
        throw IoError("cannot open '" + path +
                      "': its validator opscope-vet is not installed next to this program "
                      "(set OPSCOPE_TRUST_FILES=1 to open files you trust without it)");
    ChildOutcome outcome;
    try {
        outcome = runLimitedChild(vetArguments(helper, path, unread.paths, unread.blocks, metadataVetted),
                                  defaultVetLimits(version.size, !unread.empty()));
    } catch (const Error& e) {  // IoError, UsageError
        throw IoError("cannot open '" + path + "': it could not be validated (" + e.what() + ")");
    }
    std::lock_guard<std::mutex> lock(cacheMutex);
    Verdict& v = cache()[version];
    if (!outcome.ok) {
        v.corrupt = "cannot open '" + path + "': the file is corrupt (" + outcome.reason + ")";
        throw ContentError(v.corrupt);
    }
    v.metadataVetted = true;
    v.dataVetted.insert(unread.paths.begin(), unread.paths.end());
    for (const DataBlock& b : unread.blocks) v.dataVetted.insert(blockKey(b));
}

}  // namespace

void vetFile(const std::string& path, const std::vector<std::string>& dataPaths) { vet(path, dataPaths, {}); }

void forgetVettingResults() {
    std::lock_guard<std::mutex> lock(cacheMutex);
    cache().clear();
}

void vetBlocks(const std::string& path, const std::vector<DataBlock>& blocks) { vet(path, {}, blocks); }

}  // namespace opscope::h5
