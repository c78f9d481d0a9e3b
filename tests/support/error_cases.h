// The expected-failure table every operator's test uses: a valid call, broken one way per
// row, must return the documented status code with a message naming what is wrong.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>

#include "aclnn/acl_meta.h"
#include "opscope/product.h"

namespace opscope::test {

// Call: a struct with the fields a row may change and `aclnnStatus run() const`.
template <class Call>
struct ErrorCase {
    const char* name;
    std::function<void(Call&)> breakIt;
    aclnnStatus code;
    const char* messagePart;
    Product product = Product::AtlasA2;
};

template <class Call>
void PrintTo(const ErrorCase<Call>& c, std::ostream* os) {
    *os << c.name;
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
    EXPECT_EQ(call.run(), c.code);
    const std::string msg = aclGetRecentErrMsg();
    EXPECT_NE(msg.find(c.messagePart), std::string::npos) << "message: " << msg;
    EXPECT_NE(msg.find(std::to_string(c.code)), std::string::npos) << "message: " << msg;
}

}  // namespace opscope::test
