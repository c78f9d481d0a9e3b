#include "opscope/json_writer.h"

#include <cmath>
#include <cstdio>

namespace opscope {

std::string JsonWriter::quote(const std::string& s) {
    std::string out = "\"";
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);  // bytes of UTF-8 sequences are not control characters
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    return out + "\"";
}

void JsonWriter::newline() {
    if (layout_ == Layout::Indented) os_ << '\n' << std::string(2 * first_.size(), ' ');
}

void JsonWriter::separator() {
    if (afterKey_) {
        afterKey_ = false;
        return;
    }
    if (first_.empty()) return;
    if (!first_.back()) os_ << ',';
    first_.back() = false;
    newline();
}

JsonWriter& JsonWriter::beginObject() {
    separator();
    os_ << '{';
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    os_ << bracket;
    return *this;
}

JsonWriter& JsonWriter::endObject() { return close('}'); }

JsonWriter& JsonWriter::beginArray() {
    separator();
    os_ << '[';
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::endArray() { return close(']'); }

JsonWriter& JsonWriter::key(const std::string& k) {
    separator();
    os_ << quote(k) << ": ";
    afterKey_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(const std::string& v) {
    separator();
    os_ << quote(v);
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    separator();
    if (!std::isfinite(v)) {
        os_ << "null";
    } else {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        os_ << buf;
    }
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    separator();
    os_ << v;
    return *this;
}

JsonWriter& JsonWriter::value(bool v) {
    separator();
    os_ << (v ? "true" : "false");
    return *this;
}

JsonWriter& JsonWriter::null() {
    separator();
    os_ << "null";
    return *this;
}

JsonWriter& JsonWriter::value(const std::vector<int64_t>& v) {
    separator();
    os_ << '[';
    for (std::size_t i = 0; i < v.size(); ++i) os_ << (i ? ", " : "") << v[i];
    os_ << ']';
    return *this;
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& v) {
    separator();
    os_ << '[';
    for (std::size_t i = 0; i < v.size(); ++i) os_ << (i ? ", " : "") << quote(v[i]);
    os_ << ']';
    return *this;
}

void JsonWriter::finish() { os_ << '\n'; }

}  // namespace opscope
