// A small fixed pool. The caller runs chunk 0 itself; workers take chunks 1..k-1 by index,
// so which items a chunk covers never depends on timing.
#include "opscope/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace opscope {
namespace {

thread_local bool tInsideChunk = false;

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
            pending_ = chunks - 1;
            error_ = nullptr;
            ++generation_;
        }
        cv_.notify_all();
        runChunk(0);
        std::unique_lock<std::mutex> lk(m_);
        done_.wait(lk, [&] { return pending_ == 0; });
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
            int chunk;
            {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, [&] { return generation_ != seen && job_ && nextChunk_ < jobChunks_; });
                chunk = nextChunk_++;
                if (nextChunk_ >= jobChunks_) seen = generation_;
            }
            runChunk(chunk);
            std::lock_guard<std::mutex> lk(m_);
            if (--pending_ == 0) done_.notify_one();
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
    int pending_ = 0;
    uint64_t generation_ = 0;
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
