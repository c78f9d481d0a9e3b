/**
 * An aclnnGroupNormBackward sample in the style of Huawei's operator pages: it includes only
 * the official headers and is built with the official g++ line. After printing the results it
 * checks them against a float64 computation written here, so the test can fail.
 */
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_group_norm_backward.h"

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

    int64_t N = 2, C = 4, HxW = 3, group = 2;
    std::vector<int64_t> xShape = {N, C, HxW}, meanShape = {N, group}, gammaShape = {C};
    std::vector<float> gradOutHostData = {0.5, -1, 2,   0.25, 1, -0.5, 3,    1, -2,   0.5, 1, 1.5,
                                          -1,  2,  0.5, 1,    1, -1,   0.25, 2, -0.5, 1,   1, 0};
    std::vector<float> inputHostData = {1, 2, 3, 4, 5, 6, -1, 0, 1, 2, 4, 8, 0.5, 1.5, -2, 3, 1, 1, 2, -3, 0, 4, 2, 1};
    // mean and rstd of each (n, group) of inputHostData, as the forward pass returns them.
    std::vector<float> meanHostData(N * group), rstdHostData(N * group);
    for (int64_t n = 0; n < N; n++) {
        for (int64_t g = 0; g < group; g++) {
            double s = 0, ss = 0;
            int64_t cnt = (C / group) * HxW;
            for (int64_t i = 0; i < cnt; i++) s += inputHostData[(n * C + g * (C / group)) * HxW + i];
            double m = s / cnt;
            for (int64_t i = 0; i < cnt; i++) {
                double d = inputHostData[(n * C + g * (C / group)) * HxW + i] - m;
                ss += d * d;
            }
            meanHostData[n * group + g] = m;
            rstdHostData[n * group + g] = 1.0 / std::sqrt(ss / cnt + 1e-5);
        }
    }
    std::vector<float> gammaHostData = {1.0, 0.5, 2.0, 1.5};
    std::vector<float> gradInputHostData(GetShapeSize(xShape), 0), gradGammaHostData(C, 0), gradBetaHostData(C, 0);

    void *gradOutDeviceAddr = nullptr, *inputDeviceAddr = nullptr, *meanDeviceAddr = nullptr, *rstdDeviceAddr = nullptr,
         *gammaDeviceAddr = nullptr, *gradInputDeviceAddr = nullptr, *gradGammaDeviceAddr = nullptr,
         *gradBetaDeviceAddr = nullptr;
    aclTensor *gradOut = nullptr, *input = nullptr, *mean = nullptr, *rstd = nullptr, *gamma = nullptr,
              *gradInput = nullptr, *gradGamma = nullptr, *gradBeta = nullptr;
    ret = CreateAclTensor(gradOutHostData, xShape, &gradOutDeviceAddr, aclDataType::ACL_FLOAT, &gradOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradOutTensorPtr(gradOut, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradOutDeviceAddrPtr(gradOutDeviceAddr, aclrtFree);
    ret = CreateAclTensor(inputHostData, xShape, &inputDeviceAddr, aclDataType::ACL_FLOAT, &input);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> inputTensorPtr(input, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> inputDeviceAddrPtr(inputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(meanHostData, meanShape, &meanDeviceAddr, aclDataType::ACL_FLOAT, &mean);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> meanTensorPtr(mean, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> meanDeviceAddrPtr(meanDeviceAddr, aclrtFree);
    ret = CreateAclTensor(rstdHostData, meanShape, &rstdDeviceAddr, aclDataType::ACL_FLOAT, &rstd);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> rstdTensorPtr(rstd, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> rstdDeviceAddrPtr(rstdDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gammaHostData, gammaShape, &gammaDeviceAddr, aclDataType::ACL_FLOAT, &gamma);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gammaTensorPtr(gamma, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gammaDeviceAddrPtr(gammaDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradInputHostData, xShape, &gradInputDeviceAddr, aclDataType::ACL_FLOAT, &gradInput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradInputTensorPtr(gradInput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradInputDeviceAddrPtr(gradInputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradGammaHostData, gammaShape, &gradGammaDeviceAddr, aclDataType::ACL_FLOAT, &gradGamma);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradGammaTensorPtr(gradGamma, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradGammaDeviceAddrPtr(gradGammaDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradBetaHostData, gammaShape, &gradBetaDeviceAddr, aclDataType::ACL_FLOAT, &gradBeta);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradBetaTensorPtr(gradBeta, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradBetaDeviceAddrPtr(gradBetaDeviceAddr, aclrtFree);

    bool outputMaskData[3] = {true, true, true};
    aclBoolArray* outputMask = aclCreateBoolArray(outputMaskData, 3);
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> outputMaskPtr(outputMask, aclDestroyBoolArray);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnGroupNormBackwardGetWorkspaceSize(gradOut, input, mean, rstd, gamma, N, C, HxW, group, outputMask,
                                                 gradInput, gradGamma, gradBeta, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnGroupNormBackwardGetWorkspaceSize failed. ERROR: %d, %s\n", ret, aclGetRecentErrMsg());
              return ret);
    void* workspaceAddr = nullptr;
    std::unique_ptr<void, aclError (*)(void*)> workspaceAddrPtr(nullptr, aclrtFree);
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
        workspaceAddrPtr.reset(workspaceAddr);
    }
    ret = aclnnGroupNormBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGroupNormBackward failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    auto size = GetShapeSize(xShape);
    std::vector<float> resultData(size, 0);
    ret = aclrtMemcpy(resultData.data(), resultData.size() * sizeof(resultData[0]), gradInputDeviceAddr,
                      size * sizeof(resultData[0]), ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
    for (int64_t i = 0; i < size; i++) {
        LOG_PRINT("gradInput result[%ld] is: %f\n", i, resultData[i]);
    }
    std::vector<float> gammaGrad(C, 0), betaGrad(C, 0);
    aclrtMemcpy(gammaGrad.data(), C * sizeof(float), gradGammaDeviceAddr, C * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(betaGrad.data(), C * sizeof(float), gradBetaDeviceAddr, C * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    for (int64_t i = 0; i < C; i++) {
        LOG_PRINT("gradGammaOut result[%ld] is: %f, gradBetaOut result[%ld] is: %f\n", i, gammaGrad[i], i, betaGrad[i]);
    }

    // Not in the official sample: a float64 check, dx = rstd*(g*dy - mean(g*dy) - xhat*mean(g*dy*xhat)).
    double worst = 0;
    int64_t D = C / group;
    for (int64_t n = 0; n < N; n++) {
        for (int64_t g = 0; g < group; g++) {
            double m = meanHostData[n * group + g], r = rstdHostData[n * group + g], a = 0, b = 0;
            for (int64_t c = g * D; c < (g + 1) * D; c++)
                for (int64_t i = 0; i < HxW; i++) {
                    int64_t k = (n * C + c) * HxW + i;
                    a += gammaHostData[c] * gradOutHostData[k];
                    b += gammaHostData[c] * gradOutHostData[k] * (inputHostData[k] - m) * r;
                }
            for (int64_t c = g * D; c < (g + 1) * D; c++)
                for (int64_t i = 0; i < HxW; i++) {
                    int64_t k = (n * C + c) * HxW + i;
                    double xhat = (inputHostData[k] - m) * r;
                    double dx = r * (gammaHostData[c] * gradOutHostData[k] - a / (D * HxW) - xhat * b / (D * HxW));
                    worst = std::fmax(worst, std::fabs(dx - resultData[k]));
                }
        }
    }
    LOG_PRINT("max |gradInput - float64| = %g\n", worst);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return worst < 1e-4 ? 0 : 3;
}
