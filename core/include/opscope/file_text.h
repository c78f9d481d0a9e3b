// A whole file read into memory in one call (JSON documents are parsed from memory: nlohmann
// reads a stream a character at a time, several times slower).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace opscope {

// The file's bytes; nullopt when it cannot be opened or read (the caller words the error).
std::optional<std::string> readFileText(const std::filesystem::path& path);

}  // namespace opscope
