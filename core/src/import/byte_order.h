// Byte swapping for the readers of files written on big-endian machines (private to import/).
#pragma once

#include <algorithm>
#include <cstddef>

namespace opscope::import::detail {

// Reverses the bytes of each `elementSize`-byte element in place.
inline void swapBytes(void* data, std::size_t count, std::size_t elementSize) {
    if (elementSize <= 1) return;
    unsigned char* p = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < count; ++i, p += elementSize) std::reverse(p, p + elementSize);
}

}  // namespace opscope::import::detail
