// The definitions behind the opaque aclnn handles, and the registries that let every
// entry point tell a live handle from a destroyed or foreign pointer without touching it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "opscope/device_memory.h"
#include "opscope/executor.h"
#include "opscope/tensor_view.h"

struct aclTensor {
    opscope::TensorView view;
    std::vector<int64_t> storageDims;
};
struct aclIntArray {
    std::vector<int64_t> values;
};
struct aclFloatArray {
    std::vector<float> values;
};
struct aclBoolArray {
    std::vector<bool> values;
};
struct aclScalar {
    opscope::DType dtype;
    double value;  // the scalar converted to double, for messages and math
};
struct aclOpExecutor final : opscope::Executor {
    using Executor::Executor;
    // The aclrtMalloc block under each caller tensor when phase 1 finished, by slot id
    // (base == nullptr for scratch, empty tensors and memory that is not device memory).
    std::vector<opscope::device::Region> callerBlocks;
};

namespace opscope {

// Live-handle sets, one per handle type. All functions are thread-safe.
enum class HandleKind { Tensor, IntArray, FloatArray, BoolArray, Scalar, Executor, Stream };
const char* handleKindName(HandleKind k);
void registerHandle(HandleKind k, const void* p);
// False when p was never registered or was already released.
bool releaseHandle(HandleKind k, const void* p);
bool isLiveHandle(HandleKind k, const void* p);

// Executors: owned by OpScope once created through an aclnn first phase.
aclOpExecutor* adoptExecutor(std::unique_ptr<aclOpExecutor> e);
// Throws kParamNullptr for null, kRuntimeError for unknown, destroyed or spent executors.
aclOpExecutor* requireRunnableExecutor(aclOpExecutor* e);
// Destroying an executor that another thread is running waits for that run to end; destroying
// it from inside its own run (an observer) is kParamInvalid. Throws kParamInvalid for an
// unknown pointer; a spent executor may be destroyed (it is freed later).
void destroyExecutor(aclOpExecutor* e);

// One phase-2 launch, start to end. An executor runs on one thread at a time: a second launch
// of a non-repeatable one while it runs is kRuntimeError (it runs once), of a repeatable one
// waits for the first. A completed run spends a non-repeatable executor (freed later).
class ExecutorLaunch {
public:
    // Throws like requireRunnableExecutor, and kRuntimeError as above.
    explicit ExecutorLaunch(aclOpExecutor* e);
    ~ExecutorLaunch();
    ExecutorLaunch(const ExecutorLaunch&) = delete;
    ExecutorLaunch& operator=(const ExecutorLaunch&) = delete;
    aclOpExecutor* executor() const { return e_; }
    void completed() { completed_ = true; }

private:
    aclOpExecutor* e_;
    bool completed_ = false;
};

// Streams: the emulation runs work synchronously at launch; a stream records validity only.
// Null is the default stream and always valid.
void requireLiveStream(aclrtStream s, const char* argName);

}  // namespace opscope
