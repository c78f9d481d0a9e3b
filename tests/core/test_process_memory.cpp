#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "sanitizers.h"
#include "opscope/process_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace opscope {
namespace {

#if defined(__GLIBC__)
constexpr bool kGlibcAllocator = !test::kSanitizedAllocator;  // the sanitizers bring their own
#else
constexpr bool kGlibcAllocator = false;
#endif

// What a compare of two checkpoints does: tensors of a few MiB read, compared and freed, one key
// after another, with small allocations in between that pin the heap's top.
TEST(ProcessMemory, FreedTensorsOfSomeMiBLeaveTheProcess) {
    if (!kGlibcAllocator) GTEST_SKIP() << "glibc's allocator only";
#if defined(__GLIBC__)
    returnLargeBlocksToTheSystem();
    std::vector<void*> pins;
    for (int key = 0; key < 20; ++key) {
        std::vector<void*> tensors;
        for (std::size_t mib : {24, 16, 8, 12}) {
            tensors.push_back(std::malloc(mib << 20));
            ASSERT_NE(tensors.back(), nullptr);
            std::memset(tensors.back(), key, mib << 20);
        }
        for (int i = 0; i < 8; ++i) {  // 512 KiB, 64-byte aligned, as HostTensor allocates a layer's weight
            tensors.push_back(std::aligned_alloc(64, std::size_t{512} << 10));
            ASSERT_NE(tensors.back(), nullptr);
            std::memset(tensors.back(), key, std::size_t{512} << 10);
        }
        pins.push_back(std::malloc(1000));
        for (void* t : tensors) std::free(t);
    }
    const struct mallinfo2 m = mallinfo2();
    // Without the call the 16, 8 and 12 MiB blocks come from the heap after the first 24 MiB one
    // is freed, and the heap stays at 60 MiB or more.
    EXPECT_LT(m.arena, std::size_t{4} << 20) << "bytes the heap holds from the system";
    EXPECT_EQ(m.hblkhd, 0u) << "bytes still mapped after every large block was freed";
    for (void* p : pins) std::free(p);
#endif
}

}  // namespace
}  // namespace opscope
