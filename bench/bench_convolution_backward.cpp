// ConvolutionBackward on the layer shapes real networks use (issue 14's eight workloads), all
// three gradients, through the aclnn API (fp32 with KEEP_DTYPE, bf16). Registered as
// BM_ConvolutionBackward/<workload>/<aclDataType>; compare_torch.py holds the PyTorch peers of
// the same table (bench/conv_workloads.h is the one list both sides read).
#include "aclnnop/aclnn_convolution_backward.h"
#include "bench_common.h"
#include "conv_workloads.h"

namespace opscope::bench {
namespace {

aclIntArray* intArray(const std::vector<int64_t>& v) { return aclCreateIntArray(v.data(), v.size()); }

void runWorkload(benchmark::State& state, const ConvWorkload& wl, aclDataType dtype) {
    const ConvShapes s = shapesOf(wl);
    BenchTensor dy(s.dy, dtype), x(s.x, dtype, -1, 1, 2), w(s.w, dtype, -0.1f, 0.1f, 3);
    BenchTensor dx(s.x, dtype), dw(s.w, dtype), db({s.dy[1]}, dtype);
    aclIntArray* stride = intArray(wl.stride);
    aclIntArray* padding = intArray(wl.pad);
    aclIntArray* dilation = intArray(std::vector<int64_t>(wl.stride.size(), 1));
    aclIntArray* outputPadding = intArray(std::vector<int64_t>(wl.stride.size(), 0));
    aclIntArray* biasSizes = intArray({s.dy[1]});
    const bool maskData[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(maskData, 3);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    auto call = [&] {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st = aclnnConvolutionBackwardGetWorkspaceSize(
            dy, x, w, biasSizes, stride, padding, dilation, wl.transposed, outputPadding, static_cast<int>(wl.groups),
            mask, 0, dx, dw, db, &ws, &exe);
        runAndSync(state, st, ws, exe, aclnnConvolutionBackward, stream);
    };
    call();  // warm-up: first-touch page faults of the workspace and outputs are not the kernel
    {
        CpuPerIteration cpu(state);
        for (auto _ : state) call();
    }
    reportFootprint(state, dy.bytes() + x.bytes() + w.bytes() + dx.bytes() + dw.bytes() + db.bytes(), dtype);
    state.counters["GFLOP"] = gemmFlops(wl) / 1e9;
    aclrtDestroyStream(stream);
    for (aclIntArray* a : {stride, padding, dilation, outputPadding, biasSizes}) aclDestroyIntArray(a);
    aclDestroyBoolArray(mask);
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
