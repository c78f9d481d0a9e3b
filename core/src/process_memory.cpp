#include "opscope/process_memory.h"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace opscope {

void returnLargeBlocksToTheSystem() {
#if defined(__GLIBC__)
    // glibc's own starting threshold, fixed: setting it turns off glibc's raising of it (mallopt(3)).
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

}  // namespace opscope
