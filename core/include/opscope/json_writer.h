// A streaming JSON writer for --json output and reports: objects, arrays, escaped strings,
// and non-finite numbers as null (JSON has no NaN).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace opscope {

class JsonWriter {
public:
    // Indented for people; OneLine for a stream of one document per line (JSON lines).
    enum class Layout { Indented, OneLine };
    explicit JsonWriter(std::ostream& os, Layout layout = Layout::Indented) : os_(os), layout_(layout) {}

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(const std::string& k);

    JsonWriter& value(const std::string& v);
    JsonWriter& value(const char* v) { return value(std::string(v)); }
    JsonWriter& value(double v);
    JsonWriter& value(int64_t v);
    JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
    JsonWriter& value(uint64_t v) { return value(static_cast<int64_t>(v)); }
    JsonWriter& value(bool v);
    JsonWriter& null();
    // The string, or null when it is empty (a setting nobody gave, a shard that is not one).
    JsonWriter& valueOrNull(const std::string& v) { return v.empty() ? null() : value(v); }
    JsonWriter& value(const std::vector<int64_t>& v);
    JsonWriter& value(const std::vector<std::string>& v);

    template <class T>
    JsonWriter& field(const std::string& k, const T& v) {
        key(k);
        return value(v);
    }
    // Ends the document with a newline.
    void finish();

    static std::string quote(const std::string& s);

private:
    void separator();
    JsonWriter& close(char bracket);
    void newline();
    std::ostream& os_;
    Layout layout_;
    std::vector<bool> first_;  // per open container: nothing written yet
    bool afterKey_ = false;
};

}  // namespace opscope
