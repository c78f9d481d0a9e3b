// Size arithmetic that reports overflow instead of wrapping: every element count, extent,
// byte size and offset computed from caller input goes through these.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opscope {

// False (and *out unspecified) when the exact result does not fit in T.
template <class T>
bool checkedMul(T a, T b, T* out) {
    return !__builtin_mul_overflow(a, b, out);
}
template <class T>
bool checkedAdd(T a, T b, T* out) {
    return !__builtin_add_overflow(a, b, out);
}

// True when [p, p + bytes) does not wrap around the address space.
inline bool rangeFitsAddressSpace(const void* p, std::size_t bytes) {
    std::uintptr_t end;
    return checkedAdd(reinterpret_cast<std::uintptr_t>(p), static_cast<std::uintptr_t>(bytes), &end);
}

}  // namespace opscope
