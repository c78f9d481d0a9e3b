// The definitions behind the opaque aclnn handles, and the registries that let every
// entry point tell a live handle from a destroyed or foreign pointer without touching it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"
#include "opscope/executor.h"
#include "opscope/tensor_view.h"

struct aclTensor {
    opscope::TensorView view;
    std::vector<int64_t> storageDims;
};
struct aclIntArray { std::vector<int64_t> values; };
struct aclFloatArray { std::vector<float> values; };
struct aclBoolArray { std::vector<bool> values; };
struct aclScalar {
    opscope::DType dtype;
    double value;  // the scalar converted to double, for messages and math
};
struct aclOpExecutor final : opscope::Executor {
    using Executor::Executor;
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
// Throws kRuntimeError for null, unknown, destroyed or spent executors.
aclOpExecutor* requireRunnableExecutor(aclOpExecutor* e);
// Called after a completed run: a non-repeatable executor is spent and freed.
void retireIfSpent(aclOpExecutor* e);
void destroyExecutor(aclOpExecutor* e);  // throws kParamInvalid for an unknown pointer

// Streams: the emulation runs work synchronously at launch; a stream records validity only.
// Null is the default stream and always valid.
void requireLiveStream(aclrtStream s, const char* argName);

}  // namespace opscope
