// The members of a JSON object found by scanning its structure (strings, escapes, nesting)
// without building any value. An msprobe dump.json of thousands of calls is outlined in one
// fast pass; each call's entries are then parsed on their own, by the thread that replays the
// call, and the whole document is never held as values (private to import/).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::import::detail {

struct JsonSpan {
    std::size_t begin = 0, end = 0;  // [begin, end) of the text
};

struct JsonMember {
    std::string name;  // decoded
    JsonSpan value;
};

// The members of the object at `object` in `text`, in the text's order. Only the structure is
// checked; a value's own content is checked when it is parsed. Throws FormatError ("... is not
// valid JSON (<what> at byte N)"), prefixed with `source`, on a structural error.
std::vector<JsonMember> outlineObject(std::string_view text, JsonSpan object, const std::string& source);

// The span of the whole document's single top-level value (whitespace around it allowed).
JsonSpan documentSpan(std::string_view text, const std::string& source);

}  // namespace opscope::import::detail
