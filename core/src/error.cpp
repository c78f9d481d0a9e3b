#include "opscope/error.h"

namespace opscope {
namespace {
// Per thread, like CANN's aclGetRecentErrMsg: two threads never see each other's errors.
thread_local std::string tRecentMessage;
thread_local int32_t tRecentCode = 0;
}  // namespace

void setRecentError(int32_t code, const std::string& message) {
    tRecentCode = code;
    tRecentMessage = "[" + std::to_string(code) + "] " + message;
}

void clearRecentError() {
    tRecentCode = 0;
    tRecentMessage.clear();
}

const char* recentErrorMessage() { return tRecentMessage.c_str(); }
int32_t recentErrorCode() { return tRecentCode; }

}  // namespace opscope
