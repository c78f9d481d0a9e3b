// Parameters as text: for listings, and exact for the trace file (which stores them so).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "opscope/error.h"
#include "opscope/executor.h"

namespace opscope {
namespace {

// The shortest %g form that reads back to the same double.
std::string realText(double v) {
    char buf[32];
    for (int precision = 6; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v || v != v) break;
    }
    return buf;
}

template <class T>
std::string itemText(const T& x) {
    if constexpr (std::is_same_v<T, bool>)
        return x ? "true" : "false";
    else if constexpr (std::is_same_v<T, int64_t>)
        return std::to_string(x);
    else if constexpr (std::is_same_v<T, double>)
        return realText(x);
    else
        return x;
}

[[noreturn]] void notA(const std::string& typeName, const std::string& text) {
    throw UsageError("'" + text + "' is not a " + typeName + " parameter value");
}

bool parseBool(const std::string& t, bool* out) {
    if (t == "true" || t == "1") return *out = true, true;
    if (t == "false" || t == "0") return *out = false, true;
    return false;
}

bool parseInt(const std::string& t, int64_t* out) {
    if (t.empty()) return false;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') return false;
    *out = v;
    return true;
}

bool parseReal(const std::string& t, double* out) {
    if (t.empty()) return false;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (*end != '\0') return false;
    *out = v;
    return true;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(' ');
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// "[a, b, c]" -> {"a", "b", "c"}; "[]" -> {}.
bool splitList(const std::string& text, std::vector<std::string>* items) {
    const std::string t = trim(text);
    if (t.size() < 2 || t.front() != '[' || t.back() != ']') return false;
    const std::string inner = trim(t.substr(1, t.size() - 2));
    if (inner.empty()) return true;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = inner.find(',', start);
        items->push_back(trim(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) return true;
        start = comma + 1;
    }
}

template <class T, class Parse>
std::vector<T> parseList(const std::string& typeName, const std::string& text, Parse parse) {
    std::vector<std::string> items;
    if (!splitList(text, &items)) notA(typeName, text);
    std::vector<T> out;
    for (const std::string& item : items) {
        T v{};
        if (!parse(item, &v)) notA(typeName, text);
        out.push_back(v);
    }
    return out;
}

}  // namespace

std::string paramToString(const ParamValue& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::string>) {
                return itemText(x);
            } else {
                std::string out = "[";
                for (std::size_t i = 0; i < x.size(); ++i) {
                    if (i) out += ", ";
                    out += itemText(static_cast<typename T::value_type>(x[i]));
                }
                return out + "]";
            }
        },
        v);
}

const char* paramTypeName(const ParamValue& v) {
    static const char* const names[] = {"bool", "int", "float", "string", "int[]", "float[]", "bool[]"};
    return names[v.index()];
}

ParamValue paramFromString(const std::string& typeName, const std::string& text) {
    if (typeName == "string") return text;
    if (typeName == "bool") {
        bool b = false;
        if (!parseBool(text, &b)) notA(typeName, text);
        return b;
    }
    if (typeName == "int") {
        int64_t i = 0;
        if (!parseInt(text, &i)) notA(typeName, text);
        return i;
    }
    if (typeName == "float") {
        double d = 0;
        if (!parseReal(text, &d)) notA(typeName, text);
        return d;
    }
    if (typeName == "int[]") return parseList<int64_t>(typeName, text, parseInt);
    if (typeName == "float[]") return parseList<double>(typeName, text, parseReal);
    if (typeName == "bool[]") {
        const std::vector<char> bits = parseList<char>(typeName, text, [](const std::string& t, char* out) {
            bool b = false;
            if (!parseBool(t, &b)) return false;
            *out = b;
            return true;
        });
        return std::vector<bool>(bits.begin(), bits.end());
    }
    throw UsageError("'" + typeName +
                     "' is not a parameter type (bool, int, float, string, int[], "
                     "float[] or bool[])");
}

}  // namespace opscope
