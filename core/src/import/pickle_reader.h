// A strict reader of the pickle subset torch.save writes (private to import/). It builds
// plain values and leaves the meaning of calls (REDUCE of a global) to a callback, so nothing
// in a file can make it run code or allocate beyond the bytes it holds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace opscope::import::detail {

struct PyValue;
using PyRef = std::shared_ptr<PyValue>;

struct PyValue {
    enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Global, Object };
    Kind kind = Kind::None;
    bool b = false;
    int64_t i = 0;
    double f = 0;
    std::string s;                 // String, Bytes; Global: "module.name"
    std::vector<PyRef> items;      // Tuple, List; Dict: key, value, key, value, ...
    std::shared_ptr<void> object;  // Object: what a callback built (a tensor, a storage)
    std::string objectType;        // Object: "tensor", "storage", ...
};

PyRef makeValue(PyValue::Kind kind);

struct PickleHooks {
    // persistent_id(pid) -> value (torch: the storage tuple).
    std::function<PyRef(const PyRef& pid)> persistentLoad;
    // callable(args) for a global callable; throw FormatError for one that is not allowed.
    std::function<PyRef(const std::string& global, const PyRef& args)> call;
};

// The bytes a pickle is read from, from `pos`. `more`, when set, appends at least `n` further
// bytes of the file to `bytes` (fewer at its end; false when none are left): a pickle at the head
// of a large file is read as far as it goes, not with the file.
struct PickleInput {
    std::string bytes;
    std::size_t pos = 0;
    std::function<bool(std::string& bytes, std::size_t n)> more;
};

// The lists and dicts a pickle filled, whose items it clears when it goes. A pickle may hold
// itself (a dict with a reference to itself: cycle.pt), and shared ownership alone would never
// free such a graph. Keep it as long as the values it was given are read.
class PickleArena {
public:
    PickleArena() = default;
    PickleArena(const PickleArena&) = delete;
    PickleArena& operator=(const PickleArena&) = delete;
    ~PickleArena();
    void adopt(std::vector<PyRef> filled);

private:
    std::vector<PyRef> filled_;
};

// Reads one pickle from `in` and leaves `in.pos` just after its STOP, where the next one starts.
// Throws FormatError naming `what` for any opcode outside the subset or a malformed stream.
PyRef loadPickle(PickleInput& in, const std::string& what, const PickleHooks& hooks, PickleArena& arena);
// A pickle that is all of `bytes`.
PyRef loadPickle(std::string bytes, const std::string& what, const PickleHooks& hooks, PickleArena& arena);

}  // namespace opscope::import::detail
