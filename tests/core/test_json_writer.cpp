#include "opscope/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace opscope {
namespace {

TEST(JsonWriter, QuoteEscapesControlCharactersAndKeepsUtf8Bytes) {
    EXPECT_EQ(JsonWriter::quote("a\"b\\c\n\r\t"), "\"a\\\"b\\\\c\\n\\r\\t\"");
    EXPECT_EQ(JsonWriter::quote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
    // Bytes of a UTF-8 sequence are >= 0x80 (negative as a signed char): copied, not escaped.
    EXPECT_EQ(JsonWriter::quote("\xce\xbc"
                                "s"),
              "\"\xce\xbc"
              "s\"");
}

TEST(JsonWriter, NonFiniteNumbersAreNull) {
    std::ostringstream os;
    JsonWriter w(os);
    w.beginObject().field("nan", std::nan("")).field("inf", HUGE_VAL).field("x", 1.5).endObject();
    w.finish();
    EXPECT_NE(os.str().find("\"nan\": null"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("\"inf\": null"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("\"x\": 1.5"), std::string::npos) << os.str();
}

}  // namespace
}  // namespace opscope
