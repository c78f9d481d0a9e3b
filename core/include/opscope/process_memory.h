// How a program of OpScope's hands its large buffers back.
#pragma once

namespace opscope {

// Every block of 4 MiB or more is mapped on its own and unmapped when freed. glibc otherwise
// raises its mmap threshold (up to 32 MiB) each time such a block is freed; after that, tensors
// of a few MiB come from the heap, and a heap fragmented by one tensor after another keeps them:
// a key-by-key compare of two 640 MB checkpoints (16 MiB tensors) peaked at 766 MB resident
// instead of 61 MB. Call it first in main(); it does nothing where the C library is not glibc.
void returnLargeBlocksToTheSystem();

}  // namespace opscope
