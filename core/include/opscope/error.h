// Errors inside OpScope are exceptions of one family (opscope::Error); at the extern "C"
// boundary they become a status code plus a message for aclGetRecentErrMsg().
#pragma once

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace opscope {

namespace status {
constexpr int32_t kSuccess = 0;
constexpr int32_t kParamNullptr = 161001;
constexpr int32_t kParamInvalid = 161002;
constexpr int32_t kRuntimeError = 361001;
constexpr int32_t kInner = 561000;
constexpr int32_t kAclInvalidParam = 100000;
constexpr int32_t kAclUninitialized = 100001;
constexpr int32_t kAclRepeatInitialize = 100002;
constexpr int32_t kAclInvalidDevice = 100007;
constexpr int32_t kAclBadAlloc = 200000;
constexpr int32_t kAclInternal = 500000;
}  // namespace status

// The one exception family. Callers distinguish few kinds, so there are few classes:
//   ContentError  a file (or a case, a trace) whose content is wrong: the file is to blame
//   IoError       a file that cannot be opened, read or written (the HDF5 layer's failures)
//   StatusError   an aclnn/acl status code with its message (the operator rejected the call)
//   UsageError    an argument or option given by the caller is wrong
// ContentError and IoError are both FileError: what a reader of a file may throw.
enum class ErrorKind : uint8_t { Content, Io, Status, Usage };

class Error : public std::runtime_error {
public:
    ErrorKind kind() const { return kind_; }

protected:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

private:
    ErrorKind kind_;
};

class FileError : public Error {
protected:
    using Error::Error;
};

class ContentError : public FileError {
public:
    explicit ContentError(const std::string& message) : FileError(ErrorKind::Content, message) {}
};

class IoError : public FileError {
public:
    explicit IoError(const std::string& message) : FileError(ErrorKind::Io, message) {}
};

class StatusError : public Error {
public:
    StatusError(int32_t code, const std::string& message) : Error(ErrorKind::Status, message), code_(code) {}
    int32_t code() const { return code_; }

private:
    int32_t code_;
};

class UsageError : public Error {
public:
    explicit UsageError(const std::string& message) : Error(ErrorKind::Usage, message) {}
};

// The thread-local "recent error" that aclGetRecentErrMsg() returns.
void setRecentError(int32_t code, const std::string& message);
const char* recentErrorMessage();

// Builds a message with stream syntax: throw StatusError(code, Msg() << "x is " << x);
class Msg {
public:
    template <class T>
    Msg& operator<<(const T& v) {
        os_ << v;
        return *this;
    }
    operator std::string() const { return os_.str(); }
    std::string str() const { return os_.str(); }

private:
    std::ostringstream os_;
};

[[noreturn]] inline void fail(int32_t code, const std::string& message) { throw StatusError(code, message); }

// Runs `body` (returning nothing) and turns any exception into a status code + recent error.
// Used at every extern "C" entry point: exceptions never cross the C boundary.
template <class Body>
int32_t guardCApi(const char* apiName, Body&& body) noexcept {
    try {
        body();
        return status::kSuccess;
    } catch (const StatusError& e) {
        setRecentError(e.code(), std::string(apiName) + ": " + e.what());
        return e.code();
    } catch (const std::bad_alloc&) {
        setRecentError(status::kAclBadAlloc, std::string(apiName) + ": out of host memory");
        return status::kAclBadAlloc;
    } catch (const std::exception& e) {
        setRecentError(status::kInner, std::string(apiName) + ": internal error: " + e.what());
        return status::kInner;
    } catch (...) {
        setRecentError(status::kInner, std::string(apiName) + ": internal error");
        return status::kInner;
    }
}

}  // namespace opscope
