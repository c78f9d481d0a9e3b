// How a program of OpScope's hands its large buffers back.
#pragma once

namespace opscope {

// Every block of 128 KiB or more (glibc's starting threshold) is mapped on its own and unmapped
// when freed. glibc otherwise raises its mmap threshold (up to 32 MiB) each time such a block is
// freed; after that, tensors come from the heap, and a heap fragmented by one tensor after
// another (64-byte aligned, with small allocations kept between them) keeps them. Measured:
//   - a key-by-key compare of two 640 MB checkpoints (16 MiB tensors): 766 MB resident, now 61;
//   - of two HDF5 groups of 3,000 512 KiB datasets: 603 MB, now 49 (a 4 MiB threshold left it
//     at 603);
//   - import of a 1.1 GB msprobe dump: 283 MB, now 69, and up to 8% slower (more page faults);
//     `run` of it the same speed.
// Call it first in main(); it does nothing where the C library is not glibc.
void returnLargeBlocksToTheSystem();

}  // namespace opscope
