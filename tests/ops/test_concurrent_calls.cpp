// Many threads calling operators at once, each call with its own tensors, while a trace records
// every executor: every result is bitwise the sequential one and the trace holds every call.
// Run under the tsan preset too (ctest --preset tsan -R Concurrent).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "device_tensor.h"
#include "opscope/trace.h"

namespace opscope::test {
namespace {

HostTensor values(const std::vector<int64_t>& shape, uint32_t seed) {
    return HostTensor::fromDoubles(DType::Float32, shape,
                                   randomUniform(static_cast<std::size_t>(shapeNumel(shape)), 0.5, 1.5, seed));
}

// dx then dgamma (then dbeta), or the failing status as the only element.
std::vector<double> rmsNormGrad(uint32_t seed) {
    DeviceTensor dy = DeviceTensor::fromHost(values({3, 16}, seed)),
                 x = DeviceTensor::fromHost(values({3, 16}, seed + 1));
    DeviceTensor rstd = DeviceTensor::fromHost(values({3}, seed + 2)),
                 gamma = DeviceTensor::fromHost(values({16}, seed + 3));
    DeviceTensor dx = DeviceTensor::zeros(DType::Float32, {3, 16}), dg = DeviceTensor::zeros(DType::Float32, {16});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    aclnnStatus st = aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dx, dg, &ws, &e);
    if (st == ACLNN_SUCCESS) st = runWithWorkspace(aclnnRmsNormGrad, ws, e);
    if (st != ACLNN_SUCCESS) return {static_cast<double>(st)};
    std::vector<double> out = dx.toDoubles(), g = dg.toDoubles();
    out.insert(out.end(), g.begin(), g.end());
    return out;
}

std::vector<double> groupNormBackward(uint32_t seed) {
    const int64_t N = 2, C = 4, HxW = 6, G = 2;
    DeviceTensor dy = DeviceTensor::fromHost(values({N, C, HxW}, seed)),
                 x = DeviceTensor::fromHost(values({N, C, HxW}, seed + 1));
    DeviceTensor mean = DeviceTensor::fromHost(values({N, G}, seed + 2)),
                 rstd = DeviceTensor::fromHost(values({N, G}, seed + 3));
    DeviceTensor gamma = DeviceTensor::fromHost(values({C}, seed + 4));
    DeviceTensor dx = DeviceTensor::zeros(DType::Float32, {N, C, HxW}), dg = DeviceTensor::zeros(DType::Float32, {C}),
                 db = DeviceTensor::zeros(DType::Float32, {C});
    BoolArray mask({true, true, true});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    aclnnStatus st =
        aclnnGroupNormBackwardGetWorkspaceSize(dy, x, mean, rstd, gamma, N, C, HxW, G, mask, dx, dg, db, &ws, &e);
    if (st == ACLNN_SUCCESS) st = runWithWorkspace(aclnnGroupNormBackward, ws, e);
    if (st != ACLNN_SUCCESS) return {static_cast<double>(st)};
    std::vector<double> out = dx.toDoubles();
    for (const DeviceTensor* t : {&dg, &db}) {
        const auto v = t->toDoubles();
        out.insert(out.end(), v.begin(), v.end());
    }
    return out;
}

TEST(ConcurrentCalls, EightThreadsTimesTwoHundredCallsWithTracing) {
    constexpr int kThreads = 8, kCalls = 200;
    const std::vector<double> refRms = rmsNormGrad(7), refGn = groupNormBackward(7);
    ASSERT_GT(refRms.size(), 1u);
    ASSERT_GT(refGn.size(), 1u);
    const std::string path = ::testing::TempDir() + "opscope_" + std::to_string(::getpid()) + "_concurrent.h5";
    auto trace = startTrace(path, TraceLevel::Stats);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int k = 0; k < kCalls; ++k) {
                const bool rms = (t + k) % 2 == 0;
                if ((rms ? rmsNormGrad(7) : groupNormBackward(7)) != (rms ? refRms : refGn)) ++mismatches;
            }
        });
    for (auto& th : threads) th.join();
    stopTrace(trace);
    EXPECT_EQ(mismatches.load(), 0);
    const auto traces = readTraceFile(path, TraceValues::Skip);
    EXPECT_EQ(traces.size(), static_cast<std::size_t>(kThreads * kCalls));
    int completed = 0;
    for (const auto& x : traces) completed += x.completed;
    EXPECT_EQ(completed, kThreads * kCalls);
    std::remove(path.c_str());
}

}  // namespace
}  // namespace opscope::test
