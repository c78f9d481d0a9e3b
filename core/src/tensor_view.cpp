#include "opscope/tensor_view.h"

#include <sstream>

#include "opscope/checked_math.h"
#include "opscope/error.h"
#include "opscope/names.h"

namespace opscope {

const char* formatName(Format f) {
    static constexpr Named<Format> kFormats[] = {{Format::Undefined, "UNDEFINED"},
                                                 {Format::NCHW, "NCHW"},
                                                 {Format::NHWC, "NHWC"},
                                                 {Format::ND, "ND"},
                                                 {Format::NC1HWC0, "NC1HWC0"},
                                                 {Format::FractalZ, "FRACTAL_Z"},
                                                 {Format::HWCN, "HWCN"},
                                                 {Format::NDHWC, "NDHWC"},
                                                 {Format::FractalNZ, "FRACTAL_NZ"},
                                                 {Format::NCDHW, "NCDHW"},
                                                 {Format::NC, "NC"},
                                                 {Format::NCL, "NCL"}};
    return nameOf(kFormats, f, "UNKNOWN");
}

bool isPrivateFormat(Format f) { return f == Format::NC1HWC0 || f == Format::FractalZ || f == Format::FractalNZ; }

int64_t shapeNumel(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape)
        if (!checkedMul(n, d, &n))
            fail(status::kParamInvalid,
                 Msg() << "shape " << shapeToString(shape) << " has more elements than int64 counts");
    return n;
}

std::string shapeToString(const std::vector<int64_t>& shape) {
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
    os << ']';
    return os.str();
}

int64_t TensorView::numel() const { return shapeNumel(shape); }

bool TensorView::isContiguous() const {
    int64_t expected = 1;
    for (int64_t i = rank() - 1; i >= 0; --i) {
        const auto k = static_cast<std::size_t>(i);
        if (shape[k] == 1) continue;
        if (shape[k] == 0) return true;
        if (strides[k] != expected) return false;
        if (!checkedMul(expected, shape[k], &expected)) return false;
    }
    return true;
}

void* TensorView::first() const {
    int64_t bytes;
    if (!checkedMul(offset, static_cast<int64_t>(elementSize()), &bytes))
        fail(status::kParamInvalid, Msg() << "view offset " << offset << " is beyond what 64-bit addresses hold");
    return static_cast<char*>(data) + bytes;
}

TensorView::ByteRange TensorView::byteRange() const {
    if (numel() == 0) return {};
    const auto overflow = [&]() {
        fail(status::kParamInvalid, Msg() << "view " << shapeToString(shape) << " strides " << shapeToString(strides)
                                          << " offset " << offset << " reaches beyond what 64-bit addresses hold");
    };
    int64_t lo = offset, hi = offset;  // lowest and highest element index the view touches
    for (std::size_t i = 0; i < shape.size(); ++i) {
        int64_t reach;
        if (!checkedMul(shape[i] - 1, strides[i], &reach)) overflow();
        if (!checkedAdd(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi)) overflow();
    }
    if (lo < 0)
        fail(status::kParamInvalid, Msg()
                                        << "view " << shapeToString(shape) << " strides " << shapeToString(strides)
                                        << " offset " << offset << " reaches element " << lo << ", before its storage");
    std::size_t begin = 0, end = 0;
    const auto size = elementSize();
    if (!checkedMul(static_cast<std::size_t>(lo), size, &begin) ||
        !checkedAdd(static_cast<std::size_t>(hi), std::size_t{1}, &end) || !checkedMul(end, size, &end))
        overflow();
    return {begin, end};
}

std::string TensorView::describe() const {
    std::string s = std::string(dtypeName(dtype)) + shapeToString(shape);
    if (!isContiguous()) s += " strides " + shapeToString(strides);
    return s;
}

std::vector<int64_t> TensorView::contiguousStrides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    int64_t s = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
        strides[i] = s;
        if (!checkedMul(s, shape[i] > 0 ? shape[i] : 1, &s))
            fail(status::kParamInvalid,
                 Msg() << "shape " << shapeToString(shape) << " has more elements than int64 counts");
    }
    return strides;
}

TensorView TensorView::contiguous(DType dtype, std::vector<int64_t> shape, void* data) {
    TensorView v;
    v.dtype = dtype;
    v.strides = contiguousStrides(shape);
    v.shape = std::move(shape);
    v.data = data;
    return v;
}

}  // namespace opscope
