// libascendcl: the AscendCL runtime over host memory. Work launched on a stream runs
// synchronously at launch, so aclrtSynchronizeStream only validates the stream.
#include <atomic>
#include <cstring>
#include <mutex>

#include "acl/acl.h"
#include "opscope/checked_math.h"
#include "opscope/device_memory.h"
#include "opscope/error.h"
#include "opscope/objects.h"
#include "opscope/raw_enum.h"
#include "opscope/trace.h"

using namespace opscope;

namespace {

constexpr int32_t kDeviceCount = 8;  // device ids 0..7 are accepted, all backed by the host
thread_local int32_t tCurrentDevice = -1;

struct Stream {
    int32_t device;
};

void checkDeviceId(int32_t id) {
    if (id < 0 || id >= kDeviceCount)
        fail(status::kAclInvalidDevice, Msg() << "deviceId " << id << " is out of range [0, " << kDeviceCount << ")");
}

const char* memcpyKindName(int32_t k) {
    switch (k) {
        case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
        case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
        case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
        case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    }
    return "?";
}

// A host-side range can only be checked for wrapping around the address space.
void checkHostRange(const void* p, size_t bytes, const char* side) {
    if (!rangeFitsAddressSpace(p, bytes))
        fail(status::kAclInvalidParam,
             Msg() << side << " range of " << bytes << " bytes at " << p << " wraps around the address space");
}

// A device-side range must lie inside one allocation: catches overruns the NPU would fault on.
void checkDeviceRange(const void* p, size_t bytes, const char* side, int32_t kind) {
    if (device::containsRange(p, bytes)) return;
    const device::Region r = device::find(p);
    if (!r.base)
        fail(status::kAclInvalidParam, Msg() << side << " " << p << " is not device memory from aclrtMalloc, but "
                                             << memcpyKindName(kind) << " needs it to be");
    fail(status::kAclInvalidParam, Msg() << side << " range of " << bytes << " bytes at offset "
                                         << (static_cast<const char*>(p) - static_cast<const char*>(r.base))
                                         << " overruns its allocation of " << r.size << " bytes");
}

}  // namespace

extern "C" {

const char* aclGetRecentErrMsg(void) { return recentErrorMessage(); }

aclError aclInit(const char* /*configPath*/) {
    return guardCApi("aclInit", [&] {
        startTraceFromEnvironment();  // OPSCOPE_TRACE starts with the program's aclInit
        if (!device::markInitialized())
            fail(status::kAclRepeatInitialize, "aclInit was already called (call aclFinalize first)");
    });
}

aclError aclFinalize(void) {
    flushTraces();  // everything traced so far is on disk when the program finalizes
    return guardCApi("aclFinalize", [&] {
        if (!device::markFinalized()) fail(status::kAclUninitialized, "aclFinalize without a successful aclInit");
    });
}

aclError aclrtSetDevice(int32_t deviceId) {
    return guardCApi("aclrtSetDevice", [&] {
        device::requireRuntime(status::kAclUninitialized);
        checkDeviceId(deviceId);
        tCurrentDevice = deviceId;
    });
}

aclError aclrtResetDevice(int32_t deviceId) {
    return guardCApi("aclrtResetDevice", [&] {
        checkDeviceId(deviceId);
        if (tCurrentDevice == deviceId) tCurrentDevice = -1;
    });
}

aclError aclrtGetDevice(int32_t* deviceId) {
    return guardCApi("aclrtGetDevice", [&] {
        if (!deviceId) fail(status::kAclInvalidParam, "deviceId is null");
        if (tCurrentDevice < 0) fail(status::kAclInvalidDevice, "no device is set on this thread (aclrtSetDevice)");
        *deviceId = tCurrentDevice;
    });
}

aclError aclrtCreateStream(aclrtStream* stream) {
    return guardCApi("aclrtCreateStream", [&] {
        device::requireRuntime(status::kAclUninitialized);
        if (!stream) fail(status::kAclInvalidParam, "stream is null");
        auto* s = new Stream{tCurrentDevice};
        registerHandle(HandleKind::Stream, s);
        *stream = s;
    });
}

aclError aclrtDestroyStream(aclrtStream stream) {
    return guardCApi("aclrtDestroyStream", [&] {
        if (!stream) fail(status::kAclInvalidParam, "stream is null");
        if (!releaseHandle(HandleKind::Stream, stream))
            fail(status::kAclInvalidParam, "stream is not a live stream (already destroyed?)");
        delete static_cast<Stream*>(stream);
    });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    return guardCApi("aclrtSynchronizeStream", [&] {
        if (stream && !isLiveHandle(HandleKind::Stream, stream))
            fail(status::kAclInvalidParam, "stream is not a live stream (destroyed, or not from aclrtCreateStream)");
    });
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return guardCApi("aclrtMalloc", [&] {
        device::requireRuntime(status::kAclUninitialized);
        if (!devPtr) fail(status::kAclInvalidParam, "devPtr is null");
        const int32_t p = rawEnum(policy);
        if (p < ACL_MEM_MALLOC_HUGE_FIRST || p > ACL_MEM_MALLOC_NORMAL_ONLY)
            fail(status::kAclInvalidParam, Msg() << "policy " << p << " is not an aclrtMemMallocPolicy");
        *devPtr = device::allocate(size);
    });
}

aclError aclrtFree(void* devPtr) {
    return guardCApi("aclrtFree", [&] { device::release(devPtr); });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
    return guardCApi("aclrtMallocHost", [&] {
        device::requireRuntime(status::kAclUninitialized);
        if (!hostPtr) fail(status::kAclInvalidParam, "hostPtr is null");
        *hostPtr = device::allocate(size);  // pinned host memory: tracked the same way
    });
}

aclError aclrtFreeHost(void* hostPtr) {
    return guardCApi("aclrtFreeHost", [&] { device::release(hostPtr); });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
    return guardCApi("aclrtMemset", [&] {
        device::requireRuntime(status::kAclUninitialized);
        if (!devPtr) fail(status::kAclInvalidParam, "devPtr is null");
        if (count > maxCount)
            fail(status::kAclInvalidParam, Msg() << "count " << count << " exceeds maxCount " << maxCount);
        checkDeviceRange(devPtr, count, "devPtr", ACL_MEMCPY_DEVICE_TO_DEVICE);
        std::memset(devPtr, value, count);
    });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
    return guardCApi("aclrtMemcpy", [&] {
        device::requireRuntime(status::kAclUninitialized);
        if (!dst) fail(status::kAclInvalidParam, "dst is null");
        if (!src) fail(status::kAclInvalidParam, "src is null");
        if (count > destMax)
            fail(status::kAclInvalidParam, Msg() << "count " << count << " exceeds destMax " << destMax);
        const int32_t k = rawEnum(kind);
        switch (k) {
            case ACL_MEMCPY_HOST_TO_HOST:
                checkHostRange(dst, count, "dst");
                checkHostRange(src, count, "src");
                break;
            case ACL_MEMCPY_HOST_TO_DEVICE:
                checkDeviceRange(dst, count, "dst", k);
                checkHostRange(src, count, "src");
                break;
            case ACL_MEMCPY_DEVICE_TO_HOST:
                checkDeviceRange(src, count, "src", k);
                checkHostRange(dst, count, "dst");
                break;
            case ACL_MEMCPY_DEVICE_TO_DEVICE:
                checkDeviceRange(dst, count, "dst", k);
                checkDeviceRange(src, count, "src", k);
                break;
            default: fail(status::kAclInvalidParam, Msg() << "kind " << k << " is not an aclrtMemcpyKind");
        }
        if (count) std::memmove(dst, src, count);
    });
}

}  // extern "C"
