// One parallel-for for every kernel. The range is split into contiguous chunks whose count
// depends only on the thread count and the grain, never on timing, so a fixed thread
// count gives bitwise identical results. Thread count: OPSCOPE_NUM_THREADS or setNumThreads().
#pragma once

#include <cstdint>
#include <functional>

namespace opscope {

int numThreads();
// n <= 0 restores the default (OPSCOPE_NUM_THREADS, else the hardware concurrency).
void setNumThreads(int n);

// Number of chunks parallelFor uses for a range of n items with the given grain.
int chunkCount(int64_t n, int64_t grain);

// Calls fn(chunk, begin, end) once per chunk; chunk k always covers the same items.
// Calls from inside a chunk run inline (no nested parallelism).
void parallelChunks(int64_t n, int64_t grain, const std::function<void(int, int64_t, int64_t)>& fn);

inline void parallelFor(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
    if (end <= begin) return;
    parallelChunks(end - begin, grain, [&](int, int64_t b, int64_t e) { fn(begin + b, begin + e); });
}

}  // namespace opscope
