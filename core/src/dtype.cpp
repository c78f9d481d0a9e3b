#include "opscope/dtype.h"

#include "opscope/names.h"

namespace opscope {

std::size_t dtypeSize(DType t) {
    switch (t) {
        case DType::Float32:
        case DType::Int32:
        case DType::UInt32: return 4;
        case DType::Float16:
        case DType::BFloat16:
        case DType::Int16:
        case DType::UInt16: return 2;
        case DType::Int8:
        case DType::UInt8:
        case DType::Bool: return 1;
        case DType::Int64:
        case DType::UInt64:
        case DType::Float64:
        case DType::Complex64: return 8;
        case DType::Complex128: return 16;
        case DType::String:
        case DType::Undefined: return 0;
    }
    return 0;
}

namespace {
// The name each dtype is written with comes first; the rest are the spellings `dtypeFromName` accepts.
constexpr Named<DType> kDTypeNames[] = {{DType::Float32, "float32"},     {DType::Float16, "float16"},
                                        {DType::BFloat16, "bfloat16"},   {DType::Float64, "float64"},
                                        {DType::Int8, "int8"},           {DType::Int16, "int16"},
                                        {DType::Int32, "int32"},         {DType::Int64, "int64"},
                                        {DType::UInt8, "uint8"},         {DType::UInt16, "uint16"},
                                        {DType::UInt32, "uint32"},       {DType::UInt64, "uint64"},
                                        {DType::Bool, "bool"},           {DType::String, "string"},
                                        {DType::Complex64, "complex64"}, {DType::Complex128, "complex128"},
                                        {DType::Undefined, "undefined"}, {DType::Float32, "fp32"},
                                        {DType::Float32, "float"},       {DType::Float32, "f32"},
                                        {DType::Float16, "fp16"},        {DType::Float16, "half"},
                                        {DType::Float16, "f16"},         {DType::BFloat16, "bf16"},
                                        {DType::Float64, "fp64"},        {DType::Float64, "double"},
                                        {DType::Float64, "f64"}};
}  // namespace

const char* dtypeName(DType t) { return nameOf(kDTypeNames, t, "unknown"); }

DType dtypeFromName(const std::string& name) {
    return valueNamed(lowerCase(name), kDTypeNames).value_or(DType::Undefined);
}

bool isFloatingType(DType t) {
    return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
}

bool isValidAclDataType(int32_t v) {
    return (v >= -1 && v <= 4) || (v >= 6 && v <= 13) || v == 16 || v == 17 || v == 27;
}

}  // namespace opscope
