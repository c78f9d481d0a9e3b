#include "json_outline.h"

#include <nlohmann/json.hpp>

#include "opscope/import/format_error.h"

namespace opscope::import::detail {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class Scanner {
public:
    Scanner(std::string_view text, std::size_t at, const std::string& source) : t_(text), at_(at), source_(source) {}

    std::size_t at() const { return at_; }
    void skipSpace() {
        while (at_ < t_.size() && isSpace(t_[at_])) ++at_;
    }
    char peek(const char* inside) const {
        if (at_ >= t_.size()) fail(std::string("it ends inside ") + inside);
        return t_[at_];
    }
    void expect(char c, const char* inside) {
        if (peek(inside) != c) fail(std::string("'") + c + "' expected");
        ++at_;
    }
    // Past a string starting at the quote.
    void skipString() {
        ++at_;
        while (true) {
            const char c = peek("a string");
            ++at_;
            if (c == '"') return;
            if (c == '\\') {
                peek("a string");
                ++at_;
            }
        }
    }
    // Past one value: a string, a number or literal, or a whole object or array.
    void skipValue() {
        const char first = peek("a value");
        if (first == '"') return skipString();
        if (first != '{' && first != '[') {
            const std::size_t begin = at_;
            while (at_ < t_.size() && !isSpace(t_[at_]) && t_[at_] != ',' && t_[at_] != '}' && t_[at_] != ']') ++at_;
            if (at_ == begin) fail("a value expected");
            return;
        }
        std::string open(1, first);  // the brackets still open, innermost last
        ++at_;
        while (true) {
            const char c = peek(open.back() == '{' ? "an object" : "an array");
            if (c == '"') {
                skipString();
                continue;
            }
            ++at_;
            if (c == '{' || c == '[') open += c;
            if (c == '}' || c == ']') {
                if (open.back() != (c == '}' ? '{' : '[')) fail(std::string("'") + c + "' closes nothing open");
                open.pop_back();
                if (open.empty()) return;
            }
        }
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw FormatError(source_ + " is not valid JSON (" + what + " at byte " + std::to_string(at_) + ")");
    }

private:
    std::string_view t_;
    std::size_t at_;
    const std::string& source_;
};

std::string decodeName(std::string_view quoted, const Scanner& s) {
    if (quoted.find('\\') == std::string_view::npos) return std::string(quoted.substr(1, quoted.size() - 2));
    try {
        return nlohmann::json::parse(quoted).get<std::string>();
    } catch (const nlohmann::json::exception&) {
        s.fail("a malformed member name");
    }
}

}  // namespace

std::vector<JsonMember> outlineObject(std::string_view text, JsonSpan object, const std::string& source) {
    Scanner s(text.substr(0, object.end), object.begin, source);
    std::vector<JsonMember> members;
    s.expect('{', "an object");
    s.skipSpace();
    if (s.peek("an object") == '}') return members;
    while (true) {
        s.skipSpace();
        if (s.peek("an object") != '"') s.fail("a member name expected");
        const std::size_t nameBegin = s.at();
        s.skipString();
        JsonMember m;
        m.name = decodeName(text.substr(nameBegin, s.at() - nameBegin), s);
        s.skipSpace();
        s.expect(':', "an object");
        s.skipSpace();
        m.value.begin = s.at();
        s.skipValue();
        m.value.end = s.at();
        members.push_back(std::move(m));
        s.skipSpace();
        if (s.peek("an object") == '}') return members;
        s.expect(',', "an object");
    }
}

JsonSpan documentSpan(std::string_view text, const std::string& source) {
    Scanner s(text, 0, source);
    s.skipSpace();
    JsonSpan span;
    span.begin = s.at();
    s.skipValue();
    span.end = s.at();
    s.skipSpace();
    if (s.at() != text.size()) s.fail("text after the end");
    return span;
}

}  // namespace opscope::import::detail
