// Runtime dtype -> compile-time storage type, in one place. Usage:
//   dispatchAll(t, [&](auto tag) { using T = typename decltype(tag)::type; ... });
#pragma once

#include <cstdint>
#include <string>

#include "opscope/dtype.h"
#include "opscope/error.h"
#include "opscope/float16.h"

namespace opscope {

template <class T> struct TypeTag { using type = T; };

template <class T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<float>() { return DType::Float32; }
template <> constexpr DType dtypeOf<double>() { return DType::Float64; }
template <> constexpr DType dtypeOf<half>() { return DType::Float16; }
template <> constexpr DType dtypeOf<bfloat16>() { return DType::BFloat16; }

// Float32, Float16, BFloat16, Float64.
template <class Fn>
decltype(auto) dispatchFloating(DType t, Fn&& fn) {
    switch (t) {
        case DType::Float32: return fn(TypeTag<float>{});
        case DType::Float16: return fn(TypeTag<half>{});
        case DType::BFloat16: return fn(TypeTag<bfloat16>{});
        case DType::Float64: return fn(TypeTag<double>{});
        default: break;
    }
    fail(status::kParamInvalid, std::string("dtype ") + dtypeName(t) + " is not a floating type");
}

// Every dtype a tensor can hold (floating, integer, bool).
template <class Fn>
decltype(auto) dispatchAll(DType t, Fn&& fn) {
    switch (t) {
        case DType::Float32: return fn(TypeTag<float>{});
        case DType::Float16: return fn(TypeTag<half>{});
        case DType::BFloat16: return fn(TypeTag<bfloat16>{});
        case DType::Float64: return fn(TypeTag<double>{});
        case DType::Int8: return fn(TypeTag<int8_t>{});
        case DType::Int16: return fn(TypeTag<int16_t>{});
        case DType::Int32: return fn(TypeTag<int32_t>{});
        case DType::Int64: return fn(TypeTag<int64_t>{});
        case DType::UInt8: return fn(TypeTag<uint8_t>{});
        case DType::UInt16: return fn(TypeTag<uint16_t>{});
        case DType::UInt32: return fn(TypeTag<uint32_t>{});
        case DType::UInt64: return fn(TypeTag<uint64_t>{});
        case DType::Bool: return fn(TypeTag<bool>{});
        default: break;
    }
    fail(status::kParamInvalid, std::string("dtype ") + dtypeName(t) + " has no numeric storage");
}

// Conversions used by every copy: via float for the 16-bit types (round to nearest even).
template <class To, class From>
inline To convertValue(From v) {
    if constexpr (std::is_same_v<To, From>) {
        return v;
    } else if constexpr (std::is_same_v<To, half> || std::is_same_v<To, bfloat16>) {
        return To(static_cast<float>(v));
    } else if constexpr (std::is_same_v<From, half> || std::is_same_v<From, bfloat16>) {
        return static_cast<To>(static_cast<float>(v));
    } else {
        return static_cast<To>(v);
    }
}

}  // namespace opscope
