#include "device_tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "opscope/convert.h"

namespace opscope::test {

void DeviceTensor::create(DType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                          int64_t offset, int64_t storageNumel, aclFormat format) {
    view_.dtype = dtype;
    view_.shape = shape;
    view_.strides = strides;
    view_.offset = offset;
    storageNumel_ = storageNumel;
    const std::size_t bytes = std::max<std::size_t>(1, static_cast<std::size_t>(storageNumel) * dtypeSize(dtype));
    if (aclrtMalloc(&view_.data, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        throw std::runtime_error(std::string("aclrtMalloc failed: ") + aclGetRecentErrMsg());
    std::memset(view_.data, 0, bytes);
    const std::vector<int64_t> storageDims = {storageNumel};
    tensor_ = aclCreateTensor(shape.data(), shape.size(), static_cast<aclDataType>(dtype), strides.data(), offset,
                              format, storageDims.data(), 1, view_.data);
    if (!tensor_) throw std::runtime_error(std::string("aclCreateTensor failed: ") + aclGetRecentErrMsg());
}

DeviceTensor DeviceTensor::fromDoubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
    return fromHost(HostTensor::fromDoubles(dtype, std::move(shape), values));
}

DeviceTensor DeviceTensor::fromHost(const HostTensor& values, aclFormat format) {
    DeviceTensor t;
    t.create(values.dtype(), values.shape(), TensorView::contiguousStrides(values.shape()), 0, values.numel(), format);
    if (values.nbytes() > 0) {
        EXPECT_EQ(aclrtMemcpy(t.view_.data, values.nbytes(), values.data(), values.nbytes(), ACL_MEMCPY_HOST_TO_DEVICE),
                  ACL_SUCCESS);
    }
    return t;
}

DeviceTensor DeviceTensor::strided(const HostTensor& values, const std::vector<int64_t>& strides, int64_t offset,
                                   double fill) {
    int64_t last = offset;
    for (std::size_t i = 0; i < strides.size(); ++i) last += (values.shape()[i] - 1) * strides[i];
    const int64_t storage = values.numel() == 0 ? 1 : last + 1;
    DeviceTensor t;
    t.create(values.dtype(), values.shape(), strides, offset, storage, ACL_FORMAT_ND);
    HostTensor gaps(values.dtype(), {storage});
    for (int64_t i = 0; i < storage; ++i) gaps.setFromDouble(i, fill);
    std::memcpy(t.view_.data, gaps.data(), gaps.nbytes());
    copyConvert(values.view(), t.view_);
    return t;
}

DeviceTensor DeviceTensor::zeros(DType dtype, const std::vector<int64_t>& shape) {
    return fromHost(HostTensor(dtype, shape));
}

DeviceTensor DeviceTensor::transposedZeros(DType dtype, const std::vector<int64_t>& shape) {
    if (shape.size() < 2) return zeros(dtype, shape);
    std::vector<int64_t> storageShape = shape;
    std::swap(storageShape[shape.size() - 1], storageShape[shape.size() - 2]);
    std::vector<int64_t> strides = TensorView::contiguousStrides(storageShape);
    std::swap(strides[shape.size() - 1], strides[shape.size() - 2]);
    return strided(HostTensor(dtype, shape), strides, 0, 0.0);
}

DeviceTensor::DeviceTensor(DeviceTensor&& o) noexcept { *this = std::move(o); }

DeviceTensor& DeviceTensor::operator=(DeviceTensor&& o) noexcept {
    std::swap(view_, o.view_);
    std::swap(tensor_, o.tensor_);
    std::swap(storageNumel_, o.storageNumel_);
    return *this;
}

DeviceTensor::~DeviceTensor() {
    if (tensor_) aclDestroyTensor(tensor_);
    if (view_.data) aclrtFree(view_.data);
}

HostTensor DeviceTensor::toHost() const { return HostTensor::copyOf(view_); }

std::vector<double> DeviceTensor::storageDoubles() const {
    TensorView v = TensorView::contiguous(view_.dtype, {storageNumel_}, view_.data);
    return HostTensor::copyOf(v).toDoubles();
}

std::vector<double> randomUniform(std::size_t n, double lo, double hi, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    std::vector<double> v(n);
    for (double& x : v) x = d(rng);
    return v;
}

namespace {

aclBoolArray* createBoolArray(const std::vector<bool>& v) {
    bool buf[16] = {};
    for (std::size_t i = 0; i < v.size() && i < 16; ++i) buf[i] = v[i];
    return aclCreateBoolArray(buf, v.size());
}

}  // namespace

BoolArray::BoolArray(const std::vector<bool>& v) : OwnedArray(createBoolArray(v)) {}

IntArray::IntArray(const std::vector<int64_t>& v) : OwnedArray(aclCreateIntArray(v.data(), v.size())) {}

aclnnStatus runWithWorkspace(aclnnStatus (*launch)(void*, uint64_t, aclOpExecutor*, aclrtStream),
                             uint64_t workspaceSize, aclOpExecutor* executor) {
    void* ws = nullptr;
    if (workspaceSize > 0 && aclrtMalloc(&ws, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return ACLNN_ERR_RUNTIME_ERROR;
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    aclnnStatus st = launch(ws, workspaceSize, executor, stream);
    if (st == ACLNN_SUCCESS) st = aclrtSynchronizeStream(stream);
    aclrtDestroyStream(stream);
    if (ws) aclrtFree(ws);
    return st;
}

double toleranceRatio(const std::vector<double>& actual, const std::vector<double>& expected, double atol, double rtol,
                      std::size_t* worst) {
    double r = 0;
    if (actual.size() != expected.size()) return INFINITY;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double e = std::fabs(actual[i] - expected[i]) / (atol + rtol * std::fabs(expected[i]));
        if (!(e <= r)) {  // catches NaN too
            r = std::isnan(e) ? INFINITY : e;
            if (worst) *worst = i;
        }
    }
    return r;
}

}  // namespace opscope::test
