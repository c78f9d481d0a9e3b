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

#include "aclnnop/aclnn_group_norm_backward.h"
#include "bench_common.h"
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
    const int64_t N = 2, C = 8, HxW = 16, G = 2;
    BenchTensor dy({N, C, HxW}, ACL_FLOAT), x({N, C, HxW}, ACL_FLOAT, -2, 2, 2);
    BenchTensor mean({N, G}, ACL_FLOAT, -0.1f, 0.1f, 3), rstd({N, G}, ACL_FLOAT, 0.5f, 2.f, 4);
    BenchTensor gamma({C}, ACL_FLOAT, 0.5f, 1.5f, 5), dx({N, C, HxW}, ACL_FLOAT), dg({C}, ACL_FLOAT),
        db({C}, ACL_FLOAT);
    const bool maskData[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(maskData, 3);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    const std::string path = "/tmp/opscope_bench_trace_" + std::to_string(getpid()) + ".h5";
    std::shared_ptr<TraceFileWriter> trace;
    if (mode > 0)
        trace = startTrace(path, TraceLevel::Metadata,
                           mode == 1 ? TraceWriteMode::Synchronous : TraceWriteMode::Background);
    const double cpuBefore = processCpuSeconds();
    for (auto _ : state) {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st =
            aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, gamma, N, C, HxW, G, mask, dx, dg, db, &ws, &exe);
        runAndSync(state, st, ws, exe, aclnnGroupNormBackward, stream);
    }
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
    aclDestroyBoolArray(mask);
}
BENCHMARK(BM_TraceCostPerExecutor)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace opscope::bench
