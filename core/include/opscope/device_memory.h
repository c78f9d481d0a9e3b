// The emulated device heap: host memory whose every allocation is registered, so frees,
// copies and tensors can be checked (double free, unknown pointer, overflow) instead of crashing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opscope::device {

constexpr std::size_t kAlignment = 64;  // the device guarantees 32; we give more

// aclInit / aclFinalize. Before the first aclInit everything works (OpScope's own tools never
// call it); from aclFinalize to the next aclInit the device is gone: allocations, copies and
// launches fail (requireRuntime), while frees and destroys still release what they hold.
bool markInitialized();  // false when already initialized
bool markFinalized();    // false when not initialized
// Throws StatusError(code) "the runtime was finalized (aclFinalize) ..." after aclFinalize.
void requireRuntime(int32_t code);

// Throws StatusError: kAclInvalidParam for size 0, kAclBadAlloc when memory is exhausted.
void* allocate(std::size_t bytes);
// Throws StatusError(kAclInvalidParam) for a null, unknown or already freed pointer.
void release(void* p);

// One live allocation. `serial` is unique for the process's lifetime: a block freed and another
// allocated at the same address have different serials, so a stale pointer can be told apart.
struct Region {
    const void* base = nullptr;
    std::size_t size = 0;
    uint64_t serial = 0;
    // Bytes from p to the end of this block (0 when p is outside it).
    std::size_t bytesFrom(const void* p) const;
};
// The allocation containing p (base may differ from p), or a Region with base == nullptr.
Region find(const void* p);
// True when [p, p + bytes) lies inside one live allocation (never wraps, whatever bytes is).
bool containsRange(const void* p, std::size_t bytes);

}  // namespace opscope::device
