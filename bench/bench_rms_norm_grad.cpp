// RmsNormGrad x = [4096, 4096], gamma = [4096], through the aclnn API (memory-bound: compare
// its GB/s with BM_StreamCopy).
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "bench_common.h"

namespace opscope::bench {
namespace {

void BM_RmsNormGrad(benchmark::State& state) {
    const auto dtype = static_cast<aclDataType>(state.range(0));
    const int64_t R = 4096, H = 4096;
    BenchTensor dy({R, H}, dtype), x({R, H}, dtype, -2, 2, 2), rstd({R}, ACL_FLOAT, 0.5f, 2.f, 3);
    BenchTensor gamma({H}, dtype, 0.5f, 1.5f, 4), dx({R, H}, dtype), dg({H}, ACL_FLOAT);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    auto call = [&] {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st = aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dx, dg, &ws, &exe);
        runAndSync(state, st, ws, exe, aclnnRmsNormGrad, stream);
    };
    call();  // warm-up: first-touch page faults of the workspace and outputs are not the kernel
    {
        CpuPerIteration cpu(state);
        for (auto _ : state) call();
    }
    // Compulsory traffic: read dy and x, write dx.
    state.SetBytesProcessed(static_cast<int64_t>(dy.bytes() + x.bytes() + dx.bytes()) * state.iterations());
    reportFootprint(state, dy.bytes() + x.bytes() + rstd.bytes() + gamma.bytes() + dx.bytes() + dg.bytes(), dtype);
    aclrtDestroyStream(stream);
}
BENCHMARK(BM_RmsNormGrad)->Arg(ACL_FLOAT)->Arg(ACL_BF16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace opscope::bench
