// ConvolutionBackward on the layer shapes real networks use (issue 14's eight workloads), all
// three gradients, through the aclnn API (fp32 with KEEP_DTYPE, bf16). Registered as
// BM_ConvolutionBackward/<workload>/<aclDataType>; compare_torch.py holds the PyTorch peers of
// the same table (bench/conv_workloads.h is the one list both sides read).
#include "conv_call.h"

namespace opscope::bench {
namespace {

void runWorkload(benchmark::State& state, const ConvWorkload& wl, aclDataType dtype) {
    ConvCall c(wl, dtype);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    auto call = [&] {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st = c.prepare(&ws, &exe);
        runAndSync(state, st, ws, exe, aclnnConvolutionBackward, stream);
    };
    call();  // warm-up: first-touch page faults of the workspace and outputs are not the kernel
    {
        CpuPerIteration cpu(state);
        for (auto _ : state) call();
    }
    reportFootprint(state, c.dy.bytes() + c.x.bytes() + c.w.bytes() + c.dx.bytes() + c.dw.bytes() + c.db.bytes(),
                    dtype);
    state.counters["GFLOP"] = gemmFlops(wl) / 1e9;
    aclrtDestroyStream(stream);
}

const bool kRegistered = [] {
    for (const ConvWorkload& wl : convWorkloads())
        for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
            const std::string name = "BM_ConvolutionBackward/" + wl.name + "/" + std::to_string(dtype);
            benchmark::RegisterBenchmark(name.c_str(),
                                         [&wl, dtype](benchmark::State& st) { runWorkload(st, wl, dtype); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
    return true;
}();

}  // namespace
}  // namespace opscope::bench
