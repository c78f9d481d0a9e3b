// The emulated AscendCL runtime and aclnn object API: correct use works, and misuse returns
// an error code with a message instead of crashing.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace {

std::string lastError() { return aclGetRecentErrMsg(); }

TEST(Runtime, InitFinalizeAndDevice) {
    aclFinalize();  // fails unless an earlier test in this process left the runtime initialized
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    int32_t dev = -1;
    EXPECT_EQ(aclrtGetDevice(&dev), ACL_SUCCESS);
    EXPECT_EQ(dev, 0);
    EXPECT_EQ(aclrtSetDevice(99), ACL_ERROR_INVALID_DEVICE);
    EXPECT_NE(lastError().find("deviceId 99"), std::string::npos);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    EXPECT_NE(aclFinalize(), ACL_SUCCESS);
    void* p = nullptr;
    EXPECT_EQ(aclrtMalloc(&p, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);  // the device is gone
    EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);  // and back, for the tests that follow in this process
}

TEST(Runtime, MallocIsAlignedAndTracked) {
    void* p = nullptr;
    for (size_t size : {1, 3, 17, 4096, 100000}) {
        ASSERT_EQ(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 32, 0u);
        EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    }
    EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMalloc(nullptr, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMalloc(&p, 8, static_cast<aclrtMemMallocPolicy>(7)), ACL_ERROR_INVALID_PARAM);
}

TEST(Runtime, DoubleFreeAndUnknownPointerAreErrors) {
    void* p = nullptr;
    ASSERT_EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(p), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(lastError().find("double free"), std::string::npos);
    int local = 0;
    EXPECT_EQ(aclrtFree(&local), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(lastError().find("not returned by aclrtMalloc"), std::string::npos);
    EXPECT_EQ(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(Runtime, MemcpyAllKindsAndChecks) {
    void* dev = nullptr;
    void* dev2 = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&dev2, 16, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    float in[4] = {1, 2, 3, 4}, out[4] = {}, host[4] = {};
    EXPECT_EQ(aclrtMemcpy(dev, 16, in, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(dev2, 16, dev, 16, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(out, 16, dev2, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(host, 16, out, 16, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(host[3], 4.0f);
    EXPECT_EQ(aclrtMemcpy(dev, 8, in, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(lastError().find("count 16 exceeds destMax 8"), std::string::npos);
    EXPECT_EQ(aclrtMemcpy(nullptr, 16, in, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemcpy(dev, 16, nullptr, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    // Overrunning the device allocation, or a host pointer where device memory is required.
    EXPECT_EQ(aclrtMemcpy(static_cast<char*>(dev) + 8, 16, in, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(lastError().find("overruns"), std::string::npos);
    EXPECT_EQ(aclrtMemcpy(out, 16, in, 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(lastError().find("not device memory"), std::string::npos);
    EXPECT_EQ(aclrtMemcpy(dev, 16, in, 16, static_cast<aclrtMemcpyKind>(9)), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemset(dev, 16, 0, 16), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(dev, 8, 0, 16), ACL_ERROR_INVALID_PARAM);
    aclrtFree(dev);
    aclrtFree(dev2);
}

TEST(Runtime, StreamsAndDestroyedStream) {
    aclrtStream s = nullptr;
    ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // default stream
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(RecentError, IsThreadLocal) {
    void* p = nullptr;
    EXPECT_EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    const std::string mine = lastError();
    std::string other;
    std::thread([&] { other = aclGetRecentErrMsg(); }).join();
    EXPECT_FALSE(mine.empty());
    EXPECT_TRUE(other.empty());
}

TEST(TensorObjects, CreateGetAndDestroy) {
    float data[24] = {};
    void* dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, sizeof data, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    const int64_t shape[3] = {2, 3, 4}, strides[3] = {12, 4, 1};
    aclTensor* t = aclCreateTensor(shape, 3, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 3, dev);
    ASSERT_NE(t, nullptr) << lastError();
    int64_t* dims = nullptr;
    uint64_t n = 0;
    ASSERT_EQ(aclGetViewShape(t, &dims, &n), ACLNN_SUCCESS);
    ASSERT_EQ(n, 3u);
    EXPECT_EQ(dims[2], 4);
    delete[] dims;
    ASSERT_EQ(aclGetViewStrides(t, &dims, &n), ACLNN_SUCCESS);
    EXPECT_EQ(dims[0], 12);
    delete[] dims;
    int64_t off = -1;
    EXPECT_EQ(aclGetViewOffset(t, &off), ACLNN_SUCCESS);
    EXPECT_EQ(off, 0);
    aclDataType dt;
    EXPECT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
    EXPECT_EQ(dt, ACL_FLOAT);
    aclFormat fmt;
    EXPECT_EQ(aclGetFormat(t, &fmt), ACLNN_SUCCESS);
    EXPECT_EQ(fmt, ACL_FORMAT_ND);
    EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);  // double destroy: error, no crash
    EXPECT_EQ(aclGetDataType(t, &dt), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
    aclrtFree(dev);
}

TEST(TensorObjects, RejectsBadDescriptions) {
    void* dev = nullptr;
    ASSERT_EQ(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    // Like CANN, any rank is a tensor (operators reject what they do not take); only an absurd
    // rank is refused here.
    const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    aclTensor* t9 = aclCreateTensor(nine, 9, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nine, 9, dev);
    ASSERT_NE(t9, nullptr) << lastError();
    EXPECT_EQ(aclDestroyTensor(t9), ACLNN_SUCCESS);
    const std::vector<int64_t> ones(65, 1);
    EXPECT_EQ(aclCreateTensor(ones.data(), 65, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev), nullptr);
    EXPECT_NE(lastError().find("viewDimsNum 65 exceeds the largest rank OpScope accepts (64)"), std::string::npos);
    const int64_t neg[2] = {2, -1};
    EXPECT_EQ(aclCreateTensor(neg, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev), nullptr);
    const int64_t big[1] = {100};  // 400 bytes from a 64-byte block
    EXPECT_EQ(aclCreateTensor(big, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev), nullptr);
    EXPECT_NE(lastError().find("aclrtMalloc block is smaller"), std::string::npos);
    const int64_t four[1] = {4}, storage[1] = {4}, stride2[1] = {2};
    EXPECT_EQ(aclCreateTensor(four, 1, ACL_FLOAT, stride2, 0, ACL_FORMAT_ND, storage, 1, dev), nullptr);
    EXPECT_NE(lastError().find("reaches element 6"), std::string::npos);
    EXPECT_EQ(aclCreateTensor(four, 1, static_cast<aclDataType>(5), nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev),
              nullptr);
    EXPECT_EQ(aclCreateTensor(four, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr), nullptr);
    // Rank 0 and empty tensors are fine.
    aclTensor* scalar = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, dev);
    EXPECT_NE(scalar, nullptr) << lastError();
    aclDestroyTensor(scalar);
    const int64_t empty[2] = {0, 3};
    aclTensor* e = aclCreateTensor(empty, 2, ACL_BF16, nullptr, 0, ACL_FORMAT_ND, empty, 2, nullptr);
    EXPECT_NE(e, nullptr) << lastError();
    aclDestroyTensor(e);
    aclrtFree(dev);
}

TEST(ArrayObjects, CreateSizeDestroy) {
    const int64_t iv[3] = {1, 2, 3};
    const bool bv[2] = {true, false};
    const float fv[1] = {0.5f};
    aclIntArray* ia = aclCreateIntArray(iv, 3);
    aclBoolArray* ba = aclCreateBoolArray(bv, 2);
    aclFloatArray* fa = aclCreateFloatArray(fv, 1);
    uint64_t n = 0;
    EXPECT_EQ(aclGetIntArraySize(ia, &n), ACLNN_SUCCESS);
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(aclGetBoolArraySize(ba, &n), ACLNN_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(aclGetFloatArraySize(fa, &n), ACLNN_SUCCESS);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(aclDestroyIntArray(ia), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyIntArray(ia), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclDestroyBoolArray(ba), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyFloatArray(fa), ACLNN_SUCCESS);
    EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
    double d = 2.5;
    aclScalar* s = aclCreateScalar(&d, ACL_DOUBLE);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(aclDestroyScalar(s), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyScalar(s), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor*>(&d)), ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

}  // namespace
