// GroupNormBackward N=8, C=320, HxW=64x64, group=32, all three gradients, through the aclnn API.
#include "aclnnop/aclnn_group_norm_backward.h"
#include "bench_common.h"

namespace opscope::bench {
namespace {

void BM_GroupNormBackward(benchmark::State& state) {
    const auto dtype = static_cast<aclDataType>(state.range(0));
    const int64_t N = 8, C = 320, HxW = 64 * 64, G = 32;
    BenchTensor dy({N, C, 64, 64}, dtype), x({N, C, 64, 64}, dtype, -2, 2, 2);
    BenchTensor mean({N, G}, dtype, -0.1f, 0.1f, 3), rstd({N, G}, dtype, 0.5f, 2.f, 4),
        gamma({C}, dtype, 0.5f, 1.5f, 5);
    BenchTensor dx({N, C, 64, 64}, dtype), dg({C}, dtype), db({C}, dtype);
    const bool maskData[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(maskData, 3);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    auto call = [&] {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st =
            aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, gamma, N, C, HxW, G, mask, dx, dg, db, &ws, &exe);
        runAndSync(state, st, ws, exe, aclnnGroupNormBackward, stream);
    };
    call();  // warm-up: first-touch page faults of the workspace and outputs are not the kernel
    {
        CpuPerIteration cpu(state);
        for (auto _ : state) call();
    }
    const double bytes = static_cast<double>(dy.bytes() + x.bytes() + dx.bytes());
    state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
    state.counters["data_MB"] = static_cast<double>(dy.bytes() + x.bytes() + mean.bytes() + rstd.bytes() +
                                                    gamma.bytes() + dx.bytes() + dg.bytes() + db.bytes()) /
                                1e6;
    state.counters["peak_MB"] = peakResidentMB();
    state.SetLabel(dtypeLabel(dtype));
    aclrtDestroyStream(stream);
    aclDestroyBoolArray(mask);
}
BENCHMARK(BM_GroupNormBackward)->Arg(ACL_FLOAT)->Arg(ACL_BF16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace opscope::bench
