// The emulated device heap: host memory whose every allocation is registered, so frees,
// copies and tensors can be checked (double free, unknown pointer, overflow) instead of crashing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opscope::device {

constexpr std::size_t kAlignment = 64;  // the device guarantees 32; we give more

// Throws StatusError: kAclInvalidParam for size 0, kAclBadAlloc when memory is exhausted.
void* allocate(std::size_t bytes);
// Throws StatusError(kAclInvalidParam) for a null, unknown or already freed pointer.
void release(void* p);

struct Region { const void* base = nullptr; std::size_t size = 0; };
// The allocation containing p (base may differ from p), or a Region with base == nullptr.
Region find(const void* p);
// True when [p, p + bytes) lies inside one live allocation.
bool containsRange(const void* p, std::size_t bytes);

}  // namespace opscope::device
