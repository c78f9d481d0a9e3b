// Work whose two ends are serial and ordered (HDF5 reads and writes: the library is not
// thread-safe) and whose middle is parallel: the calling thread runs produce(i) and then
// consume(i, result) in order, while `workers` persistent threads run work(input) for the items
// in between. At most kLookahead * `workers` items are in flight, so memory stays bounded, and
// workers keep going while the calling thread consumes (with only `workers` in flight, a worker
// waited for every consume). With one worker everything runs on the calling thread. What the
// CLI's import uses.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace opscope {

inline constexpr std::size_t kLookahead = 4;

template <class Produce, class Work, class Consume>
void runOrdered(std::size_t n, int workers, Produce produce, Work work, Consume consume) {
    using In = decltype(produce(std::size_t{}));
    using Out = decltype(work(std::declval<In&>()));
    if (workers <= 1) {
        for (std::size_t i = 0; i < n; ++i) {
            In in = produce(i);
            Out out = work(in);
            consume(i, out);
        }
        return;
    }
    std::mutex m;
    std::condition_variable changed;
    std::deque<std::pair<std::size_t, In>> todo;
    std::map<std::size_t, std::pair<Out, std::exception_ptr>> done;
    bool stop = false;
    std::vector<std::thread> pool;
    for (int t = 0; t < workers; ++t)
        pool.emplace_back([&] {
            std::unique_lock<std::mutex> lock(m);
            while (true) {
                changed.wait(lock, [&] { return stop || !todo.empty(); });
                if (todo.empty()) return;
                auto [i, in] = std::move(todo.front());
                todo.pop_front();
                lock.unlock();
                std::pair<Out, std::exception_ptr> result{};
                try {
                    result.first = work(in);
                } catch (...) {
                    result.second = std::current_exception();
                }
                lock.lock();
                done.emplace(i, std::move(result));
                changed.notify_all();
            }
        });
    auto finish = [&] {
        {
            std::lock_guard<std::mutex> lock(m);
            stop = true;
            todo.clear();
        }
        changed.notify_all();
        for (std::thread& t : pool) t.join();
    };
    try {
        std::size_t next = 0;
        for (std::size_t i = 0; i < n; ++i) {
            for (; next < n && next - i < kLookahead * static_cast<std::size_t>(workers); ++next) {
                In in = produce(next);
                std::lock_guard<std::mutex> lock(m);
                todo.emplace_back(next, std::move(in));
                changed.notify_all();
            }
            std::pair<Out, std::exception_ptr> result;
            {
                std::unique_lock<std::mutex> lock(m);
                changed.wait(lock, [&] { return done.count(i) > 0; });
                result = std::move(done.at(i));
                done.erase(i);
            }
            if (result.second) std::rethrow_exception(result.second);
            consume(i, result.first);
        }
    } catch (...) {
        finish();
        throw;
    }
    finish();
}

}  // namespace opscope
