// Names people type for enum values: one case folding and one table lookup for every parser.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace opscope {

// An ASCII lower-case copy: names on the command line and in files match whatever the case.
std::string lowerCase(std::string text);

// The value `text` names in a table of {name, value} aliases, or nothing.
template <class E, std::size_t N>
std::optional<E> findAlias(const std::string& text, const std::pair<const char*, E> (&aliases)[N]) {
    for (const auto& [name, value] : aliases)
        if (text == name) return value;
    return std::nullopt;
}

// The one of `values` whose `nameOf(value)` is `text`, or nothing.
template <class Values, class NameOf>
auto findNamed(const std::string& text, const Values& values, NameOf nameOf)
    -> std::optional<std::decay_t<decltype(*std::begin(values))>> {
    for (const auto& value : values)
        if (text == nameOf(value)) return value;
    return std::nullopt;
}

}  // namespace opscope
