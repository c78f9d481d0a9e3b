// Names of enum values: one table per enum, read both ways, and one case folding for every parser.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace opscope {

// An ASCII lower-case copy: names on the command line and in files match whatever the case.
std::string lowerCase(std::string text);

// One row of an enum's name table. A table may name a value more than once (aliases a parser
// accepts); the first row for a value is the name it is written with.
template <class E>
struct Named {
    E value;
    const char* name;
};

// The name `table` writes `value` with, or `fallback` for a value the table does not hold.
template <class E, std::size_t N>
constexpr const char* nameOf(const Named<E> (&table)[N], E value, const char* fallback = "?") {
    for (const Named<E>& row : table)
        if (row.value == value) return row.name;
    return fallback;
}

// The value `table` names `text` (exactly, case and all), or nothing.
template <class E, std::size_t N>
std::optional<E> valueNamed(const std::string& text, const Named<E> (&table)[N]) {
    for (const Named<E>& row : table)
        if (text == row.name) return row.value;
    return std::nullopt;
}

// The bool-and-out-pointer form of the parse functions: stores the value `table` names `text`
// through `out` (when given) and says whether there was one.
template <class E, std::size_t N>
bool parseNamed(const std::string& text, const Named<E> (&table)[N], E* out) {
    const std::optional<E> found = valueNamed(text, table);
    if (found && out) *out = *found;
    return found.has_value();
}

// Every value `table` names, once each, in the order of its first row: the enum's list for a
// menu or a loop, kept with its names.
template <class E, std::size_t N>
std::vector<E> valuesOf(const Named<E> (&table)[N]) {
    std::vector<E> values;
    for (const Named<E>& row : table)
        if (std::find(values.begin(), values.end(), row.value) == values.end()) values.push_back(row.value);
    return values;
}

}  // namespace opscope
