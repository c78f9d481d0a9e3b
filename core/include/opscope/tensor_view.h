// A strided view over typed storage: what an aclTensor is, without the C API around it.
// Strides and offset are in elements, like aclCreateTensor's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "opscope/dtype.h"

namespace opscope {

// The most dimensions an operator, a case file or a trace row takes (CANN's operators stop at 8).
constexpr int kMaxRank = 8;
// aclCreateTensor accepts any rank up to this bound, as CANN does, and each operator rejects
// what it does not take (161002 naming the argument); the bound only stops absurd input.
constexpr int kMaxCreateRank = 64;

// The official aclFormat values.
enum class Format : int32_t {
    Undefined = ACL_FORMAT_UNDEFINED,
    NCHW = ACL_FORMAT_NCHW,
    NHWC = ACL_FORMAT_NHWC,
    ND = ACL_FORMAT_ND,
    NC1HWC0 = ACL_FORMAT_NC1HWC0,
    FractalZ = ACL_FORMAT_FRACTAL_Z,
    HWCN = ACL_FORMAT_HWCN,
    NDHWC = ACL_FORMAT_NDHWC,
    FractalNZ = ACL_FORMAT_FRACTAL_NZ,
    NCDHW = ACL_FORMAT_NCDHW,
    NC = ACL_FORMAT_NC,
    NCL = ACL_FORMAT_NCL,
};
const char* formatName(Format f);
// Private device layouts (5HD, fractal) whose element order OpScope does not emulate.
bool isPrivateFormat(Format f);

struct TensorView {
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    int64_t offset = 0;    // elements from `data` to element [0, ..., 0]
    void* data = nullptr;  // storage base
    Format format = Format::ND;

    int64_t rank() const { return static_cast<int64_t>(shape.size()); }
    int64_t numel() const;
    bool empty() const { return numel() == 0; }
    // True when elements are densely packed in row-major order (size-1 dims ignored).
    bool isContiguous() const;
    // Address of element [0,...,0].
    void* first() const;
    // Bytes from `data` to the lowest element the view touches, and to one past the highest
    // ({0, 0} when empty). Throws StatusError(kParamInvalid) when an index or size overflows.
    struct ByteRange {
        std::size_t begin = 0, end = 0;
    };
    ByteRange byteRange() const;
    std::size_t elementSize() const { return dtypeSize(dtype); }
    // "float32[2, 3, 4]" plus " strides [..]" when not contiguous.
    std::string describe() const;

    static std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& shape);
    static TensorView contiguous(DType dtype, std::vector<int64_t> shape, void* data);
};

std::string shapeToString(const std::vector<int64_t>& shape);
// Throws StatusError(kParamInvalid) when the product overflows int64.
int64_t shapeNumel(const std::vector<int64_t>& shape);

}  // namespace opscope
