// C callers may pass any int where an enum is declared; reading such a value as the C++ enum
// is undefined behaviour, so C entry points read the bits and compare integers.
#pragma once

#include <cstdint>
#include <cstring>

namespace opscope {

template <class Enum>
int32_t rawEnum(const Enum& e) {  // by reference: no enum-typed load
    static_assert(sizeof(Enum) == sizeof(int32_t), "C API enums are int-sized");
    int32_t v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

}  // namespace opscope
