// GridSampler2DBackward input [8, 32, 64, 64], grid [8, 64, 64, 2], bilinear, zeros,
// alignCorners = false, both gradients, through the aclnn API.
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "bench_common.h"

namespace opscope::bench {
namespace {

void BM_GridSampler2DBackward(benchmark::State& state) {
    const auto dtype = static_cast<aclDataType>(state.range(0));
    BenchTensor dy({8, 32, 64, 64}, dtype), input({8, 32, 64, 64}, dtype, -1, 1, 2);
    BenchTensor grid({8, 64, 64, 2}, dtype, -1.1f, 1.1f, 3);
    BenchTensor ig({8, 32, 64, 64}, dtype), gg({8, 64, 64, 2}, dtype);
    const bool maskData[2] = {true, true};
    aclBoolArray* mask = aclCreateBoolArray(maskData, 2);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    for (auto _ : state) {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st =
            aclnnGridSampler2DBackwardGetWorkspaceSize(dy, input, grid, 0, 0, false, mask, ig, gg, &ws, &exe);
        runAndSync(state, st, ws, exe, aclnnGridSampler2DBackward, stream);
    }
    reportFootprint(state, dy.bytes() + input.bytes() + grid.bytes() + ig.bytes() + gg.bytes(), dtype);
    aclrtDestroyStream(stream);
    aclDestroyBoolArray(mask);
}
BENCHMARK(BM_GridSampler2DBackward)
    ->Arg(ACL_FLOAT)
    ->Arg(ACL_FLOAT16)
    ->Arg(ACL_BF16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace opscope::bench
