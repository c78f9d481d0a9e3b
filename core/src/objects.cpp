#include "opscope/objects.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "opscope/error.h"
#include "opscope/names.h"

namespace opscope {
namespace {

constexpr int kKinds = 7;

struct Registry {
    std::mutex m;
    std::unordered_set<const void*> live[kKinds];
    // Executors inside a launch, and the thread running each; runEnded fires when one leaves.
    std::unordered_map<const void*, std::thread::id> running;
    std::condition_variable runEnded;
    // Spent executors, freed only after this many later ones: keeps their addresses from
    // being reused at once, so running one again is reported as "already ran".
    std::unordered_set<const void*> spent;
    std::deque<aclOpExecutor*> spentOrder;
};

Registry& registry() {
    static Registry* r = new Registry();
    return *r;
}

constexpr std::size_t kSpentKept = 256;

}  // namespace

const char* handleKindName(HandleKind k) {
    static constexpr Named<HandleKind> kHandleKinds[] = {
        {HandleKind::Tensor, "aclTensor"},         {HandleKind::IntArray, "aclIntArray"},
        {HandleKind::FloatArray, "aclFloatArray"}, {HandleKind::BoolArray, "aclBoolArray"},
        {HandleKind::Scalar, "aclScalar"},         {HandleKind::Executor, "aclOpExecutor"},
        {HandleKind::Stream, "aclrtStream"}};
    return nameOf(kHandleKinds, k, "handle");
}

void registerHandle(HandleKind k, const void* p) {
    std::lock_guard<std::mutex> lk(registry().m);
    registry().live[static_cast<int>(k)].insert(p);
}

bool releaseHandle(HandleKind k, const void* p) {
    std::lock_guard<std::mutex> lk(registry().m);
    return registry().live[static_cast<int>(k)].erase(p) > 0;
}

bool isLiveHandle(HandleKind k, const void* p) {
    std::lock_guard<std::mutex> lk(registry().m);
    return registry().live[static_cast<int>(k)].count(p) > 0;
}

aclOpExecutor* adoptExecutor(std::unique_ptr<aclOpExecutor> e) {
    aclOpExecutor* p = e.release();
    registerHandle(HandleKind::Executor, p);
    return p;
}

namespace {

// Call with r.m held.
void requireRunnableLocked(Registry& r, aclOpExecutor* e) {
    if (r.spent.count(e))
        fail(status::kRuntimeError,
             "executor already ran once; call aclSetAclOpExecutorRepeatable "
             "before the first run to run it again");
    if (!r.live[static_cast<int>(HandleKind::Executor)].count(e))
        fail(status::kRuntimeError,
             "executor is not a live aclOpExecutor (destroyed, spent long ago, or never created)");
}

// Call with r.m held, after a completed run: a non-repeatable executor is spent, and the
// oldest spent one is returned for deletion.
aclOpExecutor* retireLocked(Registry& r, aclOpExecutor* e) {
    r.live[static_cast<int>(HandleKind::Executor)].erase(e);
    r.spent.insert(e);
    r.spentOrder.push_back(e);
    if (r.spentOrder.size() <= kSpentKept) return nullptr;
    aclOpExecutor* victim = r.spentOrder.front();
    r.spentOrder.pop_front();
    r.spent.erase(victim);
    return victim;
}

}  // namespace

aclOpExecutor* requireRunnableExecutor(aclOpExecutor* e) {
    if (!e) fail(status::kParamNullptr, "executor is null");
    Registry& r = registry();
    std::lock_guard<std::mutex> lk(r.m);
    requireRunnableLocked(r, e);
    return e;
}

ExecutorLaunch::ExecutorLaunch(aclOpExecutor* e) : e_(e) {
    if (!e) fail(status::kParamNullptr, "executor is null");
    Registry& r = registry();
    std::unique_lock<std::mutex> lk(r.m);
    for (;;) {
        requireRunnableLocked(r, e);  // also after a wait: it may have been destroyed meanwhile
        const auto it = r.running.find(e);
        if (it == r.running.end()) break;
        if (it->second == std::this_thread::get_id())
            fail(status::kRuntimeError,
                 "executor is already running on this thread (launched again from inside its run)");
        if (!e->repeatable())
            fail(status::kRuntimeError,
                 "executor is running on another thread; an executor that is not repeatable "
                 "runs once (aclSetAclOpExecutorRepeatable)");
        r.runEnded.wait(lk);
    }
    r.running.emplace(e, std::this_thread::get_id());
}

ExecutorLaunch::~ExecutorLaunch() {
    aclOpExecutor* victim = nullptr;
    {
        Registry& r = registry();
        std::lock_guard<std::mutex> lk(r.m);
        // A destroyer waiting on this run removed it from `live` and deletes it once we leave.
        if (completed_ && !e_->repeatable() && r.live[static_cast<int>(HandleKind::Executor)].count(e_))
            victim = retireLocked(r, e_);
        r.running.erase(e_);
    }
    registry().runEnded.notify_all();
    delete victim;
}

void destroyExecutor(aclOpExecutor* e) {
    if (!e) fail(status::kParamNullptr, "executor is null");
    Registry& r = registry();
    {
        std::unique_lock<std::mutex> lk(r.m);
        const auto it = r.running.find(e);
        if (it != r.running.end() && it->second == std::this_thread::get_id())
            fail(status::kParamInvalid, "executor is running on this thread; destroy it after its launch returns");
        if (r.live[static_cast<int>(HandleKind::Executor)].erase(e) == 0) {
            // Destroying a spent one is allowed (samples do it); it stays queued for deletion.
            if (r.spent.count(e)) return;
            fail(status::kParamInvalid, "executor is not a live aclOpExecutor (already destroyed?)");
        }
        // No new launch can start now; one in progress on another thread ends first.
        r.runEnded.wait(lk, [&] { return r.running.count(e) == 0; });
    }
    delete e;
}

void requireLiveStream(aclrtStream s, const char* argName) {
    if (s && !isLiveHandle(HandleKind::Stream, s))
        fail(status::kRuntimeError,
             Msg() << argName << " is not a live stream (destroyed, or not from aclrtCreateStream)");
}

}  // namespace opscope
