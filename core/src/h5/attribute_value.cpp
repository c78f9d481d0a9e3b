// Reading an attribute whose type is not known in advance. Everything goes through the
// checked call()/open() wrappers of h5_handle.h.
#include "opscope/h5/attribute_value.h"

#include "attribute_reader.h"

#include <hdf5.h>

#include <cstdint>
#include <vector>

namespace opscope::h5 {
namespace {

// A scalar dataspace gives one value; anything else an array.
template <class T, class V>
ParamValue scalarOrArray(const AttributeReader& a, std::vector<V> values) {
    if (a.rank == 0 && values.size() == 1) return T(values.front());
    return ParamValue(std::vector<T>(values.begin(), values.end()));
}

std::string typeSummary(const AttributeReader& a) {
    std::string name = describeType(a.type.id());
    if (a.rank == 0) return name;
    return name + "[" + std::to_string(a.count) + "]";
}

// The attribute's value, or nothing with the reason in *why.
std::optional<ParamValue> valueOrWhy(const File& file, const std::string& objectPath, const std::string& name,
                                     std::string* why) {
    const AttributeReader a = openAttribute(file, objectPath, name);
    if (a.typeClass == H5T_ENUM && isBoolType(a.type.id())) {
        Handle memory = makeBoolType();
        const std::vector<int8_t> bytes = a.readAs<int8_t>(memory.id());
        std::vector<bool> values;
        for (int8_t b : bytes) values.push_back(b != 0);
        if (a.rank == 0 && values.size() == 1) return ParamValue(bool(values.front()));
        return ParamValue(values);
    }
    switch (a.typeClass) {
        case H5T_INTEGER: return scalarOrArray<int64_t>(a, a.readAs<int64_t>(H5T_NATIVE_INT64));
        case H5T_FLOAT: return scalarOrArray<double>(a, a.readAs<double>(H5T_NATIVE_DOUBLE));
        case H5T_STRING: {
            if (a.rank == 0) return ParamValue(file.readAttribute<std::string>(objectPath, name));
            const auto texts = file.readAttribute<std::vector<std::string>>(objectPath, name);
            if (texts.size() == 1) return ParamValue(texts.front());
            *why = a.where + " is an array of " + std::to_string(texts.size()) +
                   " strings, which no operator parameter takes";
            return std::nullopt;
        }
        default: break;
    }
    *why = a.where + " is " + typeSummary(a) + ", which no operator parameter takes";
    return std::nullopt;
}

}  // namespace

ParamValue readAttributeValue(const File& file, const std::string& objectPath, const std::string& name) {
    std::string why;
    std::optional<ParamValue> value = valueOrWhy(file, objectPath, name, &why);
    if (!value) throw ContentError(why);
    return std::move(*value);
}

std::optional<ParamValue> readAttributeValueIfParameter(const File& file, const std::string& objectPath,
                                                        const std::string& name) {
    std::string why;
    return valueOrWhy(file, objectPath, name, &why);
}

std::optional<std::string> readStringAttributeIfPresent(const File& file, const std::string& objectPath,
                                                        const std::string& name) {
    if (!file.hasAttribute(objectPath, name)) return std::nullopt;
    const std::optional<ParamValue> value = readAttributeValueIfParameter(file, objectPath, name);
    const auto* text = value ? std::get_if<std::string>(&*value) : nullptr;
    if (!text) return std::nullopt;
    return *text;
}

void writeAttributeValue(File& file, const std::string& objectPath, const std::string& name, const ParamValue& value) {
    std::visit([&](const auto& v) { file.writeAttribute(objectPath, name, v); }, value);
}

std::string describeAttribute(const File& file, const std::string& objectPath, const std::string& name) {
    const AttributeReader a = openAttribute(file, objectPath, name);
    return typeSummary(a);
}

std::string attributeText(const File& file, const std::string& objectPath, const std::string& name) {
    try {
        const ParamValue v = readAttributeValue(file, objectPath, name);
        if (const auto* s = std::get_if<std::string>(&v)) return "\"" + *s + "\"";
        return paramToString(v);
    } catch (const FileError&) {
        try {
            return "<" + describeAttribute(file, objectPath, name) + ">";
        } catch (const FileError&) {
            return "<unreadable>";
        }
    }
}

}  // namespace opscope::h5
