// Attributes of any type read as the value their type suggests, for case parameters and tree
// listings, and written back the way h5py writes Python values.
#pragma once

#include <optional>
#include <string>

#include "opscope/executor.h"
#include "opscope/h5/h5_file.h"

namespace opscope::h5 {

// The attribute as a ParamValue: integers (any width) -> int64 or int64[], reals -> double or
// double[], h5py bool (the int8 enum, numpy.bool_) -> bool or bool[], a string -> string.
// A scalar dataspace gives a scalar, a simple one (even of one element) an array. Throws
// ContentError with one sentence for what no parameter can hold (string arrays, compounds, ...).
ParamValue readAttributeValue(const File& file, const std::string& objectPath, const std::string& name);
// The same, or nothing when no parameter can hold the attribute (for readers to whom such an
// attribute is someone else's data). HDF5 failures still throw IoError.
std::optional<ParamValue> readAttributeValueIfParameter(const File& file, const std::string& objectPath,
                                                        const std::string& name);
// A string attribute's text, or nothing when the attribute is absent or holds no single string.
std::optional<std::string> readStringAttributeIfPresent(const File& file, const std::string& objectPath,
                                                        const std::string& name);

// Writes a ParamValue as h5py would write the same Python value (bool[] as the enum array).
void writeAttributeValue(File& file, const std::string& objectPath, const std::string& name, const ParamValue& value);

// "int64", "float64[3]", "bool[2]", "string", "string[4]", "compound", ...: never throws for a
// readable attribute, for listings.
std::string describeAttribute(const File& file, const std::string& objectPath, const std::string& name);

// The value as text for listings ("[1, 2]", "true", "\"abc\""), or "<compound>" and the like
// when it is not a ParamValue. Never throws for a readable attribute.
std::string attributeText(const File& file, const std::string& objectPath, const std::string& name);

}  // namespace opscope::h5
