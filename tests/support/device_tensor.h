// Test helper: a tensor in emulated device memory, created through the public C API the way
// NPU programs do (aclrtMalloc, aclrtMemcpy, aclCreateTensor), optionally strided.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "opscope/host_tensor.h"

// Asserts that an aclnn call returned success; a failure shows the call's message.
#define ASSERT_ACLNN_OK(call) ASSERT_EQ((call), ACLNN_SUCCESS) << aclGetRecentErrMsg()

namespace opscope::test {

class DeviceTensor {
public:
    DeviceTensor() = default;
    // Dense copy of `values`.
    static DeviceTensor fromHost(const HostTensor& values, aclFormat format = ACL_FORMAT_ND);
    // `values` placed in a strided view (strides in elements, plus an offset); the storage
    // gaps hold `fill`, so a test can check that an output's gaps are left untouched.
    static DeviceTensor strided(const HostTensor& values, const std::vector<int64_t>& strides, int64_t offset,
                                double fill = -777.0);
    static DeviceTensor zeros(DType dtype, const std::vector<int64_t>& shape);
    // Dense `values` rounded to `dtype`.
    static DeviceTensor fromDoubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values);
    // Non-contiguous view of a zero tensor: its last two axes transposed in storage.
    static DeviceTensor transposedZeros(DType dtype, const std::vector<int64_t>& shape);

    DeviceTensor(DeviceTensor&& o) noexcept;
    DeviceTensor& operator=(DeviceTensor&& o) noexcept;
    DeviceTensor(const DeviceTensor&) = delete;
    DeviceTensor& operator=(const DeviceTensor&) = delete;
    ~DeviceTensor();

    aclTensor* get() const { return tensor_; }
    operator aclTensor*() const { return tensor_; }
    // The view's values, densely, in its dtype.
    HostTensor toHost() const;
    std::vector<double> toDoubles() const { return toHost().toDoubles(); }
    // Every storage element as double (to inspect the gaps of strided views).
    std::vector<double> storageDoubles() const;

private:
    void create(DType dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t offset,
                int64_t storageNumel, aclFormat format);
    TensorView view_;  // dtype, shape, strides and offset as created; data: the device storage
    aclTensor* tensor_ = nullptr;
    int64_t storageNumel_ = 0;
};

std::vector<double> randomUniform(std::size_t n, double lo, double hi, uint32_t seed);

// An aclnn array that frees itself.
template <class Array, aclnnStatus (*destroy)(const Array*)>
class OwnedArray {
public:
    explicit OwnedArray(Array* array) : array_(array) {}
    ~OwnedArray() { destroy(array_); }
    OwnedArray(const OwnedArray&) = delete;
    OwnedArray& operator=(const OwnedArray&) = delete;
    Array* get() const { return array_; }
    operator Array*() const { return array_; }

private:
    Array* array_;
};

struct BoolArray : OwnedArray<aclBoolArray, aclDestroyBoolArray> {
    explicit BoolArray(const std::vector<bool>& v);
};

struct IntArray : OwnedArray<aclIntArray, aclDestroyIntArray> {
    explicit IntArray(const std::vector<int64_t>& v);
};

// Runs phase 1 result through phase 2 with a freshly allocated workspace; returns the status.
aclnnStatus runWithWorkspace(aclnnStatus (*launch)(void*, uint64_t, aclOpExecutor*, aclrtStream),
                             uint64_t workspaceSize, aclOpExecutor* executor);

// Max over i of |a-b| / (atol + rtol*|b|); <= 1 means within tolerance.
double toleranceRatio(const std::vector<double>& actual, const std::vector<double>& expected, double atol, double rtol,
                      std::size_t* worst = nullptr);

}  // namespace opscope::test
