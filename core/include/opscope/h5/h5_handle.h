// RAII ownership of HDF5 identifiers and the one checked path every HDF5 C call takes.
// hid_t stays out of this header (an Id is the same int64_t), so users need no hdf5.h.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "opscope/error.h"

namespace opscope::h5 {

// What a reader of an HDF5 file throws: ContentError (the file is wrong) or IoError (HDF5 cannot
// open, read or write it), as one sentence naming the file and the object (opscope/error.h).

// hid_t of HDF5 >= 1.10 (checked with a static_assert where hdf5.h is included).
using Id = int64_t;

// Owns one identifier and closes it with the function of its kind.
class Handle {
public:
    enum class Kind : uint8_t { File, Group, Dataset, Dataspace, Datatype, Attribute, PropertyList, Object };

    Handle() = default;
    Handle(Id id, Kind kind) noexcept : id_(id), kind_(kind) {}
    ~Handle() { reset(); }
    Handle(Handle&& other) noexcept : id_(other.id_), kind_(other.kind_) { other.id_ = -1; }
    Handle& operator=(Handle&& other) noexcept;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    Id id() const { return id_; }
    bool valid() const { return id_ >= 0; }
    // Closes now and reports a failure (a file close is where buffered writes can fail).
    void close(const std::string& what);
    // Closes now, ignoring failure: for destructors and unwinding.
    void reset() noexcept;

private:
    Id id_ = -1;
    Kind kind_ = Kind::Object;
};

namespace detail {
// HDF5 keeps its "print the error stack" switch per thread: turn it off on this one.
void silenceErrorPrinting() noexcept;
// Throws IoError("<what>: <reason read from HDF5's error stack>").
[[noreturn]] void throwFromErrorStack(const std::string& what);

template <class R>
bool failed(R result) {
    if constexpr (std::is_pointer_v<R>)
        return result == nullptr;
    else if constexpr (std::is_enum_v<R>)
        return static_cast<std::underlying_type_t<R>>(result) < 0;
    else if constexpr (std::is_unsigned_v<R>)
        return result == 0;  // H5Tget_size and friends
    else
        return result < 0;  // hid_t, herr_t, htri_t, ssize_t
}
}  // namespace detail

// Runs one HDF5 C call; on failure throws FileError("<what>: <reason>"). `what` reads like
// "cannot open dataset '/a' in 'f.h5'".
template <class Fn>
auto call(const std::string& what, Fn&& fn) -> decltype(fn()) {
    detail::silenceErrorPrinting();
    auto result = fn();
    if (detail::failed(result)) detail::throwFromErrorStack(what);
    return result;
}

// For calls whose failure is an answer rather than an error: no throw, nothing printed.
template <class Fn>
auto probe(Fn&& fn) -> decltype(fn()) {
    detail::silenceErrorPrinting();
    return fn();
}

// call() for a function that returns a new identifier, which the Handle then owns.
template <class Fn>
Handle open(Handle::Kind kind, const std::string& what, Fn&& fn) {
    return Handle(call(what, std::forward<Fn>(fn)), kind);
}

}  // namespace opscope::h5
