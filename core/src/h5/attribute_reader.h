// An attribute opened for reading, shared by the typed readers (h5_file.cpp) and the readers of
// attributes of unknown type (attribute_value.cpp): one place opens attributes, so one place
// refuses paths through external links. Internal: includes hdf5.h.
#pragma once

#include <hdf5.h>

#include <optional>
#include <string>
#include <vector>

#include "opscope/h5/h5_file.h"
#include "opscope/h5/h5_handle.h"

namespace opscope::h5 {

// An attribute opened for reading, with what the readers check before choosing a memory type.
struct AttributeReader {
    Handle attribute;
    Handle type;
    Handle space;
    H5T_class_t typeClass = H5T_NO_CLASS;
    int rank = 0;       // 0: a scalar (or a null dataspace)
    size_t count = 0;   // values it holds
    std::string where;  // "attribute 'n' of '/p' in 'f.h5'"
    std::string what;   // "cannot read " + where

    [[noreturn]] void mismatch(const std::string& wanted) const {
        throw ContentError(where + " is " + describeType(type.id()) + ", not " + wanted);
    }
    template <class T>
    std::vector<T> readAs(hid_t memoryType) const {
        std::vector<T> values(count);
        if (count > 0) call(what, [&] { return H5Aread(attribute.id(), memoryType, values.data()); });
        return values;
    }
    template <class T>
    T single(std::vector<T> values) const {
        if (values.size() != 1)
            throw ContentError(where + " holds " + std::to_string(values.size()) + " values, not one");
        return std::move(values.front());
    }
};

// Opens `name` of `objectPath` (refusing a path that leaves the file), with its type and
// extent; throws FileError naming the attribute, the object and the file.
AttributeReader openAttribute(const File& file, const std::string& objectPath, const std::string& name);
// The attribute `name` of the object `objectName` in `location` (a group, or the file and a
// path); `object` words it in messages ("'/p' in 'f.h5'"). nullopt when there is no such attribute.
std::optional<AttributeReader> openAttributeAt(Id location, const std::string& objectName, const std::string& name,
                                               const std::string& object);

}  // namespace opscope::h5
