// Runtime dtype -> compile-time storage type, in one place. Usage:
//   dispatchAll(t, [&](auto tag) { using T = typename decltype(tag)::type; ... });
// Kernels switch once, at their entry, over the floating types they take: dispatchKernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
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

// The storage types, as a list: dispatchKernel<Float32Family>(...).
template <class... Ts>
struct KernelTypes {};
// float32, float16, bfloat16: stored so, computed in float32.
using Float32Family = KernelTypes<float, half, bfloat16>;
// float32 or float64 compute buffers: a kernel that also runs an operator's float64 data.
using Float32OrFloat64 = KernelTypes<float, double>;
// Every type a tensor can hold, and beside it, in the same order, the DType of each.
using StorageTypes = KernelTypes<float, half, bfloat16, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                                 uint32_t, uint64_t, bool>;
inline constexpr DType kStorageDTypes[] = {
    DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int8,   DType::Int16, DType::Int32,
    DType::Int64,   DType::UInt8,   DType::UInt16,   DType::UInt32,  DType::UInt64, DType::Bool};

namespace detail {
template <class T, class... Ts>
constexpr std::size_t indexIn(KernelTypes<Ts...>) {
    constexpr bool same[] = {std::is_same_v<T, Ts>...};
    std::size_t i = 0;
    while (i < sizeof...(Ts) && !same[i]) ++i;
    return i;
}
}  // namespace detail

// The DType of a storage type; any other type does not compile.
template <class T>
constexpr DType dtypeOf() {
    constexpr std::size_t i = detail::indexIn<T>(StorageTypes{});
    static_assert(i < std::size(kStorageDTypes), "dtypeOf takes the storage types listed in StorageTypes");
    return kStorageDTypes[i];
}

namespace detail {
// A dtype outside the list: an internal error naming the kernel (the front end has rejected it
// already), or, for any tensor (kernel null), a dtype with no numeric storage.
[[noreturn]] inline void failDispatch(DType t, const char* kernel) {
    if (kernel) fail(status::kInner, std::string(kernel) + " has no " + dtypeName(t) + " variant");
    fail(status::kParamInvalid, std::string("dtype ") + dtypeName(t) + " has no numeric storage");
}
template <class Fn, class T, class... Rest>
decltype(auto) dispatchAmong(DType t, const char* kernel, Fn& fn) {
    if (t == dtypeOf<T>()) return fn(TypeTag<T>{});
    if constexpr (sizeof...(Rest) > 0) {
        return dispatchAmong<Fn, Rest...>(t, kernel, fn);
    } else {
        failDispatch(t, kernel);
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

// Every dtype a tensor can hold (floating, integer, bool); others (string, complex) fail.
template <class Fn>
decltype(auto) dispatchAll(DType t, Fn&& fn) {
    return detail::Dispatcher<StorageTypes>::run(t, nullptr, fn);
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
