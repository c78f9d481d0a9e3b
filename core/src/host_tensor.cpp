#include "opscope/host_tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "opscope/convert.h"
#include "opscope/dispatch.h"
#include "opscope/error.h"

namespace opscope {

void HostTensor::AlignedFree::operator()(void* p) const { std::free(p); }

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
    if (dtypeSize(dtype) == 0) throw UsageError(std::string("HostTensor: unusable dtype ") + dtypeName(dtype));
    for (int64_t d : shape_)
        if (d < 0) throw UsageError("HostTensor: negative dimension in " + shapeToString(shape_));
    std::size_t bytes = nbytes();
    std::size_t alloc = ((bytes + 63) / 64) * 64;
    if (alloc == 0) alloc = 64;
    void* p = std::aligned_alloc(64, alloc);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, alloc);
    data_ = std::shared_ptr<void>(p, AlignedFree{});
}

int64_t HostTensor::numel() const { return shapeNumel(shape_); }

TensorView HostTensor::view() const { return TensorView::contiguous(dtype_, shape_, data_.get()); }

double HostTensor::getAsDouble(int64_t i) const {
    return dispatchAll(dtype_, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return convertValue<double>(dataAs<T>()[i]);
    });
}

void HostTensor::setFromDouble(int64_t i, double v) {
    dispatchAll(dtype_, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>)
            dataAs<T>()[i] = T(static_cast<float>(v));  // float first: double->16-bit goes via float on the device too
        else
            dataAs<T>()[i] = static_cast<T>(v);
    });
}

std::vector<double> HostTensor::toDoubles() const {
    std::vector<double> out(static_cast<std::size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) out[static_cast<std::size_t>(i)] = getAsDouble(i);
    return out;
}

HostTensor HostTensor::fromDoubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
    HostTensor t(dtype, std::move(shape));
    if (static_cast<int64_t>(values.size()) != t.numel())
        throw UsageError("HostTensor::fromDoubles: " + std::to_string(values.size()) + " values for shape " +
                         shapeToString(t.shape()));
    for (int64_t i = 0; i < t.numel(); ++i) t.setFromDouble(i, values[static_cast<std::size_t>(i)]);
    return t;
}

HostTensor HostTensor::copyOf(const TensorView& v) {
    HostTensor t(v.dtype, v.shape);
    copyConvert(v, t.view());
    return t;
}

}  // namespace opscope
