// printf-style formatting into a std::string: one place for the snprintf-into-a-buffer pattern.
#pragma once

#include <string>

namespace opscope {

// The text printf would write for `format` and the arguments, whatever its length.
std::string printfText(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace opscope
