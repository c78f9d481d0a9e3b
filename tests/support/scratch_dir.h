// Header-only helpers for tests that write files: a temporary folder removed afterwards, the
// message of an expected exception, and a substring expectation. (Header-only so the core
// tests, which do not link the operator test support library, can use them too.)
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace opscope::test {

class ScratchDir {
public:
    explicit ScratchDir(const std::string& prefix = "opscope") {
        std::string pattern = (std::filesystem::path(testing::TempDir()) / (prefix + "-XXXXXX")).string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::string path() const { return path_.string(); }

private:
    std::filesystem::path path_;
};

// Runs f and returns the message of the E it throws ("(no error)" when nothing is thrown);
// any other exception propagates and fails the test.
template <class E = std::exception, class F>
std::string errorOf(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace opscope::test

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)
