// The generic phase 2 catches misuse instead of touching freed or foreign memory: freed and
// reallocated tensor memory, host memory, a workspace smaller than claimed, outputs that alias
// inputs or overlap themselves, sizes that overflow, and one executor launched or destroyed
// from two threads at once. A tiny operator over the C API objects stands in for the real ones.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "opscope/convert.h"
#include "opscope/op_support.h"

namespace opscope {
namespace {

std::string lastError() { return aclGetRecentErrMsg(); }

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

// What the test operator's step does besides its work, for the concurrency tests.
struct StepHooks {
    std::atomic<bool> started{false}, finished{false};
    int sleepMs = 0;
    aclOpExecutor* destroyFromInside = nullptr;
    int32_t destroyStatus = -1;
};

// out[i] = in[n - 1 - i] + 1, written straight into `out` (so an aliased input would be read
// after it was overwritten), plus a scratch tensor so that the plan needs a workspace.
int32_t prepareReversePlusOne(const aclTensor* in, aclTensor* out, uint64_t* ws, aclOpExecutor** e,
                              StepHooks* hooks = nullptr) {
    return prepareExecutor("testReversePlusOne", ws, e, [&] {
        auto ex = std::make_unique<aclOpExecutor>("testReversePlusOne");
        Plan& p = ex->plan();
        const TensorView& iv = requireTensor(in, "self");
        const int i = p.addInput("self", iv);
        const int o = p.addOutput("out", requireTensor(out, "out"));
        const int tmp = p.addScratch("tmp", DType::Float32, iv.shape);
        p.addStep({"ReversePlusOne", "out = reverse(self) + 1", {i}, {o, tmp}, [=](const StepContext& ctx) {
                       if (hooks) hooks->started = true;
                       const TensorView src = ctx.tensor(i), dst = ctx.tensor(o);
                       const float* s = static_cast<const float*>(src.first());
                       float* d = static_cast<float*>(dst.first());
                       const int64_t n = src.numel();
                       for (int64_t k = 0; k < n; ++k) d[k * dst.strides[0]] = s[(n - 1 - k) * src.strides[0]] + 1;
                       fillZero(ctx.tensor(tmp));
                       if (hooks && hooks->sleepMs)
                           std::this_thread::sleep_for(std::chrono::milliseconds(hooks->sleepMs));
                       if (hooks && hooks->destroyFromInside)
                           hooks->destroyStatus = aclDestroyAclOpExecutor(hooks->destroyFromInside);
                       if (hooks) hooks->finished = true;
                   }});
        return ex;
    });
}

int32_t run(void* ws, uint64_t size, aclOpExecutor* e) {
    return launchExecutor("testReversePlusOne", ws, size, e, nullptr);
}

// A float32 vector in aclrtMalloc memory.
struct DeviceVector {
    void* dev = nullptr;
    aclTensor* t = nullptr;
    explicit DeviceVector(std::vector<float> values, int64_t stride = 1) {
        const auto n = static_cast<int64_t>(values.size());
        const std::size_t bytes = values.size() * sizeof(float);
        EXPECT_EQ(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        EXPECT_EQ(aclrtMemcpy(dev, bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
        t = aclCreateTensor(&n, 1, ACL_FLOAT, &stride, 0, ACL_FORMAT_ND, nullptr, 0, dev);
        EXPECT_NE(t, nullptr) << lastError();
    }
    ~DeviceVector() {
        aclDestroyTensor(t);
        if (dev) aclrtFree(dev);
    }
    std::vector<float> values(std::size_t n) const {
        std::vector<float> h(n);
        aclrtMemcpy(h.data(), n * sizeof(float), dev, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
        return h;
    }
};

struct Workspace {
    void* p = nullptr;
    explicit Workspace(uint64_t bytes) {
        if (bytes) EXPECT_EQ(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    ~Workspace() {
        if (p) aclrtFree(p);
    }
};

TEST(LaunchChecks, CorrectUseRuns) {
    DeviceVector in({1, 2, 3, 4}), out({0, 0, 0, 0});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(in.t, out.t, &ws, &e), ACLNN_SUCCESS) << lastError();
    EXPECT_GT(ws, 0u);
    Workspace w(ws);
    ASSERT_EQ(run(w.p, ws, e), ACLNN_SUCCESS) << lastError();
    EXPECT_EQ(out.values(4), (std::vector<float>{5, 4, 3, 2}));
}

TEST(LaunchChecks, FreedOutputMemoryIsAnErrorNotAWrite) {
    DeviceVector in({1, 2, 3, 4}), out({0, 0, 0, 0});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(in.t, out.t, &ws, &e), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtFree(out.dev), ACL_SUCCESS);
    out.dev = nullptr;
    Workspace w(ws);
    EXPECT_EQ(run(w.p, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_CONTAINS(lastError(), "[361001] testReversePlusOne: out (float32[4]");
    EXPECT_CONTAINS(lastError(), "lies in a block of 16 bytes that was freed (aclrtFree) after phase 1");
    // The executor was not spent by the refused launch: with memory back... it still refuses,
    // since the block it was prepared over is gone for good.
    EXPECT_EQ(run(w.p, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
}

TEST(LaunchChecks, MemoryFreedAndReallocatedAtTheSameAddressIsCaught) {
    DeviceVector in({1, 2, 3, 4}), out({0, 0, 0, 0});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(in.t, out.t, &ws, &e), ACLNN_SUCCESS);
    void* old = out.dev;
    ASSERT_EQ(aclrtFree(out.dev), ACL_SUCCESS);
    out.dev = nullptr;
    // Someone else's buffer, likely where the output was: the launch must not write into it.
    std::vector<void*> others;
    bool reused = false;
    for (int k = 0; k < 64 && !reused; ++k) {
        void* p = nullptr;
        ASSERT_EQ(aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        ASSERT_EQ(aclrtMemset(p, 16, 0x11, 16), ACL_SUCCESS);
        others.push_back(p);
        reused = p == old;
    }
    Workspace w(ws);
    EXPECT_EQ(run(w.p, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_CONTAINS(lastError(), "was freed (aclrtFree) after phase 1");
    if (reused) EXPECT_CONTAINS(lastError(), "another allocation now sits there");
    for (void* p : others) {
        unsigned char h[16];
        aclrtMemcpy(h, 16, p, 16, ACL_MEMCPY_DEVICE_TO_HOST);
        for (unsigned char b : h) EXPECT_EQ(b, 0x11);
        aclrtFree(p);
    }
    aclDestroyAclOpExecutor(e);
}

TEST(LaunchChecks, RepeatableExecutorRerunAfterFreeIsAnError) {
    auto in = std::make_unique<DeviceVector>(std::vector<float>{1, 2, 3});
    DeviceVector out({0, 0, 0});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(in->t, out.t, &ws, &e), ACLNN_SUCCESS);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(e), ACLNN_SUCCESS);
    {
        Workspace w(ws);
        ASSERT_EQ(run(w.p, ws, e), ACLNN_SUCCESS);
        in.reset();  // tensor destroyed, memory freed
        EXPECT_EQ(run(w.p, ws, e), ACLNN_ERR_RUNTIME_ERROR);
        EXPECT_CONTAINS(lastError(), "self (float32[3]");
        EXPECT_CONTAINS(lastError(), "freed");
    }
    EXPECT_EQ(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
}

TEST(LaunchChecks, HostMemoryTensorIsRefusedAtLaunch) {
    std::vector<float> host = {1, 2};
    const int64_t n = 2;
    aclTensor* in = aclCreateTensor(&n, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, host.data());
    ASSERT_NE(in, nullptr);  // like CANN's aclCreateTensor, which does not look at the memory
    DeviceVector out({0, 0});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(in, out.t, &ws, &e), ACLNN_SUCCESS);
    Workspace w(ws);
    EXPECT_EQ(run(w.p, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_CONTAINS(lastError(), "self (float32[2]");
    EXPECT_CONTAINS(lastError(), "is not in device memory from aclrtMalloc");
    EXPECT_EQ(out.values(2), (std::vector<float>{0, 0}));
    aclDestroyAclOpExecutor(e);
    aclDestroyTensor(in);
}

TEST(LaunchChecks, WorkspaceSmallerThanClaimedIsAnError) {
    DeviceVector in({1, 2, 3, 4, 5, 6, 7, 8}), out(std::vector<float>(8, 0));
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(in.t, out.t, &ws, &e), ACLNN_SUCCESS);
    ASSERT_EQ(ws, 32u);
    Workspace small(8);
    EXPECT_EQ(run(small.p, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_CONTAINS(lastError(), "workspaceSize is 32 bytes but the aclrtMalloc block at workspace holds only 8 bytes");
    // A workspace pointer in the middle of a block counts the bytes from there.
    Workspace big(40);
    EXPECT_EQ(run(static_cast<char*>(big.p) + 16, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_CONTAINS(lastError(), "holds only 24 bytes from there");
    // Freed workspace.
    void* freed = nullptr;
    ASSERT_EQ(aclrtMalloc(&freed, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtFree(freed), ACL_SUCCESS);
    EXPECT_EQ(run(freed, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_CONTAINS(lastError(), "is not device memory from aclrtMalloc");
    Workspace right(ws);
    EXPECT_EQ(run(right.p, ws, e), ACLNN_SUCCESS) << lastError();
}

TEST(LaunchChecks, OutputAliasingInputReadsTheInputAsItWasAtLaunch) {
    DeviceVector x({1, 2, 3, 4, 5});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(x.t, x.t, &ws, &e), ACLNN_SUCCESS);
    Workspace w(ws);
    ASSERT_EQ(run(w.p, ws, e), ACLNN_SUCCESS) << lastError();
    EXPECT_EQ(x.values(5), (std::vector<float>{6, 5, 4, 3, 2}));
}

TEST(LaunchChecks, OutputWithZeroStrideIsRefusedInPhase1) {
    DeviceVector in({1, 2, 3, 4});
    void* dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    const int64_t n = 4, zero = 0;
    aclTensor* out = aclCreateTensor(&n, 1, ACL_FLOAT, &zero, 0, ACL_FORMAT_ND, nullptr, 0, dev);
    ASSERT_NE(out, nullptr);  // a broadcast view is a valid input
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    EXPECT_EQ(prepareReversePlusOne(in.t, out, &ws, &e), ACLNN_ERR_PARAM_INVALID);
    EXPECT_CONTAINS(lastError(), "out float32[4] strides [0] has stride 0 in dimension 0 of size 4");
    aclDestroyTensor(out);
    aclrtFree(dev);
}

// ---- sizes that overflow ---------------------------------------------------------------------

TEST(OverflowChecks, HugeShapesStridesAndOffsetsAreRefused) {
    void* dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    const int64_t b31 = int64_t{1} << 31, b32 = int64_t{1} << 32, b61 = int64_t{1} << 61, b62 = int64_t{1} << 62;
    struct Case {
        std::vector<int64_t> dims, strides;
        int64_t offset;
        bool storage;
        const char* says;
    };
    const std::vector<Case> cases = {
        {{b31, b31, 4}, {}, 0, false, "has more elements than int64 counts"},
        {{b32, b32}, {}, 0, false, "has more elements than int64 counts"},
        {{b62, 3}, {}, 0, false, "has more elements than int64 counts"},
        {{INT64_MAX, 2}, {}, 0, false, "has more elements than int64 counts"},
        {{b31, b31, 4}, {}, 0, true, "has more elements than int64 counts"},
        {{3}, {b61}, 0, false, "reaches beyond what 64-bit addresses hold"},
        {{2, 2}, {b61, 1}, 0, false, "its aclrtMalloc block is smaller"},
        {{2}, {1}, INT64_MAX - 1, false, "reaches beyond what 64-bit addresses hold"},
        {{2}, {1}, b62, false, "reaches beyond what 64-bit addresses hold"},
        {{b62}, {INT64_MAX}, 0, false, "reaches beyond what 64-bit addresses hold"},
    };
    for (const Case& c : cases) {
        aclTensor* t = aclCreateTensor(c.dims.data(), c.dims.size(), ACL_FLOAT,
                                       c.strides.empty() ? nullptr : c.strides.data(), c.offset, ACL_FORMAT_ND,
                                       c.storage ? c.dims.data() : nullptr, c.storage ? c.dims.size() : 0, dev);
        EXPECT_EQ(t, nullptr);
        EXPECT_CONTAINS(lastError(), "[161002] aclCreateTensor: ");
        EXPECT_CONTAINS(lastError(), c.says);
    }
    // Host memory near the top of the address space: the view would wrap.
    const int64_t n = 1024;
    EXPECT_EQ(aclCreateTensor(&n, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0,
                              reinterpret_cast<void*>(UINTPTR_MAX - 64)),
              nullptr);
    EXPECT_CONTAINS(lastError(), "wraps around the address space");
    // A broadcast view of 2^40 elements over one float is fine.
    const int64_t many = int64_t{1} << 40, zero = 0;
    aclTensor* broadcast = aclCreateTensor(&many, 1, ACL_FLOAT, &zero, 0, ACL_FORMAT_ND, nullptr, 0, dev);
    EXPECT_NE(broadcast, nullptr) << lastError();
    aclDestroyTensor(broadcast);
    aclrtFree(dev);
    // Arrays whose size would run past the end of the address space.
    const int64_t one = 1;
    EXPECT_EQ(aclCreateIntArray(&one, uint64_t{1} << 62), nullptr);
    EXPECT_CONTAINS(lastError(),
                    "[161002] aclCreateIntArray: size 4611686018427387904 runs past the end of the address space");
    const float f = 1;
    EXPECT_EQ(aclCreateFloatArray(&f, UINT64_MAX), nullptr);
    EXPECT_CONTAINS(lastError(), "runs past the end of the address space");
}

TEST(OverflowChecks, ViewArithmeticIsChecked) {
    EXPECT_THROW(shapeNumel({int64_t{1} << 62, 4}), StatusError);
    EXPECT_EQ(shapeNumel({int64_t{1} << 62, 0}), 0);
    EXPECT_THROW(TensorView::contiguousStrides({int64_t{1} << 62, 4, 2}), StatusError);
    TensorView v = TensorView::contiguous(DType::Float32, {3}, nullptr);
    v.strides = {int64_t{1} << 62};
    EXPECT_THROW(v.byteRange(), StatusError);
    v.strides = {2};
    EXPECT_EQ(v.byteRange().end, 20u);
    Plan plan;
    plan.addScratch("a", DType::Float64, {int64_t{1} << 60});
    EXPECT_THROW(plan.addScratch("b", DType::Float64, {int64_t{1} << 60}), StatusError);
}

TEST(OverflowChecks, MemcpyAndMemsetCountsNearSizeMaxDoNotWrap) {
    void* dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::vector<unsigned char> host(64, 1);
    for (const size_t huge : {SIZE_MAX - 8, SIZE_MAX, size_t{1} << 63}) {
        EXPECT_EQ(aclrtMemcpy(dev, huge, host.data(), huge, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
        EXPECT_CONTAINS(lastError(), "overruns its allocation of 64 bytes");
        EXPECT_EQ(aclrtMemcpy(host.data(), huge, dev, huge, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
        EXPECT_CONTAINS(lastError(), "overruns its allocation of 64 bytes");
        EXPECT_EQ(aclrtMemcpy(dev, huge, dev, huge, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
        EXPECT_EQ(aclrtMemset(dev, huge, 0, huge), ACL_ERROR_INVALID_PARAM);
        EXPECT_CONTAINS(lastError(), "overruns its allocation of 64 bytes");
        // From the middle of the block: the count is compared with what is left, not added.
        EXPECT_EQ(aclrtMemset(static_cast<char*>(dev) + 32, huge, 0, huge), ACL_ERROR_INVALID_PARAM);
    }
    // Host memory has no recorded size: only a range that wraps the address space is caught.
    EXPECT_EQ(aclrtMemcpy(host.data(), SIZE_MAX, host.data() + 1, SIZE_MAX - 8, ACL_MEMCPY_HOST_TO_HOST),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_CONTAINS(lastError(), "wraps around the address space");
    EXPECT_EQ(aclrtMemset(static_cast<char*>(dev) + 32, 32, 0, 32), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(static_cast<char*>(dev) + 32, 33, 0, 33), ACL_ERROR_INVALID_PARAM);
    for (unsigned char b : host) EXPECT_EQ(b, 1);
    aclrtFree(dev);
}

// ---- one executor, two threads -----------------------------------------------------------------

struct SlowCall {
    DeviceVector in{std::vector<float>(64, 1.0f)}, out{std::vector<float>(64, 0.0f)};
    StepHooks hooks;
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    explicit SlowCall(int sleepMs) {
        hooks.sleepMs = sleepMs;
        EXPECT_EQ(prepareReversePlusOne(in.t, out.t, &ws, &e, &hooks), ACLNN_SUCCESS);
    }
    void waitUntilStarted() const {
        while (!hooks.started) std::this_thread::yield();
    }
};

TEST(ExecutorThreads, SecondLaunchOfANonRepeatableExecutorIsRefused) {
    for (int round = 0; round < 20; ++round) {
        SlowCall c(round == 0 ? 30 : 2);
        Workspace w1(c.ws), w2(c.ws);
        std::atomic<int> ready{0};
        int32_t rc1 = -1, rc2 = -1;
        std::string msg1, msg2;
        std::thread a([&] {
            ready++;
            while (ready < 2) std::this_thread::yield();
            rc1 = run(w1.p, c.ws, c.e);
            msg1 = lastError();
        });
        std::thread b([&] {
            ready++;
            while (ready < 2) std::this_thread::yield();
            if (round == 0) c.waitUntilStarted();  // the first round surely overlaps
            rc2 = run(w2.p, c.ws, c.e);
            msg2 = lastError();
        });
        a.join();
        b.join();
        ASSERT_EQ((rc1 == 0) + (rc2 == 0), 1) << "round " << round << ": " << rc1 << " " << rc2;
        const std::string& refused = rc1 == 0 ? msg2 : msg1;
        EXPECT_EQ(rc1 == 0 ? rc2 : rc1, ACLNN_ERR_RUNTIME_ERROR);
        EXPECT_TRUE(refused.find("is running on another thread") != std::string::npos ||
                    refused.find("already ran once") != std::string::npos)
            << refused;
        if (round == 0) EXPECT_CONTAINS(refused, "is running on another thread");
    }
}

TEST(ExecutorThreads, TwoLaunchesOfARepeatableExecutorRunOneAfterTheOther) {
    SlowCall c(20);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(c.e), ACLNN_SUCCESS);
    Workspace w1(c.ws), w2(c.ws);
    int32_t rc1 = -1, rc2 = -1;
    std::thread a([&] { rc1 = run(w1.p, c.ws, c.e); });
    c.waitUntilStarted();
    std::thread b([&] { rc2 = run(w2.p, c.ws, c.e); });
    a.join();
    b.join();
    EXPECT_EQ(rc1, ACLNN_SUCCESS);
    EXPECT_EQ(rc2, ACLNN_SUCCESS);
    EXPECT_EQ(c.e->completedRuns(), 2);
    EXPECT_EQ(aclDestroyAclOpExecutor(c.e), ACLNN_SUCCESS);
}

TEST(ExecutorThreads, DestroyWhileAnotherThreadRunsWaitsForTheRun) {
    for (bool repeatable : {false, true}) {
        SlowCall c(30);
        if (repeatable) ASSERT_EQ(aclSetAclOpExecutorRepeatable(c.e), ACLNN_SUCCESS);
        Workspace w(c.ws);
        int32_t rcRun = -1;
        std::thread a([&] { rcRun = run(w.p, c.ws, c.e); });
        c.waitUntilStarted();
        EXPECT_EQ(aclDestroyAclOpExecutor(c.e), ACLNN_SUCCESS) << lastError();
        EXPECT_TRUE(c.hooks.finished) << "destroy returned before the run ended";
        a.join();
        EXPECT_EQ(rcRun, ACLNN_SUCCESS);
        EXPECT_EQ(c.out.values(1)[0], 2.0f);
        // Gone now: a launch or another destroy is an error, not a use after free.
        EXPECT_EQ(run(w.p, c.ws, c.e), ACLNN_ERR_RUNTIME_ERROR);
        if (repeatable) EXPECT_EQ(aclDestroyAclOpExecutor(c.e), ACLNN_ERR_PARAM_INVALID);
    }
}

TEST(ExecutorThreads, DestroyFromInsideItsOwnRunIsRefused) {
    SlowCall c(0);
    c.hooks.destroyFromInside = c.e;
    Workspace w(c.ws);
    EXPECT_EQ(run(w.p, c.ws, c.e), ACLNN_SUCCESS);
    EXPECT_EQ(c.hooks.destroyStatus, ACLNN_ERR_PARAM_INVALID);
}

// ---- after aclFinalize ---------------------------------------------------------------------------

TEST(Lifecycle, LaunchAndMemoryCallsAfterFinalizeAreErrors) {
    DeviceVector in({1, 2}), out({0, 0});
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
    ASSERT_EQ(prepareReversePlusOne(in.t, out.t, &ws, &e), ACLNN_SUCCESS);
    Workspace w(ws);
    aclFinalize();  // fails unless an earlier test in this process left the runtime initialized
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_EQ(run(w.p, ws, e), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_CONTAINS(lastError(), "the runtime was finalized (aclFinalize)");
    void* p = nullptr;
    EXPECT_EQ(aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
    float h[2] = {};
    EXPECT_EQ(aclrtMemcpy(h, 8, in.dev, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_UNINITIALIZE);
    EXPECT_EQ(aclrtMemset(in.dev, 8, 0, 8), ACL_ERROR_UNINITIALIZE);
    aclrtStream s = nullptr;
    EXPECT_EQ(aclrtCreateStream(&s), ACL_ERROR_UNINITIALIZE);
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);  // the device is back
    EXPECT_EQ(run(w.p, ws, e), ACLNN_SUCCESS) << lastError();
    EXPECT_EQ(out.values(2), (std::vector<float>{3, 2}));
}

}  // namespace
}  // namespace opscope
