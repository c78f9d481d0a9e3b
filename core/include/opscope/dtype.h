// Runtime element types. Each value is the official aclDataType's, so a DType and an aclDataType
// convert freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "acl/acl_base.h"

namespace opscope {

enum class DType : int32_t {
    Undefined = ACL_DT_UNDEFINED,
    Float32 = ACL_FLOAT,
    Float16 = ACL_FLOAT16,
    Int8 = ACL_INT8,
    Int32 = ACL_INT32,
    UInt8 = ACL_UINT8,
    Int16 = ACL_INT16,
    UInt16 = ACL_UINT16,
    UInt32 = ACL_UINT32,
    Int64 = ACL_INT64,
    UInt64 = ACL_UINT64,
    Float64 = ACL_DOUBLE,
    Bool = ACL_BOOL,
    String = ACL_STRING,
    Complex64 = ACL_COMPLEX64,
    Complex128 = ACL_COMPLEX128,
    BFloat16 = ACL_BF16,
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
