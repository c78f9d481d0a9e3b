/**
 * An aclnnRmsNormGrad sample in the style of Huawei's operator pages (the official example's
 * shapes: x [2, 1, 16], rstd [2], gamma [16]): it includes only the official headers and is
 * built with the official g++ line. rstd comes from an RmsNorm forward computed here; after
 * printing the results the sample checks them against a float64 computation, so it can fail.
 */
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...)         \
    do {                                \
        printf(message, ##__VA_ARGS__); \
    } while (0)

int64_t GetShapeSize(const std::vector<int64_t>& shape) {
    int64_t shapeSize = 1;
    for (auto i : shape) {
        shapeSize *= i;
    }
    return shapeSize;
}

int Init(int32_t deviceId, aclrtStream* stream) {
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSetDevice(deviceId);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return ret);
    ret = aclrtCreateStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return ret);
    return 0;
}

template <typename T>
int CreateAclTensor(const std::vector<T>& hostData, const std::vector<int64_t>& shape, void** deviceAddr,
                    aclDataType dataType, aclTensor** tensor) {
    auto size = GetShapeSize(shape) * sizeof(T);
    auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = shape.size() - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, aclFormat::ACL_FORMAT_ND,
                              shape.data(), shape.size(), *deviceAddr);
    return 0;
}

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    const int64_t rows = 2, cols = 16;
    std::vector<int64_t> xShape = {2, 1, 16}, rstdShape = {2}, gammaShape = {16};
    std::vector<float> dyHostData(rows * cols), xHostData(rows * cols), gammaHostData(cols), rstdHostData(rows);
    for (int64_t i = 0; i < rows * cols; i++) {
        dyHostData[i] = 0.25f * static_cast<float>((i * 7) % 11) - 1.0f;
        xHostData[i] = 0.5f * static_cast<float>((i * 5) % 13) - 2.5f;
    }
    for (int64_t j = 0; j < cols; j++) gammaHostData[j] = 0.5f + 0.0625f * static_cast<float>(j);
    // rstd as the RmsNorm forward returns it: 1 / sqrt(mean(x^2) + eps) per row.
    for (int64_t r = 0; r < rows; r++) {
        double ss = 0;
        for (int64_t j = 0; j < cols; j++) ss += static_cast<double>(xHostData[r * cols + j]) * xHostData[r * cols + j];
        rstdHostData[r] = static_cast<float>(1.0 / std::sqrt(ss / cols + 1e-6));
    }
    std::vector<float> dxHostData(rows * cols, 0), dgammaHostData(cols, 0);

    void *dyDeviceAddr = nullptr, *xDeviceAddr = nullptr, *rstdDeviceAddr = nullptr, *gammaDeviceAddr = nullptr,
         *dxDeviceAddr = nullptr, *dgammaDeviceAddr = nullptr;
    aclTensor *dy = nullptr, *x = nullptr, *rstd = nullptr, *gamma = nullptr, *dxOut = nullptr, *dgammaOut = nullptr;
    ret = CreateAclTensor(dyHostData, xShape, &dyDeviceAddr, aclDataType::ACL_FLOAT, &dy);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> dyTensorPtr(dy, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> dyDeviceAddrPtr(dyDeviceAddr, aclrtFree);
    ret = CreateAclTensor(xHostData, xShape, &xDeviceAddr, aclDataType::ACL_FLOAT, &x);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> xTensorPtr(x, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> xDeviceAddrPtr(xDeviceAddr, aclrtFree);
    ret = CreateAclTensor(rstdHostData, rstdShape, &rstdDeviceAddr, aclDataType::ACL_FLOAT, &rstd);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> rstdTensorPtr(rstd, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> rstdDeviceAddrPtr(rstdDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gammaHostData, gammaShape, &gammaDeviceAddr, aclDataType::ACL_FLOAT, &gamma);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gammaTensorPtr(gamma, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gammaDeviceAddrPtr(gammaDeviceAddr, aclrtFree);
    ret = CreateAclTensor(dxHostData, xShape, &dxDeviceAddr, aclDataType::ACL_FLOAT, &dxOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> dxTensorPtr(dxOut, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> dxDeviceAddrPtr(dxDeviceAddr, aclrtFree);
    ret = CreateAclTensor(dgammaHostData, gammaShape, &dgammaDeviceAddr, aclDataType::ACL_FLOAT, &dgammaOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> dgammaTensorPtr(dgammaOut, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> dgammaDeviceAddrPtr(dgammaDeviceAddr, aclrtFree);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dxOut, dgammaOut, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnRmsNormGradGetWorkspaceSize failed. ERROR: %d, %s\n", ret, aclGetRecentErrMsg());
              return ret);
    void* workspaceAddr = nullptr;
    std::unique_ptr<void, aclError (*)(void*)> workspaceAddrPtr(nullptr, aclrtFree);
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
        workspaceAddrPtr.reset(workspaceAddr);
    }
    ret = aclnnRmsNormGrad(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnRmsNormGrad failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    auto sizeDx = GetShapeSize(xShape);
    std::vector<float> dxResult(sizeDx, 0);
    ret = aclrtMemcpy(dxResult.data(), dxResult.size() * sizeof(float), dxDeviceAddr, sizeDx * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
    for (int64_t i = 0; i < sizeDx; i++) {
        LOG_PRINT("dxOut result[%ld] is: %f\n", i, dxResult[i]);
    }
    std::vector<float> dgammaResult(cols, 0);
    ret = aclrtMemcpy(dgammaResult.data(), cols * sizeof(float), dgammaDeviceAddr, cols * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
    for (int64_t i = 0; i < cols; i++) {
        LOG_PRINT("dgammaOut result[%ld] is: %f\n", i, dgammaResult[i]);
    }

    // Not in the official sample: a float64 check of the documented formulas,
    // dx = (dy*g - x*rstd*mean(dy*g*x*rstd)) * rstd, dgamma = sum over rows of dy*x*rstd.
    double worst = 0;
    std::vector<double> dgammaExpected(cols, 0);
    for (int64_t r = 0; r < rows; r++) {
        double rs = rstdHostData[r], mean = 0;
        for (int64_t j = 0; j < cols; j++)
            mean += static_cast<double>(dyHostData[r * cols + j]) * gammaHostData[j] * xHostData[r * cols + j] * rs;
        mean /= cols;
        for (int64_t j = 0; j < cols; j++) {
            int64_t k = r * cols + j;
            double dx = (static_cast<double>(dyHostData[k]) * gammaHostData[j] - xHostData[k] * rs * mean) * rs;
            worst = std::fmax(worst, std::fabs(dx - dxResult[k]));
            dgammaExpected[j] += static_cast<double>(dyHostData[k]) * xHostData[k] * rs;
        }
    }
    for (int64_t j = 0; j < cols; j++) worst = std::fmax(worst, std::fabs(dgammaExpected[j] - dgammaResult[j]));
    LOG_PRINT("max |output - float64| = %g\n", worst);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return worst < 1e-5 ? 0 : 3;
}
