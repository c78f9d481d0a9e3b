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

const char* dtypeName(DType t) {
    switch (t) {
        case DType::Float32: return "float32";
        case DType::Float16: return "float16";
        case DType::BFloat16: return "bfloat16";
        case DType::Float64: return "float64";
        case DType::Int8: return "int8";
        case DType::Int16: return "int16";
        case DType::Int32: return "int32";
        case DType::Int64: return "int64";
        case DType::UInt8: return "uint8";
        case DType::UInt16: return "uint16";
        case DType::UInt32: return "uint32";
        case DType::UInt64: return "uint64";
        case DType::Bool: return "bool";
        case DType::String: return "string";
        case DType::Complex64: return "complex64";
        case DType::Complex128: return "complex128";
        case DType::Undefined: return "undefined";
    }
    return "unknown";
}

DType dtypeFromName(const std::string& name) {
    const std::string n = lowerCase(name);
    static const std::pair<const char*, DType> aliases[] = {
        {"fp32", DType::Float32},   {"float", DType::Float32}, {"f32", DType::Float32},   {"fp16", DType::Float16},
        {"half", DType::Float16},   {"f16", DType::Float16},   {"bf16", DType::BFloat16}, {"fp64", DType::Float64},
        {"double", DType::Float64}, {"f64", DType::Float64},
    };
    if (const std::optional<DType> t = findAlias(n, aliases)) return *t;
    for (int32_t v = -1; v <= 27; ++v) {
        if (!isValidAclDataType(v)) continue;
        DType t = static_cast<DType>(v);
        if (n == dtypeName(t)) return t;
    }
    return DType::Undefined;
}

bool isFloatingType(DType t) {
    return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
}

bool isValidAclDataType(int32_t v) {
    return (v >= -1 && v <= 4) || (v >= 6 && v <= 13) || v == 16 || v == 17 || v == 27;
}

}  // namespace opscope
