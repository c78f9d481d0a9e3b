/**
 * An aclnnGridSampler2DBackward sample in the style of Huawei's operator pages (the official
 * example's data: gradOutput [1, 1, 3, 3] of ones, input [1, 1, 5, 8] = 1..40, a 3x3 grid over
 * [-1, 1], bilinear, zeros padding, alignCorners false): it includes only the official headers
 * and is built with the official g++ line. After printing the results it checks them against a
 * float64 computation written here, so the test can fail.
 */
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

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

    int64_t interpolationMode = 0;
    int64_t paddingMode = 0;
    bool alignCorners = false;
    std::vector<int64_t> gradOutputShape = {1, 1, 3, 3};
    std::vector<int64_t> inputShape = {1, 1, 5, 8};
    std::vector<int64_t> gridShape = {1, 3, 3, 2};
    std::vector<float> gradOutputHostData = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    std::vector<float> inputHostData(40);
    for (int i = 0; i < 40; i++) inputHostData[i] = static_cast<float>(i + 1);
    std::vector<float> gridHostData = {-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0, -1, 1, 0, 1, 1, 1};
    std::vector<float> inputGradHostData(40, 0), gridGradHostData(18, 0);

    void *gradOutputDeviceAddr = nullptr, *inputDeviceAddr = nullptr, *gridDeviceAddr = nullptr,
         *inputGradDeviceAddr = nullptr, *gridGradDeviceAddr = nullptr;
    aclTensor *gradOutput = nullptr, *input = nullptr, *grid = nullptr, *inputGrad = nullptr, *gridGrad = nullptr;
    ret = CreateAclTensor(gradOutputHostData, gradOutputShape, &gradOutputDeviceAddr, aclDataType::ACL_FLOAT,
                          &gradOutput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradOutputTensorPtr(gradOutput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradOutputDeviceAddrPtr(gradOutputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(inputHostData, inputShape, &inputDeviceAddr, aclDataType::ACL_FLOAT, &input);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> inputTensorPtr(input, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> inputDeviceAddrPtr(inputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gridHostData, gridShape, &gridDeviceAddr, aclDataType::ACL_FLOAT, &grid);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gridTensorPtr(grid, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gridDeviceAddrPtr(gridDeviceAddr, aclrtFree);
    ret = CreateAclTensor(inputGradHostData, inputShape, &inputGradDeviceAddr, aclDataType::ACL_FLOAT, &inputGrad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> inputGradTensorPtr(inputGrad, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> inputGradDeviceAddrPtr(inputGradDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gridGradHostData, gridShape, &gridGradDeviceAddr, aclDataType::ACL_FLOAT, &gridGrad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gridGradTensorPtr(gridGrad, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gridGradDeviceAddrPtr(gridGradDeviceAddr, aclrtFree);

    bool maskValue[2] = {true, true};
    aclBoolArray* outputMask = aclCreateBoolArray(maskValue, 2);
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> outputMaskPtr(outputMask, aclDestroyBoolArray);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnGridSampler2DBackwardGetWorkspaceSize(gradOutput, input, grid, interpolationMode, paddingMode,
                                                     alignCorners, outputMask, inputGrad, gridGrad, &workspaceSize,
                                                     &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGridSampler2DBackwardGetWorkspaceSize failed. ERROR: %d, %s\n", ret,
                                            aclGetRecentErrMsg());
              return ret);
    void* workspaceAddr = nullptr;
    std::unique_ptr<void, aclError (*)(void*)> workspaceAddrPtr(nullptr, aclrtFree);
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
        workspaceAddrPtr.reset(workspaceAddr);
    }
    ret = aclnnGridSampler2DBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnGridSampler2DBackward failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<float> inputGradResult(40, 0), gridGradResult(18, 0);
    ret = aclrtMemcpy(inputGradResult.data(), 40 * sizeof(float), inputGradDeviceAddr, 40 * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy inputGrad from device to host failed. ERROR: %d\n", ret); return ret);
    for (int64_t i = 0; i < 40; i++) {
        LOG_PRINT("inputGrad result[%ld] is: %f\n", i, inputGradResult[i]);
    }
    ret = aclrtMemcpy(gridGradResult.data(), 18 * sizeof(float), gridGradDeviceAddr, 18 * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy gridGrad from device to host failed. ERROR: %d\n", ret); return ret);
    for (int64_t i = 0; i < 18; i++) {
        LOG_PRINT("gridGrad result[%ld] is: %f\n", i, gridGradResult[i]);
    }

    // Not in the official sample: a float64 check. Without alignCorners the pixel position of a
    // grid value g is ((g + 1) * size - 1) / 2; bilinear weights; zeros outside the image.
    const int H = 5, W = 8;
    std::vector<double> inputGradExpected(40, 0), gridGradExpected(18, 0);
    auto value = [&](int x, int y) { return (x >= 0 && x < W && y >= 0 && y < H) ? inputHostData[y * W + x] : 0.0; };
    for (int p = 0; p < 9; p++) {
        double x = ((gridHostData[2 * p] + 1) * W - 1) / 2, y = ((gridHostData[2 * p + 1] + 1) * H - 1) / 2;
        int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
        double fx = x - x0, fy = y - y0, g = gradOutputHostData[p];
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                int xi = x0 + dx, yi = y0 + dy;
                double wx = dx ? fx : 1 - fx, wy = dy ? fy : 1 - fy;
                if (xi >= 0 && xi < W && yi >= 0 && yi < H) inputGradExpected[yi * W + xi] += wx * wy * g;
                gridGradExpected[2 * p] += (dx ? 1 : -1) * wy * value(xi, yi) * g * W / 2.0;
                gridGradExpected[2 * p + 1] += (dy ? 1 : -1) * wx * value(xi, yi) * g * H / 2.0;
            }
    }
    double worst = 0;
    for (int i = 0; i < 40; i++) worst = std::fmax(worst, std::fabs(inputGradExpected[i] - inputGradResult[i]));
    for (int i = 0; i < 18; i++) worst = std::fmax(worst, std::fabs(gridGradExpected[i] - gridGradResult[i]));
    LOG_PRINT("max |output - float64| = %g\n", worst);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return worst < 1e-4 ? 0 : 3;
}
