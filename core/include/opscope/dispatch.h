// Runtime dtype -> compile-time storage type, in one place. Usage:
//   dispatchAll(t, [&](auto tag) { using T = typename decltype(tag)::type; ... });
// Kernels switch once, at their entry, over the floating types they take: dispatchKernel.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "opscope/dtype.h"
#include "opscope/error.h"
#include "opscope/float16.h"

namespace opscope {

template <class T>
struct TypeTag {
    using type = T;
};

// The DType of a floating storage type; any other type does not compile.
template <class T>
constexpr DType dtypeOf() {
    static_assert(
        std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
        "dtypeOf takes float, double, half or bfloat16");
    if constexpr (std::is_same_v<T, float>) return DType::Float32;
    if constexpr (std::is_same_v<T, double>) return DType::Float64;
    if constexpr (std::is_same_v<T, half>) return DType::Float16;
    return DType::BFloat16;
}

// The floating storage types a kernel takes, as a list: dispatchKernel<Float32Family>(...).
template <class... Ts>
struct KernelTypes {};
// float32, float16, bfloat16: stored so, computed in float32.
using Float32Family = KernelTypes<float, half, bfloat16>;
// float32 or float64 compute buffers: a kernel that also runs an operator's float64 data.
using Float32OrFloat64 = KernelTypes<float, double>;

namespace detail {
template <class Fn, class T, class... Rest>
decltype(auto) dispatchAmong(DType t, const char* kernel, Fn& fn) {
    if (t == dtypeOf<T>()) return fn(TypeTag<T>{});
    if constexpr (sizeof...(Rest) > 0) {
        return dispatchAmong<Fn, Rest...>(t, kernel, fn);
    } else {
        fail(status::kInner, std::string(kernel) + " has no " + dtypeName(t) + " variant");
    }
}
template <class Types>
struct Dispatcher;
template <class... Ts>
struct Dispatcher<KernelTypes<Ts...>> {
    template <class Fn>
    static decltype(auto) run(DType t, const char* kernel, Fn& fn) {
        return dispatchAmong<Fn, Ts...>(t, kernel, fn);
    }
};
}  // namespace detail

// The one switch from a kernel's runtime dtype to its storage type T, called once at the
// kernel's entry: fn(TypeTag<T>{}) for the T of `Types` whose dtype is `t`. A dtype outside
// `Types` is an internal error naming `kernel` (the front end has rejected it already).
//   dispatchKernel<Float32Family>(dtype, "RmsNormGrad", [&](auto tag) { using T = typename decltype(tag)::type; ... });
template <class Types, class Fn>
decltype(auto) dispatchKernel(DType t, const char* kernel, Fn&& fn) {
    return detail::Dispatcher<Types>::run(t, kernel, fn);
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
