#include "opscope/error.h"

namespace opscope {
namespace {
// Per thread, like CANN's aclGetRecentErrMsg: two threads never see each other's errors.
thread_local std::string tRecentMessage;
}  // namespace

void setRecentError(int32_t code, const std::string& message) {
    tRecentMessage = "[" + std::to_string(code) + "] " + message;
}

const char* recentErrorMessage() { return tRecentMessage.c_str(); }

}  // namespace opscope
