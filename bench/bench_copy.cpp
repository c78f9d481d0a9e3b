// A STREAM-like copy, measured in the same run as the operators: the bandwidth yardstick for
// the memory-bound operators (read N bytes, write N bytes, 2 threads via the OpScope pool).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "opscope/parallel.h"

namespace {

void BM_StreamCopy(benchmark::State& state) {
    const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
    std::vector<char> a(bytes, 1), b(bytes, 0);
    for (auto _ : state) {
        opscope::parallelFor(0, static_cast<int64_t>(bytes), 1 << 20, [&](int64_t s, int64_t e) {
            std::memcpy(b.data() + s, a.data() + s, static_cast<size_t>(e - s));
        });
        benchmark::DoNotOptimize(b.data());
    }
    // STREAM convention: bytes read + bytes written.
    state.SetBytesProcessed(static_cast<int64_t>(2 * bytes) * state.iterations());
}
BENCHMARK(BM_StreamCopy)->Arg(64)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
