#include "opscope/objects.h"

#include <deque>
#include <mutex>
#include <unordered_set>

#include "opscope/error.h"

namespace opscope {
namespace {

constexpr int kKinds = 7;

struct Registry {
    std::mutex m;
    std::unordered_set<const void*> live[kKinds];
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
    switch (k) {
        case HandleKind::Tensor: return "aclTensor";
        case HandleKind::IntArray: return "aclIntArray";
        case HandleKind::FloatArray: return "aclFloatArray";
        case HandleKind::BoolArray: return "aclBoolArray";
        case HandleKind::Scalar: return "aclScalar";
        case HandleKind::Executor: return "aclOpExecutor";
        case HandleKind::Stream: return "aclrtStream";
    }
    return "handle";
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

aclOpExecutor* requireRunnableExecutor(aclOpExecutor* e) {
    if (!e) fail(status::kParamNullptr, "executor is null");
    Registry& r = registry();
    std::lock_guard<std::mutex> lk(r.m);
    if (r.spent.count(e))
        fail(status::kRuntimeError, "executor already ran once; call aclSetAclOpExecutorRepeatable "
                                    "before the first run to run it again");
    if (!r.live[static_cast<int>(HandleKind::Executor)].count(e))
        fail(status::kRuntimeError, "executor is not a live aclOpExecutor (destroyed, spent long ago, or never created)");
    return e;
}

void retireIfSpent(aclOpExecutor* e) {
    if (e->repeatable()) return;
    aclOpExecutor* victim = nullptr;
    {
        Registry& r = registry();
        std::lock_guard<std::mutex> lk(r.m);
        r.live[static_cast<int>(HandleKind::Executor)].erase(e);
        r.spent.insert(e);
        r.spentOrder.push_back(e);
        if (r.spentOrder.size() > kSpentKept) {
            victim = r.spentOrder.front();
            r.spentOrder.pop_front();
            r.spent.erase(victim);
        }
    }
    delete victim;
}

void destroyExecutor(aclOpExecutor* e) {
    if (!e) fail(status::kParamNullptr, "executor is null");
    Registry& r = registry();
    {
        std::lock_guard<std::mutex> lk(r.m);
        if (r.live[static_cast<int>(HandleKind::Executor)].erase(e) == 0) {
            // Destroying a spent one is allowed (samples do it); it stays queued for deletion.
            if (r.spent.count(e)) return;
            fail(status::kParamInvalid, "executor is not a live aclOpExecutor (already destroyed?)");
        }
    }
    delete e;
}

void requireLiveStream(aclrtStream s, const char* argName) {
    if (s && !isLiveHandle(HandleKind::Stream, s))
        fail(status::kRuntimeError, Msg() << argName << " is not a live stream (destroyed, or not from aclrtCreateStream)");
}

}  // namespace opscope
