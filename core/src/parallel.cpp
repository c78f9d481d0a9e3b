// A small fixed pool. The caller runs chunk 0 itself; workers take chunks 1..k-1 by index,
// so which items a chunk covers never depends on timing.
// Waiting spins for a short while before it sleeps, as OpenMP runtimes do: waking a sleeping
// thread took 50-90 us on the 2-core VM, and each region paid it twice (the workers' start, the
// caller's wake at the end), about 150 us a region against 10-20 us of work for the small
// regions (bench/README.md). A kernel runs several regions back to back, so the workers are
// usually still spinning when the next one starts.
#include "opscope/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace opscope {
namespace {

thread_local bool tInsideChunk = false;

// How long a thread spins on a condition before it sleeps on the condition variable. It covers
// the gaps between one call's regions (7-160 us measured) and between calls run back to back
// (a benchmark loop: 300 us left its first region paying the wake). libgomp spins for longer.
constexpr std::chrono::microseconds kSpinTime{1000};

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpinTime has passed; the caller then waits on its condition variable.
template <class Done>
void spinUntil(Done&& done) {
    const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (done()) return;
            cpuRelax();
        }
        if (std::chrono::steady_clock::now() >= deadline) return;
        std::this_thread::yield();  // let a thread that has work run first when cores are shared
    }
}

int defaultThreads() {
    if (const char* env = std::getenv("OPSCOPE_NUM_THREADS")) {
        int n = std::atoi(env);
        if (n > 0) return n;
    }
    unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}

class Pool {
public:
    static Pool& instance() {
        static Pool* pool = new Pool();  // never destroyed: workers may outlive static teardown
        return *pool;
    }

    int threads() const { return threads_.load(); }
    void setThreads(int n) { threads_.store(n > 0 ? n : defaultThreads()); }

    void run(int chunks, int64_t n, const std::function<void(int, int64_t, int64_t)>& fn) {
        std::lock_guard<std::mutex> serial(runMutex_);  // one parallel region at a time
        ensureWorkers(chunks - 1);
        {
            std::lock_guard<std::mutex> lk(m_);
            job_ = &fn;
            jobChunks_ = chunks;
            jobItems_ = n;
            nextChunk_ = 1;
            pending_.store(chunks - 1, std::memory_order_relaxed);
            error_ = nullptr;
            generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        }
        cv_.notify_all();
        runChunk(0);
        auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
        spinUntil(finished);
        std::unique_lock<std::mutex> lk(m_);
        done_.wait(lk, finished);
        job_ = nullptr;
        if (error_) std::rethrow_exception(error_);
    }

private:
    Pool() : threads_(defaultThreads()) {}

    void runChunk(int c) {
        const int64_t b = jobItems_ * c / jobChunks_;
        const int64_t e = jobItems_ * (c + 1) / jobChunks_;
        tInsideChunk = true;
        try {
            (*job_)(c, b, e);
        } catch (...) {
            std::lock_guard<std::mutex> lk(m_);
            if (!error_) error_ = std::current_exception();
        }
        tInsideChunk = false;
    }

    void ensureWorkers(int n) {
        while (static_cast<int>(workers_.size()) < n) workers_.emplace_back([this] { workerLoop(); });
    }

    void workerLoop() {
        uint64_t seen = 0;
        for (;;) {
            spinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; });
            int chunk;
            {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
                if (!job_ || nextChunk_ >= jobChunks_) {  // every chunk taken: wait for the next region
                    seen = generation_.load(std::memory_order_relaxed);
                    continue;
                }
                chunk = nextChunk_++;
                if (nextChunk_ >= jobChunks_) seen = generation_.load(std::memory_order_relaxed);
            }
            runChunk(chunk);
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lk(m_);  // the caller may be between its check and its wait
                done_.notify_one();
            }
        }
    }

    std::atomic<int> threads_;
    std::mutex runMutex_;
    std::mutex m_;
    std::condition_variable cv_, done_;
    std::vector<std::thread> workers_;
    const std::function<void(int, int64_t, int64_t)>* job_ = nullptr;
    int jobChunks_ = 0;
    int64_t jobItems_ = 0;
    int nextChunk_ = 0;
    std::atomic<int> pending_{0};
    std::atomic<uint64_t> generation_{0};
    std::exception_ptr error_;
};

}  // namespace

int numThreads() { return Pool::instance().threads(); }
void setNumThreads(int n) { Pool::instance().setThreads(n); }

int chunkCount(int64_t n, int64_t grain) {
    if (n <= 0) return 0;
    grain = std::max<int64_t>(grain, 1);
    const int64_t byGrain = (n + grain - 1) / grain;
    return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(numThreads(), byGrain)));
}

void parallelChunks(int64_t n, int64_t grain, const std::function<void(int, int64_t, int64_t)>& fn) {
    const int chunks = chunkCount(n, grain);
    if (chunks == 0) return;
    if (chunks == 1 || tInsideChunk) {
        // Inline, but with the same chunk boundaries so results do not depend on nesting.
        for (int c = 0; c < chunks; ++c) fn(c, n * c / chunks, n * (c + 1) / chunks);
        return;
    }
    Pool::instance().run(chunks, n, fn);
}

}  // namespace opscope
