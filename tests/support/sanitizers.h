// Whether this build runs under a sanitizer, for the tests that measure the process's memory:
// AddressSanitizer keeps freed blocks in its quarantine and both bring their own allocator, so a
// peak or a heap measured there says nothing of OpScope's.
#pragma once

namespace opscope::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedAllocator = true;
#else
inline constexpr bool kSanitizedAllocator = false;
#endif

}  // namespace opscope::test
