// ConvolutionBackward 2-D: N=8, C=64, 56x56, 64 filters 3x3, stride 1, pad 1, all three
// gradients, through the aclnn API (fp32 with KEEP_DTYPE, bf16).
#include "aclnnop/aclnn_convolution_backward.h"
#include "bench_common.h"

namespace opscope::bench {
namespace {

void BM_ConvolutionBackward(benchmark::State& state) {
    const auto dtype = static_cast<aclDataType>(state.range(0));
    BenchTensor dy({8, 64, 56, 56}, dtype), x({8, 64, 56, 56}, dtype, -1, 1, 2),
        w({64, 64, 3, 3}, dtype, -0.1f, 0.1f, 3);
    BenchTensor dx({8, 64, 56, 56}, dtype), dw({64, 64, 3, 3}, dtype), db({64}, dtype);
    const int64_t one[2] = {1, 1}, zero[2] = {0, 0}, bias[1] = {64};
    aclIntArray* stride = aclCreateIntArray(one, 2);
    aclIntArray* padding = aclCreateIntArray(one, 2);
    aclIntArray* dilation = aclCreateIntArray(one, 2);
    aclIntArray* outputPadding = aclCreateIntArray(zero, 2);
    aclIntArray* biasSizes = aclCreateIntArray(bias, 1);
    const bool maskData[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(maskData, 3);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    for (auto _ : state) {
        uint64_t ws = 0;
        aclOpExecutor* exe = nullptr;
        const aclnnStatus st = aclnnConvolutionBackwardGetWorkspaceSize(
            dy, x, w, biasSizes, stride, padding, dilation, false, outputPadding, 1, mask, 0, dx, dw, db, &ws, &exe);
        runAndSync(state, st, ws, exe, aclnnConvolutionBackward, stream);
    }
    state.counters["data_MB"] =
        static_cast<double>(dy.bytes() + x.bytes() + w.bytes() + dx.bytes() + dw.bytes() + db.bytes()) / 1e6;
    state.counters["peak_MB"] = peakResidentMB();
    state.SetLabel(dtypeLabel(dtype));
    aclrtDestroyStream(stream);
    for (aclIntArray* a : {stride, padding, dilation, outputPadding, biasSizes}) aclDestroyIntArray(a);
    aclDestroyBoolArray(mask);
}
BENCHMARK(BM_ConvolutionBackward)->Arg(ACL_FLOAT)->Arg(ACL_BF16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace opscope::bench
