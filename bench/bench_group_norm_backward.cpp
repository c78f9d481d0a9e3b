// GroupNormBackward N=8, C=320, HxW=64x64, group=32, all three gradients, through the aclnn API.
#include "bench_group_norm.h"

namespace opscope::bench {
namespace {

void BM_GroupNormBackward(benchmark::State& state) {
    const auto dtype = static_cast<aclDataType>(state.range(0));
    const GroupNormCall call({8, 320, 64, 64}, 32, dtype);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    call.run(state, stream);  // warm-up: first-touch page faults of the workspace and outputs are not the kernel
    {
        CpuPerIteration cpu(state);
        for (auto _ : state) call.run(state, stream);
    }
    state.SetBytesProcessed(static_cast<int64_t>(call.streamedBytes()) * state.iterations());
    reportFootprint(state, call.touchedBytes(), dtype);
    aclrtDestroyStream(stream);
}
BENCHMARK(BM_GroupNormBackward)->Arg(ACL_FLOAT)->Arg(ACL_BF16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace opscope::bench
