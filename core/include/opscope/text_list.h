// A list in a sentence: "a, b, c". One place for what error messages that name keys, datasets or
// files all write.
#pragma once

#include <string>
#include <vector>

namespace opscope {

inline std::string joinList(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

}  // namespace opscope
