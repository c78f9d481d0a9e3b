// C API misuse and concurrency probes for OpScope's aclnn emulation (issue 12's reproducer).
// Built and run by run_misuse.sh against an installed SDK.  Run: ./capi_misuse TEST [args]
// Every test prints lines "RESULT <test> <what> rc=<code> ..." and exits 0 unless it finds a
// wrong result (exit 3); a crash shows as a signal in the caller.
#include <stdexcept>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

static aclrtStream gStream = nullptr;

static void say(const char* test, const char* what, int rc) {
    const char* msg = rc ? aclGetRecentErrMsg() : "";
    std::printf("RESULT %s %s rc=%d %s\n", test, what, rc, msg ? msg : "(null msg)");
    std::fflush(stdout);
}

static int64_t numel(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (auto d : s) n *= d;
    return n;
}

struct DevTensor {
    void* dev = nullptr;
    size_t bytes = 0;
    aclTensor* t = nullptr;
    std::vector<int64_t> shape;
    void create(const std::vector<int64_t>& shp, const std::vector<float>& host, aclFormat fmt = ACL_FORMAT_ND) {
        shape = shp;
        bytes = static_cast<size_t>(numel(shp)) * sizeof(float);
        // Fails after aclFinalize: finalize_while_running catches this, elsewhere it ends the probe.
        if (aclrtMalloc(&dev, bytes ? bytes : 4, ACL_MEM_MALLOC_HUGE_FIRST) != 0)
            throw std::runtime_error(std::string("aclrtMalloc failed: ") + aclGetRecentErrMsg());
        if (bytes) aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
        std::vector<int64_t> strides(shp.size(), 1);
        for (int64_t i = static_cast<int64_t>(shp.size()) - 2; i >= 0; i--) strides[i] = shp[i + 1] * strides[i + 1];
        t = aclCreateTensor(shp.data(), shp.size(), ACL_FLOAT, strides.data(), 0, fmt, shp.data(), shp.size(), dev);
        if (!t) {
            std::printf("aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
            std::abort();
        }
    }
    std::vector<float> read() const {
        std::vector<float> h(bytes / sizeof(float));
        if (bytes) aclrtMemcpy(h.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
        return h;
    }
    void destroy() {
        if (t) aclDestroyTensor(t);
        if (dev) aclrtFree(dev);
        t = nullptr;
        dev = nullptr;
    }
};

static std::vector<float> pattern(int64_t n, int seed, float scale = 0.25f) {
    std::vector<float> v(static_cast<size_t>(n));
    uint32_t x = 2463534242u + static_cast<uint32_t>(seed) * 7919u;
    for (auto& e : v) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        e = (static_cast<int>(x % 17) - 8) * scale;
    }
    return v;
}

// Device memory for a workspace of ws bytes (none for 0), as the samples allocate it.
static void* workspaceOf(uint64_t ws) {
    void* w = nullptr;
    if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    return w;
}

// One operator call with its own tensors.
// Phase 1's result: its status, the workspace size and the executor.
struct Phase1 {
    int rc = 0;
    uint64_t ws = 0;
    aclOpExecutor* e = nullptr;
};

struct OpCall {
    std::vector<DevTensor> ins, outs;
    std::vector<aclIntArray*> ints;
    aclBoolArray* mask = nullptr;
    virtual ~OpCall() = default;
    virtual const char* name() const = 0;
    virtual int prepare(uint64_t* ws, aclOpExecutor** e) = 0;
    virtual int run(void* ws, uint64_t size, aclOpExecutor* e, aclrtStream s) = 0;
    std::vector<float> outputs() const {
        std::vector<float> all;
        for (auto& o : outs) {
            auto v = o.read();
            all.insert(all.end(), v.begin(), v.end());
        }
        return all;
    }
    void destroy() {
        for (auto& t : ins) t.destroy();
        for (auto& t : outs) t.destroy();
        for (auto* a : ints) aclDestroyIntArray(a);
        if (mask) aclDestroyBoolArray(mask);
        ints.clear();
        mask = nullptr;
    }
    Phase1 phase1() {
        Phase1 p;
        p.rc = prepare(&p.ws, &p.e);
        return p;
    }
    // Runs both phases with a workspace from aclrtMalloc.
    int full() {
        const Phase1 ph = phase1();
        int rc = ph.rc;
        if (rc) return rc;
        void* w = workspaceOf(ph.ws);
        rc = run(w, ph.ws, ph.e, gStream);
        if (w) aclrtFree(w);
        return rc;
    }
};

struct GroupNorm : OpCall {
    int64_t N = 2, C = 4, HxW = 6, G = 2;
    explicit GroupNorm(int seed, int64_t hxw = 6) {
        HxW = hxw;
        std::vector<int64_t> x = {N, C, HxW}, m = {N, G}, g = {C};
        auto in = pattern(numel(x), seed), dy = pattern(numel(x), seed + 1);
        std::vector<float> mean(N * G), rstd(N * G);
        for (int64_t n = 0; n < N; n++)
            for (int64_t gg = 0; gg < G; gg++) {
                double s = 0, ss = 0;
                int64_t cnt = (C / G) * HxW;
                for (int64_t i = 0; i < cnt; i++) s += in[(n * C + gg * (C / G)) * HxW + i];
                double mu = s / cnt;
                for (int64_t i = 0; i < cnt; i++) {
                    double d = in[(n * C + gg * (C / G)) * HxW + i] - mu;
                    ss += d * d;
                }
                mean[n * G + gg] = static_cast<float>(mu);
                rstd[n * G + gg] = static_cast<float>(1.0 / std::sqrt(ss / cnt + 1e-5));
            }
        ins.resize(5);
        ins[0].create(x, dy);
        ins[1].create(x, in);
        ins[2].create(m, mean);
        ins[3].create(m, rstd);
        ins[4].create(g, pattern(C, seed + 2, 0.125f));
        outs.resize(3);
        outs[0].create(x, std::vector<float>(numel(x), 0));
        outs[1].create(g, std::vector<float>(C, 0));
        outs[2].create(g, std::vector<float>(C, 0));
        bool mk[3] = {true, true, true};
        mask = aclCreateBoolArray(mk, 3);
    }
    const char* name() const override { return "GroupNormBackward"; }
    int prepare(uint64_t* ws, aclOpExecutor** e) override {
        return aclnnGroupNormBackwardGetWorkspaceSize(ins[0].t, ins[1].t, ins[2].t, ins[3].t, ins[4].t, N, C, HxW, G,
                                                      mask, outs[0].t, outs[1].t, outs[2].t, ws, e);
    }
    int run(void* w, uint64_t s, aclOpExecutor* e, aclrtStream st) override {
        return aclnnGroupNormBackward(w, s, e, st);
    }
};

struct RmsNorm : OpCall {
    explicit RmsNorm(int seed) {
        std::vector<int64_t> x = {3, 16}, r = {3}, g = {16};
        std::vector<float> rstd = {0.9f, 1.1f, 0.7f};
        ins.resize(4);
        ins[0].create(x, pattern(48, seed));
        ins[1].create(x, pattern(48, seed + 1));
        ins[2].create(r, rstd);
        ins[3].create(g, pattern(16, seed + 2, 0.125f));
        outs.resize(2);
        outs[0].create(x, std::vector<float>(48, 0));
        outs[1].create(g, std::vector<float>(16, 0));
    }
    const char* name() const override { return "RmsNormGrad"; }
    int prepare(uint64_t* ws, aclOpExecutor** e) override {
        return aclnnRmsNormGradGetWorkspaceSize(ins[0].t, ins[1].t, ins[2].t, ins[3].t, outs[0].t, outs[1].t, ws, e);
    }
    int run(void* w, uint64_t s, aclOpExecutor* e, aclrtStream st) override { return aclnnRmsNormGrad(w, s, e, st); }
};

struct Conv : OpCall {
    int64_t N = 2, Cin = 2, H = 4, W = 4, Cout = 3, K = 3;
    explicit Conv(int seed, int64_t hw = 4, int64_t cin = 2, int64_t cout = 3) {
        H = W = hw;
        Cin = cin;
        Cout = cout;
        std::vector<int64_t> in = {N, Cin, H, W}, wt = {Cout, Cin, K, K}, go = {N, Cout, H, W}, b = {Cout};
        ins.resize(3);
        ins[0].create(go, pattern(numel(go), seed), ACL_FORMAT_NCHW);
        ins[1].create(in, pattern(numel(in), seed + 1), ACL_FORMAT_NCHW);
        ins[2].create(wt, pattern(numel(wt), seed + 2), ACL_FORMAT_NCHW);
        outs.resize(3);
        outs[0].create(in, std::vector<float>(numel(in), 0), ACL_FORMAT_NCHW);
        outs[1].create(wt, std::vector<float>(numel(wt), 0), ACL_FORMAT_NCHW);
        outs[2].create(b, std::vector<float>(Cout, 0));
        int64_t bs[1] = {Cout}, one[2] = {1, 1}, zero[2] = {0, 0};
        ints = {aclCreateIntArray(bs, 1), aclCreateIntArray(one, 2), aclCreateIntArray(one, 2),
                aclCreateIntArray(one, 2), aclCreateIntArray(zero, 2)};
        bool mk[3] = {true, true, true};
        mask = aclCreateBoolArray(mk, 3);
    }
    const char* name() const override { return "ConvolutionBackward"; }
    int prepare(uint64_t* ws, aclOpExecutor** e) override {
        return aclnnConvolutionBackwardGetWorkspaceSize(ins[0].t, ins[1].t, ins[2].t, ints[0], ints[1], ints[2],
                                                        ints[3], false, ints[4], 1, mask, 1, outs[0].t, outs[1].t,
                                                        outs[2].t, ws, e);
    }
    int run(void* w, uint64_t s, aclOpExecutor* e, aclrtStream st) override {
        return aclnnConvolutionBackward(w, s, e, st);
    }
};

struct Grid : OpCall {
    explicit Grid(int seed) {
        std::vector<int64_t> go = {1, 2, 3, 3}, in = {1, 2, 5, 8}, gr = {1, 3, 3, 2};
        auto grid = pattern(18, seed + 2, 0.11f);
        for (auto& v : grid) v += 0.013f;
        ins.resize(3);
        ins[0].create(go, pattern(18, seed));
        ins[1].create(in, pattern(80, seed + 1));
        ins[2].create(gr, grid);
        outs.resize(2);
        outs[0].create(in, std::vector<float>(80, 0));
        outs[1].create(gr, std::vector<float>(18, 0));
        bool mk[2] = {true, true};
        mask = aclCreateBoolArray(mk, 2);
    }
    const char* name() const override { return "GridSampler2DBackward"; }
    int prepare(uint64_t* ws, aclOpExecutor** e) override {
        return aclnnGridSampler2DBackwardGetWorkspaceSize(ins[0].t, ins[1].t, ins[2].t, 0, 0, false, mask, outs[0].t,
                                                          outs[1].t, ws, e);
    }
    int run(void* w, uint64_t s, aclOpExecutor* e, aclrtStream st) override {
        return aclnnGridSampler2DBackward(w, s, e, st);
    }
};

static std::unique_ptr<OpCall> makeOp(int which, int seed) {
    switch (which % 4) {
        case 0: return std::make_unique<GroupNorm>(seed);
        case 1: return std::make_unique<RmsNorm>(seed);
        case 2: return std::make_unique<Conv>(seed);
        default: return std::make_unique<Grid>(seed);
    }
}

// ---- tests ------------------------------------------------------------------------------------

// T threads x K calls each, every call with its own tensors; results compared bitwise with a
// sequential run of the same inputs.
static int testConcurrent(int T, int K) {
    std::vector<std::vector<float>> ref(4);
    for (int op = 0; op < 4; op++) {
        auto c = makeOp(op, op * 10);
        int rc = c->full();
        if (rc) say("concurrent", "reference", rc);
        ref[op] = c->outputs();
        c->destroy();
    }
    std::atomic<int> errors{0}, mismatches{0}, calls{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> th;
    for (int t = 0; t < T; t++)
        th.emplace_back([&, t] {
            while (!go.load()) std::this_thread::yield();
            for (int k = 0; k < K; k++) {
                int op = (t + k) % 4;
                auto c = makeOp(op, op * 10);
                int rc = c->full();
                calls++;
                if (rc) {
                    errors++;
                    std::printf("thread %d call %d %s rc=%d %s\n", t, k, c->name(), rc, aclGetRecentErrMsg());
                } else if (c->outputs() != ref[op]) {
                    mismatches++;
                }
                c->destroy();
            }
        });
    go = true;
    for (auto& x : th) x.join();
    std::printf("RESULT concurrent threads=%d calls=%d errors=%d mismatches=%d expected_executors=%d\n", T,
                calls.load(), errors.load(), mismatches.load(), calls.load() + 4);
    return mismatches || errors ? 3 : 0;
}

static int testDestroyTensorsThenRun() {
    int bad = 0;
    for (int op = 0; op < 4; op++) {
        auto ref = makeOp(op, 1);
        ref->full();
        auto want = ref->outputs();
        auto c = makeOp(op, 1);
        const Phase1 ph = c->phase1();
        int rc = ph.rc;
        for (auto& t : c->ins) aclDestroyTensor(t.t), t.t = nullptr;
        for (auto& t : c->outs) aclDestroyTensor(t.t), t.t = nullptr;
        void* w = workspaceOf(ph.ws);
        rc = c->run(w, ph.ws, ph.e, gStream);
        std::string what = std::string(c->name()) + " run_after_aclDestroyTensor";
        say("destroy_tensors", what.c_str(), rc);
        if (!rc && c->outputs() != want) {
            std::printf("RESULT destroy_tensors %s WRONG RESULT\n", c->name());
            bad++;
        }
        if (w) aclrtFree(w);
        c->destroy();
        ref->destroy();
    }
    return bad ? 3 : 0;
}

// aclrtFree of the tensors' device memory after phase 1, then phase 2.
static int testFreeMemoryThenRun(int which, bool reuse) {
    // which 4: a convolution whose gradInput is 2 MiB (mapped block, kept in the free-block cache)
    std::unique_ptr<OpCall> c = which == 4 ? std::unique_ptr<OpCall>(new Conv(1, 128, 16, 4)) : makeOp(which, 1);
    const Phase1 ph = c->phase1();
    int rc = ph.rc;
    say("free_memory", "prepare", rc);
    std::vector<void*> others;
    for (auto& t : c->outs) {
        rc = aclrtFree(t.dev);
        t.dev = nullptr;
        if (reuse) {  // someone else's buffer lands where the output was
            void* p = nullptr;
            aclrtMalloc(&p, t.bytes, ACL_MEM_MALLOC_HUGE_FIRST);
            aclrtMemset(p, t.bytes, 0x11, t.bytes);
            others.push_back(p);
        }
    }
    if (!reuse)
        for (auto& t : c->ins) aclrtFree(t.dev), t.dev = nullptr;
    void* w = workspaceOf(ph.ws);
    rc = c->run(w, ph.ws, ph.e, gStream);
    std::string what = std::string(c->name()) + (reuse ? " run_after_aclrtFree_and_realloc" : " run_after_aclrtFree");
    say("free_memory", what.c_str(), rc);
    int clobbered = 0;
    for (size_t i = 0; i < others.size(); i++) {
        std::vector<unsigned char> h(c->outs[i].bytes);
        aclrtMemcpy(h.data(), h.size(), others[i], h.size(), ACL_MEMCPY_DEVICE_TO_HOST);
        for (auto b : h) clobbered += b != 0x11;
    }
    if (reuse) std::printf("RESULT free_memory %s other_buffers_bytes_changed=%d\n", c->name(), clobbered);
    return 0;
}

static int testSpentExecutor() {
    auto c = makeOp(0, 1);
    const Phase1 ph = c->phase1();
    void* w = workspaceOf(ph.ws);
    say("spent_executor", "first run", c->run(w, ph.ws, ph.e, gStream));
    say("spent_executor", "second run", c->run(w, ph.ws, ph.e, gStream));
    c->destroy();
    say("spent_executor", "third run after tensors and memory freed", c->run(w, ph.ws, ph.e, gStream));
    say("spent_executor", "destroy spent executor", aclDestroyAclOpExecutor(ph.e));
    say("spent_executor", "destroy spent executor again", aclDestroyAclOpExecutor(ph.e));
    // after many executors the spent one is really freed; running it must still be an error
    for (int i = 0; i < 300; i++) {
        auto d = makeOp(1, i);
        d->full();
        d->destroy();
    }
    say("spent_executor", "run after 300 later executors", c->run(w, ph.ws, ph.e, gStream));
    if (w) aclrtFree(w);
    return 0;
}

// Repeatable executor: tensors destroyed and memory freed, then run again.
static int testRepeatableAfterFree() {
    auto c = makeOp(2, 1);
    const Phase1 ph = c->phase1();
    say("repeatable_after_free", "set repeatable", aclSetAclOpExecutorRepeatable(ph.e));
    void* w = workspaceOf(ph.ws);
    say("repeatable_after_free", "first run", c->run(w, ph.ws, ph.e, gStream));
    c->destroy();
    say("repeatable_after_free", "run after tensors destroyed and memory freed", c->run(w, ph.ws, ph.e, gStream));
    if (w) aclrtFree(w);
    say("repeatable_after_free", "run after workspace freed too", c->run(w, ph.ws, ph.e, gStream));
    return 0;
}

// Two threads launch the same (non-repeatable or repeatable) executor at once.
static int testSameExecutorTwoThreads(bool repeatable, int rounds) {
    int both_ok = 0, one_ok = 0, none_ok = 0;
    for (int r = 0; r < rounds; r++) {
        auto c = std::make_unique<Conv>(r, 24, 8, 8);  // a few ms of work
        const Phase1 ph = c->phase1();
        if (repeatable) aclSetAclOpExecutorRepeatable(ph.e);
        void *w1 = nullptr, *w2 = nullptr;
        if (ph.ws)
            aclrtMalloc(&w1, ph.ws, ACL_MEM_MALLOC_HUGE_FIRST), aclrtMalloc(&w2, ph.ws, ACL_MEM_MALLOC_HUGE_FIRST);
        std::atomic<int> ready{0};
        int rc1 = -1, rc2 = -1;
        std::thread a([&] {
            ready++;
            while (ready < 2) {}
            rc1 = c->run(w1, ph.ws, ph.e, gStream);
        });
        std::thread b([&] {
            ready++;
            while (ready < 2) {}
            rc2 = c->run(w2, ph.ws, ph.e, gStream);
        });
        a.join();
        b.join();
        if (rc1 == 0 && rc2 == 0)
            both_ok++;
        else if (rc1 == 0 || rc2 == 0)
            one_ok++;
        else
            none_ok++;
        if (repeatable) aclDestroyAclOpExecutor(ph.e);
        if (w1) aclrtFree(w1);
        if (w2) aclrtFree(w2);
        c->destroy();
    }
    std::printf("RESULT same_executor_two_threads repeatable=%d rounds=%d both_succeeded=%d one_succeeded=%d none=%d\n",
                repeatable, rounds, both_ok, one_ok, none_ok);
    // push the spent queue so that double-queued executors get deleted
    for (int i = 0; i < 600; i++) {
        auto d = makeOp(1, i);
        d->full();
        d->destroy();
    }
    std::printf("RESULT same_executor_two_threads survived 600 more executors\n");
    return 0;
}

static int testDestroyWhileRunning(int rounds) {
    int destroyed_ok = 0;
    for (int r = 0; r < rounds; r++) {
        auto c = std::make_unique<Conv>(r, 48, 16, 16);
        const Phase1 ph = c->phase1();
        void* w = workspaceOf(ph.ws);
        std::atomic<bool> started{false};
        int rcRun = -1, rcDestroy = -1;
        std::thread a([&] {
            started = true;
            rcRun = c->run(w, ph.ws, ph.e, gStream);
        });
        while (!started) {}
        std::this_thread::sleep_for(std::chrono::microseconds(200 + 100 * r));
        rcDestroy = aclDestroyAclOpExecutor(ph.e);
        a.join();
        if (rcDestroy == 0) destroyed_ok++;
        if (r == 0) say("destroy_while_running", "run", rcRun), say("destroy_while_running", "destroy", rcDestroy);
        if (w) aclrtFree(w);
        c->destroy();
    }
    std::printf("RESULT destroy_while_running rounds=%d destroy_returned_success=%d\n", rounds, destroyed_ok);
    return 0;
}

static int testFinalizeWhileRunning() {
    std::atomic<bool> stop{false};
    std::atomic<int> ok{0}, err{0};
    std::thread a([&] {
        int i = 0;
        while (!stop) {
            try {
                auto c = makeOp(i, i);
                int rc = c->full();
                (rc ? err : ok)++;
                c->destroy();
            } catch (const std::runtime_error&) {  // no device memory after aclFinalize
                err++;
            }
            i++;
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    int rc = aclFinalize();
    say("finalize_while_running", "aclFinalize", rc);
    int before = ok.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    stop = true;
    a.join();
    std::printf("RESULT finalize_while_running ok_calls=%d (of which after finalize: %d) error_calls=%d\n", ok.load(),
                ok.load() - before, err.load());
    return 0;
}

static int testHugeShapes(int only) {
    void* dev = nullptr;
    aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    struct Case {
        const char* name;
        std::vector<int64_t> shape, strides;
        int64_t offset;
        bool storage;
    };
    const int64_t B31 = int64_t(1) << 31, B32 = int64_t(1) << 32, B61 = int64_t(1) << 61, B62 = int64_t(1) << 62;
    std::vector<Case> cases = {
        {"dims[2^31,2^31,4]", {B31, B31, 4}, {}, 0, false},
        {"dims[2^32,2^32]", {B32, B32}, {}, 0, false},
        {"dims[2^62,3]", {B62, 3}, {}, 0, false},
        {"dims[INT64_MAX,2]", {INT64_MAX, 2}, {}, 0, false},
        {"dims[2^31,2^31,4] with storageDims", {B31, B31, 4}, {}, 0, true},
        {"dims[-1,4]", {-1, 4}, {}, 0, false},
        {"dims[4,-4]", {4, -4}, {}, 0, false},
        {"dims[3] strides[2^61] (bytes wrap)", {3}, {B61}, 0, false},
        {"dims[2,2] strides[2^61,1]", {2, 2}, {B61, 1}, 0, false},
        {"dims[2] offset INT64_MAX-1", {2}, {1}, INT64_MAX - 1, false},
        {"dims[2] offset 2^62", {2}, {1}, B62, false},
        {"dims[4,4] strides[0,0] (overlap)", {4, 4}, {0, 0}, 0, false},
        {"dims[2^40] strides[0]", {int64_t(1) << 40}, {0}, 0, false},
        {"dims[2] strides[-1]", {2}, {-1}, 1, false},
    };
    for (size_t ci = 0; ci < cases.size(); ci++) {
        if (only >= 0 && static_cast<int>(ci) != only) continue;
        auto& c = cases[ci];
        aclTensor* t = aclCreateTensor(c.shape.data(), c.shape.size(), ACL_FLOAT,
                                       c.strides.empty() ? nullptr : c.strides.data(), c.offset, ACL_FORMAT_ND,
                                       c.storage ? c.shape.data() : nullptr, c.storage ? c.shape.size() : 0, dev);
        std::printf("RESULT huge_shapes create %s -> %s %s\n", c.name, t ? "CREATED" : "refused",
                    t ? "" : aclGetRecentErrMsg());
        std::fflush(stdout);
        if (!t) continue;
        // Use it as RmsNormGrad's dy/x, and for rank-3 as GroupNorm's gradOut/input.
        uint64_t ws = 0;
        aclOpExecutor* e = nullptr;
        int rc;
        if (c.shape.size() == 3) {
            int64_t N = c.shape[0], C = c.shape[1], HxW = c.shape[2];
            std::vector<int64_t> ms = {N, 1}, gs = {C};
            aclTensor* m = aclCreateTensor(ms.data(), 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev);
            aclTensor* g = aclCreateTensor(gs.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev);
            bool mk[3] = {true, true, true};
            aclBoolArray* mask = aclCreateBoolArray(mk, 3);
            rc = aclnnGroupNormBackwardGetWorkspaceSize(t, t, m, m, g, N, C, HxW, 1, mask, t, g, g, &ws, &e);
            std::printf("RESULT huge_shapes GroupNormBackward phase1 %s rc=%d %s\n", c.name, rc,
                        rc ? aclGetRecentErrMsg() : "");
        } else {
            int64_t rows = c.shape.size() > 1 ? c.shape[0] : 1;
            std::vector<int64_t> rs = {rows}, gs = {c.shape.back()};
            aclTensor* r = aclCreateTensor(rs.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev);
            aclTensor* g = aclCreateTensor(gs.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev);
            void* dev2 = nullptr;
            aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
            std::vector<int64_t> shp = c.shape;
            // outputs: contiguous copies of the same shape where they fit, else the same tensor
            aclTensor* dx =
                aclCreateTensor(shp.data(), shp.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev2);
            if (!dx) dx = t;
            aclTensor* dg = aclCreateTensor(gs.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev2);
            rc = aclnnRmsNormGradGetWorkspaceSize(t, t, r, g ? g : t, dx, dg ? dg : t, &ws, &e);
            std::printf("RESULT huge_shapes RmsNormGrad phase1 %s rc=%d %s\n", c.name, rc,
                        rc ? aclGetRecentErrMsg() : "");
        }
        std::fflush(stdout);
        if (rc == 0) {
            void* w = nullptr;
            if (ws) {
                int mrc = aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
                if (mrc)
                    std::printf("RESULT huge_shapes workspace %llu bytes: aclrtMalloc rc=%d\n", (unsigned long long)ws,
                                mrc);
            }
            rc = c.shape.size() == 3 ? aclnnGroupNormBackward(w, ws, e, gStream) : aclnnRmsNormGrad(w, ws, e, gStream);
            std::printf("RESULT huge_shapes phase2 %s rc=%d %s\n", c.name, rc, rc ? aclGetRecentErrMsg() : "");
            std::fflush(stdout);
        }
    }
    return 0;
}

// Output views that overlap (stride 0) and outputs aliasing inputs.
static int testOverlap() {
    auto ref = std::make_unique<RmsNorm>(1);
    ref->full();
    auto want = ref->outputs();
    {
        auto c = std::make_unique<RmsNorm>(1);
        std::vector<int64_t> shp = {3, 16}, zs = {0, 0};
        aclTensor* dx =
            aclCreateTensor(shp.data(), 2, ACL_FLOAT, zs.data(), 0, ACL_FORMAT_ND, nullptr, 0, c->outs[0].dev);
        std::printf("RESULT overlap create dx strides [0,0]: %s\n", dx ? "CREATED" : aclGetRecentErrMsg());
        uint64_t ws = 0;
        aclOpExecutor* e = nullptr;
        int rc = aclnnRmsNormGradGetWorkspaceSize(c->ins[0].t, c->ins[1].t, c->ins[2].t, c->ins[3].t, dx, c->outs[1].t,
                                                  &ws, &e);
        say("overlap", "RmsNormGrad dxOut strides [0,0] phase1", rc);
        if (!rc) {
            void* w = workspaceOf(ws);
            say("overlap", "RmsNormGrad dxOut strides [0,0] phase2", aclnnRmsNormGrad(w, ws, e, gStream));
        }
    }
    {
        // gradOutput (input) and dxOut (output) share memory: in-place
        auto c = std::make_unique<RmsNorm>(1);
        uint64_t ws = 0;
        aclOpExecutor* e = nullptr;
        int rc = aclnnRmsNormGradGetWorkspaceSize(c->ins[0].t, c->ins[1].t, c->ins[2].t, c->ins[3].t, c->ins[1].t,
                                                  c->outs[1].t, &ws, &e);
        say("overlap", "RmsNormGrad dxOut aliases x phase1", rc);
        if (!rc) {
            void* w = workspaceOf(ws);
            rc = aclnnRmsNormGrad(w, ws, e, gStream);
            say("overlap", "RmsNormGrad dxOut aliases x phase2", rc);
            auto got = c->ins[1].read();
            int diff = 0;
            for (size_t i = 0; i < got.size(); i++) diff += got[i] != want[i];
            std::printf("RESULT overlap aliasing: %d of %zu dx elements differ from the non-aliased run\n", diff,
                        got.size());
        }
    }
    return 0;
}

#define NULLCASE(label, expr)                               \
    do {                                                    \
        int rc_ = (expr);                                   \
        std::printf("RESULT nulls %s rc=%d\n", label, rc_); \
        std::fflush(stdout);                                \
        total++;                                            \
        if (rc_ == 0) accepted++;                           \
    } while (0)

// The call's tensors with the k-th one null (none when k is past them).
template <std::size_t N>
static std::array<aclTensor*, N> withNull(aclTensor* const (&all)[N], int k) {
    std::array<aclTensor*, N> b;
    std::copy(std::begin(all), std::end(all), b.begin());
    if (k < static_cast<int>(N)) b[static_cast<std::size_t>(k)] = nullptr;
    return b;
}

static int testNulls() {
    int total = 0, accepted = 0;
    uint64_t ws;
    aclOpExecutor* e;
    {
        GroupNorm g(1);
        auto* I = &g.ins;
        auto* O = &g.outs;
        aclTensor* a[8] = {(*I)[0].t, (*I)[1].t, (*I)[2].t, (*I)[3].t, (*I)[4].t, (*O)[0].t, (*O)[1].t, (*O)[2].t};
        for (int k = 0; k < 11; k++) {
            const std::array<aclTensor*, 8> b = withNull(a, k);
            aclBoolArray* m = k == 8 ? nullptr : g.mask;
            uint64_t* pws = k == 9 ? nullptr : &ws;
            aclOpExecutor** pe = k == 10 ? nullptr : &e;
            std::string l = "GroupNormBackward arg" + std::to_string(k);
            NULLCASE(l.c_str(), aclnnGroupNormBackwardGetWorkspaceSize(b[0], b[1], b[2], b[3], b[4], 2, 4, 6, 2, m,
                                                                       b[5], b[6], b[7], pws, pe));
        }
    }
    {
        RmsNorm r(1);
        aclTensor* a[6] = {r.ins[0].t, r.ins[1].t, r.ins[2].t, r.ins[3].t, r.outs[0].t, r.outs[1].t};
        for (int k = 0; k < 8; k++) {
            const std::array<aclTensor*, 6> b = withNull(a, k);
            std::string l = "RmsNormGrad arg" + std::to_string(k);
            NULLCASE(l.c_str(), aclnnRmsNormGradGetWorkspaceSize(b[0], b[1], b[2], b[3], b[4], b[5],
                                                                 k == 6 ? nullptr : &ws, k == 7 ? nullptr : &e));
        }
    }
    {
        Conv c(1);
        aclTensor* a[6] = {c.ins[0].t, c.ins[1].t, c.ins[2].t, c.outs[0].t, c.outs[1].t, c.outs[2].t};
        for (int k = 0; k < 14; k++) {
            const std::array<aclTensor*, 6> b = withNull(a, k);
            aclIntArray* ia[5] = {c.ints[0], c.ints[1], c.ints[2], c.ints[3], c.ints[4]};
            if (k >= 6 && k < 11) ia[k - 6] = nullptr;
            std::string l = "ConvolutionBackward arg" + std::to_string(k);
            NULLCASE(l.c_str(),
                     aclnnConvolutionBackwardGetWorkspaceSize(b[0], b[1], b[2], ia[0], ia[1], ia[2], ia[3], false,
                                                              ia[4], 1, k == 11 ? nullptr : c.mask, 1, b[3], b[4], b[5],
                                                              k == 12 ? nullptr : &ws, k == 13 ? nullptr : &e));
        }
    }
    {
        Grid g(1);
        aclTensor* a[5] = {g.ins[0].t, g.ins[1].t, g.ins[2].t, g.outs[0].t, g.outs[1].t};
        for (int k = 0; k < 8; k++) {
            const std::array<aclTensor*, 5> b = withNull(a, k);
            std::string l = "GridSampler2DBackward arg" + std::to_string(k);
            NULLCASE(l.c_str(), aclnnGridSampler2DBackwardGetWorkspaceSize(
                                    b[0], b[1], b[2], 0, 0, false, k == 5 ? nullptr : g.mask, b[3], b[4],
                                    k == 6 ? nullptr : &ws, k == 7 ? nullptr : &e));
        }
    }
    // phase 2
    {
        RmsNorm r(1);
        r.prepare(&ws, &e);
        NULLCASE("RmsNormGrad phase2 null executor", aclnnRmsNormGrad(nullptr, 0, nullptr, gStream));
        NULLCASE("GroupNormBackward phase2 null executor", aclnnGroupNormBackward(nullptr, 0, nullptr, nullptr));
        NULLCASE("ConvolutionBackward phase2 null executor", aclnnConvolutionBackward(nullptr, 0, nullptr, nullptr));
        NULLCASE("GridSampler2DBackward phase2 null executor",
                 aclnnGridSampler2DBackward(nullptr, 0, nullptr, nullptr));
        NULLCASE("RmsNormGrad phase2 null workspace, size claimed", aclnnRmsNormGrad(nullptr, ws + 64, e, gStream));
        int dummy = 0;
        NULLCASE("RmsNormGrad phase2 executor = stack pointer",
                 aclnnRmsNormGrad(nullptr, 0, reinterpret_cast<aclOpExecutor*>(&dummy), gStream));
        NULLCASE("RmsNormGrad phase2 stream = stack pointer",
                 aclnnRmsNormGrad(nullptr, 0, e, reinterpret_cast<aclrtStream>(&dummy)));
        NULLCASE("RmsNormGrad phase2 null stream (default)", aclnnRmsNormGrad(nullptr, ws, e, nullptr));
    }
    // objects & runtime
    int64_t dims[2] = {2, 2};
    aclTensor* t = aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
    NULLCASE("aclCreateTensor(null dims) returned non-null?", t ? 0 : 1);
    t = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
    NULLCASE("aclCreateTensor(null data) returned non-null?", t ? 0 : 1);
    int garbage[64] = {0};
    t = aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, garbage);
    NULLCASE("aclCreateTensor(host memory, not aclrtMalloc) returned non-null?", t ? 0 : 1);
    NULLCASE("aclCreateIntArray(null, 3) returned non-null?", aclCreateIntArray(nullptr, 3) ? 0 : 1);
    NULLCASE("aclCreateBoolArray(null, 3) returned non-null?", aclCreateBoolArray(nullptr, 3) ? 0 : 1);
    NULLCASE("aclCreateScalar(null)", aclCreateScalar(nullptr, ACL_FLOAT) ? 0 : 1);
    NULLCASE("aclDestroyTensor(null)", aclDestroyTensor(nullptr));
    NULLCASE("aclDestroyTensor(stack garbage)", aclDestroyTensor(reinterpret_cast<aclTensor*>(garbage)));
    NULLCASE("aclDestroyAclOpExecutor(null)", aclDestroyAclOpExecutor(nullptr));
    NULLCASE("aclSetAclOpExecutorRepeatable(null)", aclSetAclOpExecutorRepeatable(nullptr));
    NULLCASE("aclGetViewShape(null,null,null)", aclGetViewShape(nullptr, nullptr, nullptr));
    if (t) {
        NULLCASE("aclGetViewShape(t,null,null)", aclGetViewShape(t, nullptr, nullptr));
        NULLCASE("aclGetViewStrides(t,null,null)", aclGetViewStrides(t, nullptr, nullptr));
        NULLCASE("aclGetStorageShape(t,null,null)", aclGetStorageShape(t, nullptr, nullptr));
        NULLCASE("aclGetViewOffset(t,null)", aclGetViewOffset(t, nullptr));
        NULLCASE("aclGetDataType(t,null)", aclGetDataType(t, nullptr));
        NULLCASE("aclGetFormat(t,null)", aclGetFormat(t, nullptr));
    }
    NULLCASE("aclGetIntArraySize(null,null)", aclGetIntArraySize(nullptr, nullptr));
    NULLCASE("aclrtMalloc(null)", aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    void* p = nullptr;
    NULLCASE("aclrtMalloc(size 0)", aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    NULLCASE("aclrtMalloc(SIZE_MAX)", aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST));
    NULLCASE("aclrtMalloc(2^62)", aclrtMalloc(&p, size_t(1) << 62, ACL_MEM_MALLOC_HUGE_FIRST));
    NULLCASE("aclrtFree(null)", aclrtFree(nullptr));
    NULLCASE("aclrtFree(stack)", aclrtFree(garbage));
    NULLCASE("aclrtMemcpy(null dst)", aclrtMemcpy(nullptr, 4, garbage, 4, ACL_MEMCPY_HOST_TO_HOST));
    NULLCASE("aclrtMemcpy(null src)", aclrtMemcpy(garbage, 4, nullptr, 4, ACL_MEMCPY_HOST_TO_HOST));
    NULLCASE("aclrtMemset(null)", aclrtMemset(nullptr, 4, 0, 4));
    NULLCASE("aclrtCreateStream(null)", aclrtCreateStream(nullptr));
    NULLCASE("aclrtDestroyStream(null)", aclrtDestroyStream(nullptr));
    NULLCASE("aclrtGetDevice(null)", aclrtGetDevice(nullptr));
    NULLCASE("aclrtSynchronizeStream(stack)", aclrtSynchronizeStream(reinterpret_cast<aclrtStream>(garbage)));
    NULLCASE("aclInit(null) again", aclInit(nullptr));
    std::printf("RESULT nulls total=%d returned_success=%d\n", total, accepted);
    return 0;
}

// Size arguments that make pointer + size wrap around the address space.
static int testWrap(const char* which) {
    void* dev = nullptr;
    aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<unsigned char> host(64, 1);
    const size_t huge = SIZE_MAX - 8;
    int rc = -1;
    if (!std::strcmp(which, "memcpy_h2d"))
        rc = aclrtMemcpy(dev, huge, host.data(), huge, ACL_MEMCPY_HOST_TO_DEVICE);
    else if (!std::strcmp(which, "memcpy_d2h"))
        rc = aclrtMemcpy(host.data(), huge, dev, huge, ACL_MEMCPY_DEVICE_TO_HOST);
    else if (!std::strcmp(which, "memset"))
        rc = aclrtMemset(dev, huge, 0, huge);
    else if (!std::strcmp(which, "memcpy_2^63"))
        rc = aclrtMemcpy(dev, size_t(1) << 63, host.data(), size_t(1) << 63, ACL_MEMCPY_HOST_TO_DEVICE);
    std::printf("RESULT wrap %s rc=%d %s\n", which, rc, rc ? aclGetRecentErrMsg() : "");
    return 0;
}

// Workspace smaller than what workspaceSize claims.
static int testLyingWorkspace() {
    auto c = std::make_unique<GroupNorm>(1);
    const Phase1 ph = c->phase1();
    void* w = nullptr;
    aclrtMalloc(&w, 8, ACL_MEM_MALLOC_HUGE_FIRST);
    std::printf("RESULT lying_workspace needs %llu bytes, given an 8-byte aclrtMalloc block\n",
                (unsigned long long)ph.ws);
    std::fflush(stdout);
    say("lying_workspace", "phase2", c->run(w, ph.ws, ph.e, gStream));
    return 0;
}

// Runs ops one after another, printing "DONE i" after each returns; with crashAfter >= 0 it
// dereferences null after that many ops (a real SIGSEGV, not raise()).
static int testLoop(int n, int crashAfter) {
    for (int i = 0; i < n; i++) {
        if (i == crashAfter) {
            volatile int* p = nullptr;
            *p = 1;
        }
        auto c = makeOp(i, i);
        int rc = c->full();
        c->destroy();
        if (rc)
            std::printf("FAIL %d rc=%d\n", i, rc);
        else
            std::printf("DONE %d\n", i);
        std::fflush(stdout);
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: capi_misuse TEST\n");
        return 2;
    }
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtCreateStream(&gStream);
    std::string t = argv[1];
    int rc = 0;
    if (t == "concurrent")
        rc = testConcurrent(argc > 2 ? std::atoi(argv[2]) : 8, argc > 3 ? std::atoi(argv[3]) : 50);
    else if (t == "destroy_tensors")
        rc = testDestroyTensorsThenRun();
    else if (t == "free_memory")
        rc = testFreeMemoryThenRun(argc > 2 ? std::atoi(argv[2]) : 0, argc > 3 && std::atoi(argv[3]));
    else if (t == "spent_executor")
        rc = testSpentExecutor();
    else if (t == "repeatable_after_free")
        rc = testRepeatableAfterFree();
    else if (t == "same_executor")
        rc = testSameExecutorTwoThreads(argc > 2 && std::atoi(argv[2]), argc > 3 ? std::atoi(argv[3]) : 50);
    else if (t == "destroy_while_running")
        rc = testDestroyWhileRunning(argc > 2 ? std::atoi(argv[2]) : 10);
    else if (t == "finalize_while_running")
        return testFinalizeWhileRunning();
    else if (t == "huge_shapes")
        rc = testHugeShapes(argc > 2 ? std::atoi(argv[2]) : -1);
    else if (t == "overlap")
        rc = testOverlap();
    else if (t == "nulls")
        rc = testNulls();
    else if (t == "wrap")
        rc = testWrap(argv[2]);
    else if (t == "lying_workspace")
        rc = testLyingWorkspace();
    else if (t == "loop")
        rc = testLoop(std::atoi(argv[2]), argc > 3 ? std::atoi(argv[3]) : -1);
    else {
        std::fprintf(stderr, "unknown test\n");
        return 2;
    }
    aclrtDestroyStream(gStream);
    aclFinalize();
    return rc;
}
