#include "opscope/file_text.h"

#include <fstream>

namespace opscope {

std::optional<std::string> readFileText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return std::nullopt;
    const std::streamoff size = in.tellg();
    if (size < 0) return std::nullopt;
    std::string text(static_cast<std::size_t>(size), '\0');  // the file's real size, not a declared one
    in.seekg(0);
    if (!in.read(text.data(), size)) return std::nullopt;
    return text;
}

}  // namespace opscope
