// Runtime element types. Values equal aclDataType so a DType and an aclDataType convert freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace opscope {

enum class DType : int32_t {
    Undefined = -1,
    Float32 = 0,
    Float16 = 1,
    Int8 = 2,
    Int32 = 3,
    UInt8 = 4,
    Int16 = 6,
    UInt16 = 7,
    UInt32 = 8,
    Int64 = 9,
    UInt64 = 10,
    Float64 = 11,
    Bool = 12,
    String = 13,
    Complex64 = 16,
    Complex128 = 17,
    BFloat16 = 27,
};

// Bytes per element; 0 for types OpScope cannot hold in a tensor (String, Undefined).
std::size_t dtypeSize(DType t);
// Short lower-case name used in messages, traces and case files: "float32", "bfloat16", ...
const char* dtypeName(DType t);
// Inverse of dtypeName; also accepts common aliases ("fp32", "bf16", "half", "double").
// Returns DType::Undefined for an unknown name.
DType dtypeFromName(const std::string& name);
bool isFloatingType(DType t);
bool isValidAclDataType(int32_t value);

}  // namespace opscope
