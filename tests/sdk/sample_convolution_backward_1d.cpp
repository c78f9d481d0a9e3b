/**
 * An aclnnConvolutionBackward sample (1D, NCL) of a transposed convolution with groups, stride,
 * padding and outputPadding, in the style of Huawei's operator pages: only the official headers,
 * the official g++ line, float32 with cubeMathType 0 (KEEP_DTYPE, Atlas A2). After printing the
 * results it checks them against a float64 computation written here, so the test can fail.
 */
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"

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
                    aclDataType dataType, aclFormat format, aclTensor** tensor) {
    auto size = GetShapeSize(shape) * sizeof(T);
    auto ret = aclrtMalloc(deviceAddr, size, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    ret = aclrtMemcpy(*deviceAddr, size, hostData.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = shape.size() - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    *tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0, format, shape.data(),
                              shape.size(), *deviceAddr);
    return 0;
}

int main() {
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // Transposed: input [N, Cin, L], weight [Cin, Cout/groups, K]; gradOutput [N, Cout, Lout] with
    // Lout = (L - 1) * stride - 2 * padding + dilation * (K - 1) + outputPadding + 1.
    const int64_t N = 1, Cin = 4, L = 5, groups = 2, CoutG = 1, K = 3, S = 2, P = 1, OP = 1;
    const int64_t Cout = CoutG * groups, Lout = (L - 1) * S - 2 * P + (K - 1) + OP + 1;
    std::vector<int64_t> inputShape = {N, Cin, L}, weightShape = {Cin, CoutG, K}, gradOutputShape = {N, Cout, Lout};
    std::vector<int64_t> biasShape = {Cout};
    std::vector<float> inputHostData(GetShapeSize(inputShape)), weightHostData(GetShapeSize(weightShape)),
        gradOutputHostData(GetShapeSize(gradOutputShape));
    for (size_t i = 0; i < inputHostData.size(); i++) inputHostData[i] = 0.1f * (static_cast<int>(i % 9) - 4);
    for (size_t i = 0; i < weightHostData.size(); i++) weightHostData[i] = 0.3f * (static_cast<int>(i % 5) - 2);
    for (size_t i = 0; i < gradOutputHostData.size(); i++) gradOutputHostData[i] = 0.2f * (static_cast<int>(i % 6) - 2);
    std::vector<float> gradInputHostData(GetShapeSize(inputShape), 0), gradWeightHostData(GetShapeSize(weightShape), 0),
        gradBiasHostData(Cout, 0);

    void *gradOutputDeviceAddr = nullptr, *inputDeviceAddr = nullptr, *weightDeviceAddr = nullptr,
         *gradInputDeviceAddr = nullptr, *gradWeightDeviceAddr = nullptr, *gradBiasDeviceAddr = nullptr;
    aclTensor *gradOutput = nullptr, *input = nullptr, *weight = nullptr, *gradInput = nullptr, *gradWeight = nullptr,
              *gradBias = nullptr;
    ret = CreateAclTensor(gradOutputHostData, gradOutputShape, &gradOutputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCL, &gradOutput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradOutputTensorPtr(gradOutput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradOutputDeviceAddrPtr(gradOutputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(inputHostData, inputShape, &inputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCL, &input);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> inputTensorPtr(input, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> inputDeviceAddrPtr(inputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCL, &weight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> weightTensorPtr(weight, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> weightDeviceAddrPtr(weightDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradInputHostData, inputShape, &gradInputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCL, &gradInput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradInputTensorPtr(gradInput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradInputDeviceAddrPtr(gradInputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradWeightHostData, weightShape, &gradWeightDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCL, &gradWeight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradWeightTensorPtr(gradWeight, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradWeightDeviceAddrPtr(gradWeightDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradBiasHostData, biasShape, &gradBiasDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_ND, &gradBias);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradBiasTensorPtr(gradBias, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradBiasDeviceAddrPtr(gradBiasDeviceAddr, aclrtFree);

    std::vector<int64_t> biasSizesData = {Cout}, strideData = {S}, paddingData = {P}, dilationData = {1},
                         outputPaddingData = {OP};
    aclIntArray* biasSizes = aclCreateIntArray(biasSizesData.data(), 1);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> biasSizesPtr(biasSizes, aclDestroyIntArray);
    aclIntArray* stride = aclCreateIntArray(strideData.data(), 1);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> stridePtr(stride, aclDestroyIntArray);
    aclIntArray* padding = aclCreateIntArray(paddingData.data(), 1);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> paddingPtr(padding, aclDestroyIntArray);
    aclIntArray* dilation = aclCreateIntArray(dilationData.data(), 1);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> dilationPtr(dilation, aclDestroyIntArray);
    aclIntArray* outputPadding = aclCreateIntArray(outputPaddingData.data(), 1);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> outputPaddingPtr(outputPadding,
                                                                                       aclDestroyIntArray);
    bool outputMaskData[3] = {true, true, true};
    aclBoolArray* outputMask = aclCreateBoolArray(outputMaskData, 3);
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> outputMaskPtr(outputMask, aclDestroyBoolArray);
    const bool transposed = true;
    const int8_t cubeMathType = 0;

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnConvolutionBackwardGetWorkspaceSize(
        gradOutput, input, weight, biasSizes, stride, padding, dilation, transposed, outputPadding,
        static_cast<int>(groups), outputMask, cubeMathType, gradInput, gradWeight, gradBias, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnConvolutionBackwardGetWorkspaceSize failed. ERROR: %d, %s\n", ret, aclGetRecentErrMsg());
              return ret);
    void* workspaceAddr = nullptr;
    std::unique_ptr<void, aclError (*)(void*)> workspaceAddrPtr(nullptr, aclrtFree);
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
        workspaceAddrPtr.reset(workspaceAddr);
    }
    ret = aclnnConvolutionBackward(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnConvolutionBackward failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<float> dx(GetShapeSize(inputShape)), dw(GetShapeSize(weightShape)), db(Cout);
    ret = aclrtMemcpy(dx.data(), dx.size() * sizeof(float), gradInputDeviceAddr, dx.size() * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return ret);
    aclrtMemcpy(dw.data(), dw.size() * sizeof(float), gradWeightDeviceAddr, dw.size() * sizeof(float),
                ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtMemcpy(db.data(), db.size() * sizeof(float), gradBiasDeviceAddr, db.size() * sizeof(float),
                ACL_MEMCPY_DEVICE_TO_HOST);
    for (size_t i = 0; i < dx.size(); i++) LOG_PRINT("gradInput result[%zu] is: %f\n", i, dx[i]);
    for (size_t i = 0; i < dw.size(); i++) LOG_PRINT("gradWeight result[%zu] is: %f\n", i, dw[i]);
    for (size_t i = 0; i < db.size(); i++) LOG_PRINT("gradBias result[%zu] is: %f\n", i, db[i]);

    // Not in the official sample: the float64 definition of the transposed convolution,
    // y[n, g*CoutG + co, i*S - P + k] += x[n, ci, i] * w[ci, co, k] with g = ci / (Cin / groups).
    std::vector<double> rdx(dx.size(), 0), rdw(dw.size(), 0), rdb(Cout, 0);
    for (int64_t n = 0; n < N; n++)
        for (int64_t ci = 0; ci < Cin; ci++)
            for (int64_t i = 0; i < L; i++)
                for (int64_t co = 0; co < CoutG; co++)
                    for (int64_t k = 0; k < K; k++) {
                        int64_t o = i * S - P + k, g = ci / (Cin / groups);
                        if (o < 0 || o >= Lout) continue;
                        int64_t xi = (n * Cin + ci) * L + i, wi = (ci * CoutG + co) * K + k,
                                yi = (n * Cout + g * CoutG + co) * Lout + o;
                        rdx[xi] += gradOutputHostData[yi] * weightHostData[wi];
                        rdw[wi] += gradOutputHostData[yi] * inputHostData[xi];
                    }
    for (size_t i = 0; i < gradOutputHostData.size(); i++) rdb[(i / Lout) % Cout] += gradOutputHostData[i];
    double worst = 0;
    for (size_t i = 0; i < dx.size(); i++) worst = std::fmax(worst, std::fabs(dx[i] - rdx[i]));
    for (size_t i = 0; i < dw.size(); i++) worst = std::fmax(worst, std::fabs(dw[i] - rdw[i]));
    for (size_t i = 0; i < db.size(); i++) worst = std::fmax(worst, std::fabs(db[i] - rdb[i]));
    LOG_PRINT("max |result - float64| = %g\n", worst);

    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    return worst < 1e-5 ? 0 : 3;
}
