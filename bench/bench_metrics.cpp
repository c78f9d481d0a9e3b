// The comparison of two tensors, as `opscope-cli compare` and the debugger's verdict pass make it:
// the metrics (ComparisonAccumulator) and the charts' error summary (ErrorSummaryAccumulator) of
// 16 M float32 pairs, one band. No PyTorch peer: these are OpScope's own cost per element.
#include <benchmark/benchmark.h>

#include <random>

#include "opscope/host_tensor.h"
#include "opscope/metrics.h"
#include "opscope/view/slice_summary.h"

namespace {

using opscope::DType;
using opscope::HostTensor;

// A checkpoint-like pair: normal values, B within a few 1e-4 of A, one drifted block.
struct MetricsPair {
    HostTensor a{DType::Float32, {4096, 4096}}, b{DType::Float32, {4096, 4096}};
    MetricsPair() {
        std::mt19937 rng(7);
        std::normal_distribution<float> value(0.f, 1.f), drift(0.f, 2e-4f);
        float* pa = a.dataAs<float>();
        float* pb = b.dataAs<float>();
        for (int64_t i = 0; i < a.numel(); ++i) {
            pa[i] = value(rng);
            pb[i] = pa[i] * (1.f + drift(rng));
        }
        for (int64_t r = 100; r < 120; ++r)
            for (int64_t c = 300; c < 340; ++c) pb[r * 4096 + c] += 0.5f;
    }
};

const MetricsPair& pair() {
    static const MetricsPair p;
    return p;
}

void BM_ComparisonMetrics(benchmark::State& state) {
    const MetricsPair& p = pair();
    for (auto _ : state) {
        opscope::metrics::ComparisonAccumulator pass(p.a.shape(), DType::Float32, {});
        pass.add(p.a, p.b);
        benchmark::DoNotOptimize(pass.finish());
    }
    state.SetItemsProcessed(p.a.numel() * state.iterations());
}
BENCHMARK(BM_ComparisonMetrics)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ErrorSummary(benchmark::State& state) {
    const MetricsPair& p = pair();
    for (auto _ : state) {
        opscope::metrics::ErrorSummaryAccumulator errors(p.a.shape(), DType::Float32,
                                                         opscope::metrics::logTolerances(-8, 0, 4), 4000);
        errors.add(p.a, p.b);
        benchmark::DoNotOptimize(errors.finish());
    }
    state.SetItemsProcessed(p.a.numel() * state.iterations());
}
BENCHMARK(BM_ErrorSummary)->Unit(benchmark::kMillisecond)->UseRealTime();

// What the debugger's map of one tensor costs: the cells, statistics and sample of a slice.
void BM_SliceSummary(benchmark::State& state) {
    const MetricsPair& p = pair();
    opscope::view::SliceSource source;
    source.tensor = p.a.view();
    opscope::view::SliceRequest request;
    request.spec = opscope::view::defaultSlice(p.a.shape());
    for (auto _ : state) benchmark::DoNotOptimize(opscope::view::summarizeSlice(source, request));
    state.SetItemsProcessed(p.a.numel() * state.iterations());
}
BENCHMARK(BM_SliceSummary)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
