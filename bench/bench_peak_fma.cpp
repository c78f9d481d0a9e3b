// This machine's peak multiply-add rate, the yardstick of the convolution's GFLOP/s: every
// thread of the OpScope pool runs independent chains of AVX-512 fused multiply-adds (fp32,
// 16 lanes x 2 flops) or bf16 dot products (vdpbf16ps, 16 lanes x 2 pairs x 2 flops), enough
// chains to hide the latency. Reported as items_per_second = flop/s.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "opscope/parallel.h"

#if defined(__AVX512F__)
#include <immintrin.h>

namespace {

constexpr int kChains = 16;
constexpr int64_t kSteps = 1 << 20;

template <bool Bf16>
float chains(float seed) {
    __m512 acc[kChains];
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(seed * static_cast<float>(i));
    const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-3f);
    for (int64_t s = 0; s < kSteps; ++s)
        for (int i = 0; i < kChains; ++i) {
#if defined(__AVX512BF16__)
            if constexpr (Bf16) {
                acc[i] = _mm512_dpbf16_ps(acc[i], (__m512bh)_mm512_castps_si512(a), (__m512bh)_mm512_castps_si512(b));
                continue;
            }
#endif
            acc[i] = _mm512_fmadd_ps(acc[i], a, b);
        }
    __m512 sum = acc[0];
    for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
    return _mm512_reduce_add_ps(sum);
}

template <bool Bf16>
void BM_PeakFma(benchmark::State& state) {
    const int threads = opscope::numThreads();
    for (auto _ : state) {
        opscope::parallelChunks(threads, 1, [&](int, int64_t b, int64_t e) {
            for (int64_t t = b; t < e; ++t) benchmark::DoNotOptimize(chains<Bf16>(static_cast<float>(t)));
        });
    }
    const double flopsPerStep = 16.0 * 2 * (Bf16 ? 2 : 1) * kChains;
    state.SetItemsProcessed(static_cast<int64_t>(flopsPerStep * kSteps * threads) * state.iterations());
    state.SetLabel(Bf16 ? "bf16" : "fp32");
}
BENCHMARK_TEMPLATE(BM_PeakFma, false)->Unit(benchmark::kMillisecond)->UseRealTime();
#if defined(__AVX512BF16__)
BENCHMARK_TEMPLATE(BM_PeakFma, true)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

}  // namespace
#endif
