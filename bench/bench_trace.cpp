// What tracing costs per executor, apart from the kernel: a tiny GroupNormBackward (its kernel
// takes a few microseconds) through the public API, plain, with a metadata-level trace written
// synchronously (the writer's work inside each call), and with the default background writer.
// `cpu_us` is the process's CPU time (every thread, the writer and the final drain included)
// per executor; the difference from plain is what a traced executor costs, which
// compare_torch.py relates to each workload.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "bench_group_norm.h"
#include "opscope/trace.h"

namespace opscope::bench {
namespace {

double processCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void BM_TraceCostPerExecutor(benchmark::State& state) {
    const int mode = static_cast<int>(state.range(0));  // 0 plain, 1 synchronous, 2 background
    const GroupNormCall call({2, 8, 16}, 2, ACL_FLOAT);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    const std::string path = "/tmp/opscope_bench_trace_" + std::to_string(getpid()) + ".h5";
    std::shared_ptr<TraceFileWriter> trace;
    if (mode > 0)
        trace = startTrace(path, TraceLevel::Metadata,
                           mode == 1 ? TraceWriteMode::Synchronous : TraceWriteMode::Background);
    const double cpuBefore = processCpuSeconds();
    for (auto _ : state) call.run(state, stream);
    if (trace) trace->drain();
    state.counters["cpu_us"] = (processCpuSeconds() - cpuBefore) * 1e6 / static_cast<double>(state.iterations());
    if (trace) {
        stopTrace(trace);
        const std::size_t executors = trace->executorsWritten();
        std::error_code ec;
        const auto bytes = std::filesystem::file_size(path, ec);
        if (!ec && executors > 0) state.counters["bytes_per_executor"] = static_cast<double>(bytes) / executors;
        std::remove(path.c_str());
    }
    static const char* const labels[] = {"plain", "traced, synchronous", "traced, background"};
    state.SetLabel(labels[mode]);
    aclrtDestroyStream(stream);
}
BENCHMARK(BM_TraceCostPerExecutor)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace opscope::bench
