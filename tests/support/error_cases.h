// The expected-failure table every operator's test uses: a valid call, broken one way per
// row, must return the documented status code with a message naming what is wrong.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "opscope/product.h"

namespace opscope::test {

// Call: a valid call of one operator as a struct of the fields a row may change, with
//   struct Tensors;  // the arguments made from the fields, alive while the executor runs
//   Tensors tensors() const;
//   aclnnStatus getWorkspaceSize(const Tensors&, uint64_t* workspaceSize, aclOpExecutor**) const;
//     // phase 1 on them, each argument null where the Call's flag for it says
//   bool nullWs, nullExe;  // the flags for phase 1's out-pointers
template <class Call>
struct ErrorCase {
    std::string name;
    std::function<void(Call&)> breakIt;
    aclnnStatus code;
    std::string messagePart;
    Product product = Product::AtlasA2;
};

// A required pointer: the argument's name and the Call flag that passes it as null.
template <class Call>
struct NullArgument {
    const char* argument;
    bool Call::*flag;
};

// The rule every operator checks first: each required pointer passed as null fails with
// ACLNN_ERR_PARAM_NULLPTR and "<argument> is null". One row per argument, named Null<Argument>.
template <class Call>
std::vector<ErrorCase<Call>> nullPointerCases(std::initializer_list<NullArgument<Call>> arguments) {
    std::vector<ErrorCase<Call>> rows;
    for (const NullArgument<Call>& a : arguments) {
        std::string name = std::string("Null") + a.argument;
        name[4] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[4])));
        const auto flag = a.flag;
        rows.push_back(
            {name, [flag](Call& c) { c.*flag = true; }, ACLNN_ERR_PARAM_NULLPTR, std::string(a.argument) + " is null"});
    }
    return rows;
}

// A table of generated rows followed by written ones.
template <class Call>
std::vector<ErrorCase<Call>> errorTable(std::vector<ErrorCase<Call>> generated,
                                        std::initializer_list<ErrorCase<Call>> written) {
    generated.insert(generated.end(), written.begin(), written.end());
    return generated;
}

template <class Call>
void PrintTo(const ErrorCase<Call>& c, std::ostream* os) {
    *os << c.name;
}

// Phase 1 of `call` on its own tensors, with the out-pointers its nullWs and nullExe flags may
// null; frees the executor it makes and returns the status.
template <class Call>
aclnnStatus phase1Status(const Call& call) {
    const typename Call::Tensors tensors = call.tensors();
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus st =
        call.getWorkspaceSize(tensors, call.nullWs ? nullptr : &workspaceSize, call.nullExe ? nullptr : &executor);
    if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    return st;
}

// A parameterised fixture: TEST_P(Suite, ReturnsDocumentedCodeAndMessage) { expectDocumentedError(GetParam()); }
template <class Call>
class ErrorCaseTest : public ::testing::TestWithParam<ErrorCase<Call>> {
protected:
    void TearDown() override { setProduct(Product::AtlasA2); }
};

template <class Call>
void expectDocumentedError(const ErrorCase<Call>& c) {
    setProduct(c.product);
    Call call;
    c.breakIt(call);
    EXPECT_EQ(phase1Status(call), c.code);
    const std::string msg = aclGetRecentErrMsg();
    EXPECT_NE(msg.find(c.messagePart), std::string::npos) << "message: " << msg;
    EXPECT_NE(msg.find(std::to_string(c.code)), std::string::npos) << "message: " << msg;
}

// An operator's phase 2: aclnnXxx(workspace, workspaceSize, executor, stream).
using LaunchFn = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// The workspace rules of phase 2, for a planned executor that needs a workspace: a null one and
// one a byte short are runtime errors that say which; the right size runs, and again (made
// repeatable here); a destroyed executor is refused.
inline void expectWorkspaceChecked(LaunchFn launch, uint64_t workspaceSize, aclOpExecutor* executor) {
    ASSERT_GT(workspaceSize, 0u);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
    EXPECT_EQ(launch(nullptr, workspaceSize, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspace is null"), std::string::npos);
    void* buf = nullptr;
    ASSERT_EQ(aclrtMalloc(&buf, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(launch(buf, workspaceSize - 1, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspaceSize is " + std::to_string(workspaceSize - 1)),
              std::string::npos);
    EXPECT_EQ(launch(buf, workspaceSize, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(launch(buf, workspaceSize, executor, nullptr), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
    EXPECT_EQ(launch(buf, workspaceSize, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR);
    aclrtFree(buf);
}

// The same for a valid `call` (one that needs a workspace), planned on its own tensors.
template <class Call>
void expectWorkspaceChecked(const Call& call, LaunchFn launch) {
    const typename Call::Tensors tensors = call.tensors();
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(call.getWorkspaceSize(tensors, &workspaceSize, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
    expectWorkspaceChecked(launch, workspaceSize, executor);
}

}  // namespace opscope::test

// An operator's expected-failure suite: `Suite` checks every row of the table it is
// instantiated with (INSTANTIATE_TEST_SUITE_P) for its documented code and message.
#define OPSCOPE_ERROR_SUITE(Suite, Call)                          \
    class Suite : public ::opscope::test::ErrorCaseTest<Call> {}; \
    TEST_P(Suite, ReturnsDocumentedCodeAndMessage) { ::opscope::test::expectDocumentedError(GetParam()); }
