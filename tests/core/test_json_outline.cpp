// The structural JSON outline that lets the msprobe importer parse dump.json call by call: it
// must find every member in the file's order with the exact span of its value, whatever the
// value holds, and refuse a damaged structure with the byte where it broke.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "json_outline.h"
#include "opscope/import/format_error.h"
#include "scratch_dir.h"

using namespace opscope::import;
using detail::JsonMember;
using detail::JsonSpan;
using opscope::test::errorOf;

namespace {

std::vector<JsonMember> outline(const std::string& text) {
    return detail::outlineObject(text, detail::documentSpan(text, "'t.json'"), "'t.json'");
}

std::string valueText(const std::string& text, const JsonMember& m) {
    return text.substr(m.value.begin, m.value.end - m.value.begin);
}

}  // namespace

TEST(JsonOutline, FindsEveryMemberInOrderWithItsValue) {
    const std::string text = R"( {"z": {"a": [1, {"b": "}]"}], "c": null},
        "a": "text with \"quotes\", braces {[ and a \\",
        "n": -1.5e3, "t": true, "list": [[], {}, [1, [2]]], "empty": {} } )";
    const std::vector<JsonMember> m = outline(text);
    ASSERT_EQ(m.size(), 6u);
    const char* names[] = {"z", "a", "n", "t", "list", "empty"};
    const nlohmann::json whole = nlohmann::json::parse(text);
    for (std::size_t i = 0; i < m.size(); ++i) {
        EXPECT_EQ(m[i].name, names[i]);
        EXPECT_EQ(nlohmann::json::parse(valueText(text, m[i])), whole[names[i]]) << names[i];
    }
    EXPECT_EQ(valueText(text, m[2]), "-1.5e3");
}

TEST(JsonOutline, OutlinesANestedObjectAndDecodesEscapedNames) {
    const std::string text = R"({"data": {"Functional.conv2d.0.forward": {"x": 1}, "caf\u00e9": 2}})";
    const std::vector<JsonMember> top = outline(text);
    ASSERT_EQ(top.size(), 1u);
    const std::vector<JsonMember> data = detail::outlineObject(text, top[0].value, "'t.json'");
    ASSERT_EQ(data.size(), 2u);
    EXPECT_EQ(data[0].name, "Functional.conv2d.0.forward");
    EXPECT_EQ(valueText(text, data[0]), R"({"x": 1})");
    EXPECT_EQ(data[1].name, "caf\xc3\xa9");
    EXPECT_TRUE(detail::outlineObject("{ }", JsonSpan{0, 3}, "'t.json'").empty());
}

TEST(JsonOutline, ADamagedStructureNamesTheFileAndTheByte) {
    struct Bad {
        const char* text;
        const char* part;
    } bad[] = {
        {R"({"data": [)", "it ends inside an array at byte 10"},
        {R"({"a": "open)", "it ends inside a string"},
        {R"({"a": [1}, "b": 2})", "'}' closes nothing open"},
        {R"({"a": 1} x)", "text after the end at byte 9"},
        {R"({"a" 1})", "':' expected at byte 5"},
        {R"({"a": 1,})", "a member name expected"},
        {R"({"a": })", "a value expected"},
    };
    for (const Bad& b : bad) {
        const std::string message = errorOf<FormatError>([&] { outline(b.text); });
        EXPECT_CONTAINS(message, "'t.json' is not valid JSON");
        EXPECT_CONTAINS(message, b.part);
    }
}
