// A process-wide list that threads share: every access under its mutex. Callers keep one in a
// never-destroyed static, since executors and atexit handlers may reach it during shutdown.
#pragma once

#include <algorithm>
#include <mutex>
#include <vector>

namespace opscope {

template <class T>
class ProcessList {
public:
    void add(T item) {
        std::lock_guard<std::mutex> lk(m_);
        items_.push_back(std::move(item));
    }
    void remove(const T& item) {
        std::lock_guard<std::mutex> lk(m_);
        items_.erase(std::remove(items_.begin(), items_.end(), item), items_.end());
    }
    // A copy, so that callers run code on the items without holding the lock.
    std::vector<T> snapshot() const {
        std::lock_guard<std::mutex> lk(m_);
        return items_;
    }

private:
    mutable std::mutex m_;
    std::vector<T> items_;
};

}  // namespace opscope
