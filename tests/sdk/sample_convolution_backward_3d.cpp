/**
 * An aclnnConvolutionBackward sample (3D, NCDHW) with stride, padding and dilation, in the style
 * of Huawei's operator pages: only the official headers, the official g++ line, float32 with
 * cubeMathType 0 (KEEP_DTYPE, Atlas A2). After printing the results it checks them against a
 * float64 computation written here, so the test can fail.
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

    // input [N, Cin, D, H, W], weight [Cout, Cin, kD, kH, kW]; per axis a the output size is
    // (in + 2 * padding - dilation * (k - 1) - 1) / stride + 1.
    const int64_t N = 1, Cin = 2, Cout = 2, I = 4, K = 2;
    const int64_t S[3] = {1, 2, 2}, P[3] = {1, 1, 1}, Dl[3] = {2, 1, 1};
    int64_t O[3];
    for (int a = 0; a < 3; a++) O[a] = (I + 2 * P[a] - Dl[a] * (K - 1) - 1) / S[a] + 1;
    std::vector<int64_t> inputShape = {N, Cin, I, I, I}, weightShape = {Cout, Cin, K, K, K},
                         gradOutputShape = {N, Cout, O[0], O[1], O[2]};
    std::vector<int64_t> biasShape = {Cout};
    std::vector<float> inputHostData(GetShapeSize(inputShape)), weightHostData(GetShapeSize(weightShape)),
        gradOutputHostData(GetShapeSize(gradOutputShape));
    for (size_t i = 0; i < inputHostData.size(); i++) inputHostData[i] = 0.1f * (static_cast<int>(i % 11) - 5);
    for (size_t i = 0; i < weightHostData.size(); i++) weightHostData[i] = 0.25f * (static_cast<int>(i % 7) - 3);
    for (size_t i = 0; i < gradOutputHostData.size(); i++) gradOutputHostData[i] = 0.5f * (static_cast<int>(i % 5) - 2);
    std::vector<float> gradInputHostData(GetShapeSize(inputShape), 0), gradWeightHostData(GetShapeSize(weightShape), 0),
        gradBiasHostData(Cout, 0);

    void *gradOutputDeviceAddr = nullptr, *inputDeviceAddr = nullptr, *weightDeviceAddr = nullptr,
         *gradInputDeviceAddr = nullptr, *gradWeightDeviceAddr = nullptr, *gradBiasDeviceAddr = nullptr;
    aclTensor *gradOutput = nullptr, *input = nullptr, *weight = nullptr, *gradInput = nullptr, *gradWeight = nullptr,
              *gradBias = nullptr;
    ret = CreateAclTensor(gradOutputHostData, gradOutputShape, &gradOutputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCDHW, &gradOutput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradOutputTensorPtr(gradOutput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradOutputDeviceAddrPtr(gradOutputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(inputHostData, inputShape, &inputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCDHW, &input);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> inputTensorPtr(input, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> inputDeviceAddrPtr(inputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCDHW, &weight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> weightTensorPtr(weight, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> weightDeviceAddrPtr(weightDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradInputHostData, inputShape, &gradInputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCDHW, &gradInput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradInputTensorPtr(gradInput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradInputDeviceAddrPtr(gradInputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradWeightHostData, weightShape, &gradWeightDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCDHW, &gradWeight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradWeightTensorPtr(gradWeight, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradWeightDeviceAddrPtr(gradWeightDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradBiasHostData, biasShape, &gradBiasDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_ND, &gradBias);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradBiasTensorPtr(gradBias, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradBiasDeviceAddrPtr(gradBiasDeviceAddr, aclrtFree);

    std::vector<int64_t> biasSizesData = {Cout}, strideData = {S[0], S[1], S[2]}, paddingData = {P[0], P[1], P[2]},
                         dilationData = {Dl[0], Dl[1], Dl[2]}, outputPaddingData = {0, 0, 0};
    aclIntArray* biasSizes = aclCreateIntArray(biasSizesData.data(), 1);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> biasSizesPtr(biasSizes, aclDestroyIntArray);
    aclIntArray* stride = aclCreateIntArray(strideData.data(), 3);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> stridePtr(stride, aclDestroyIntArray);
    aclIntArray* padding = aclCreateIntArray(paddingData.data(), 3);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> paddingPtr(padding, aclDestroyIntArray);
    aclIntArray* dilation = aclCreateIntArray(dilationData.data(), 3);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> dilationPtr(dilation, aclDestroyIntArray);
    aclIntArray* outputPadding = aclCreateIntArray(outputPaddingData.data(), 3);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> outputPaddingPtr(outputPadding,
                                                                                       aclDestroyIntArray);
    bool outputMaskData[3] = {true, true, true};
    aclBoolArray* outputMask = aclCreateBoolArray(outputMaskData, 3);
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> outputMaskPtr(outputMask, aclDestroyBoolArray);
    const bool transposed = false;
    const int8_t cubeMathType = 0;
    const int groups = 1;

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnConvolutionBackwardGetWorkspaceSize(gradOutput, input, weight, biasSizes, stride, padding, dilation,
                                                   transposed, outputPadding, groups, outputMask, cubeMathType,
                                                   gradInput, gradWeight, gradBias, &workspaceSize, &executor);
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

    // Not in the official sample: the float64 definition,
    // y[n, co, o] += x[n, ci, o*S - P + k*Dl] * w[co, ci, k] per axis.
    std::vector<double> rdx(dx.size(), 0), rdw(dw.size(), 0), rdb(Cout, 0);
    for (int64_t n = 0; n < N; n++)
        for (int64_t co = 0; co < Cout; co++)
            for (int64_t od = 0; od < O[0]; od++)
                for (int64_t oh = 0; oh < O[1]; oh++)
                    for (int64_t ow = 0; ow < O[2]; ow++) {
                        double g = gradOutputHostData[(((n * Cout + co) * O[0] + od) * O[1] + oh) * O[2] + ow];
                        rdb[co] += g;
                        for (int64_t ci = 0; ci < Cin; ci++)
                            for (int64_t kd = 0; kd < K; kd++)
                                for (int64_t kh = 0; kh < K; kh++)
                                    for (int64_t kw = 0; kw < K; kw++) {
                                        int64_t id = od * S[0] - P[0] + kd * Dl[0], ih = oh * S[1] - P[1] + kh * Dl[1],
                                                iw = ow * S[2] - P[2] + kw * Dl[2];
                                        if (id < 0 || id >= I || ih < 0 || ih >= I || iw < 0 || iw >= I) continue;
                                        int64_t xi = (((n * Cin + ci) * I + id) * I + ih) * I + iw;
                                        int64_t wi = (((co * Cin + ci) * K + kd) * K + kh) * K + kw;
                                        rdx[xi] += g * weightHostData[wi];
                                        rdw[wi] += g * inputHostData[xi];
                                    }
                    }
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
