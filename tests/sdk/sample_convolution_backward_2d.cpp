/**
 * An aclnnConvolutionBackward sample (2D, NCHW) in the style of Huawei's operator pages: it
 * includes only the official headers and is built with the official g++ line. cubeMathType 1
 * (ALLOW_FP32_DOWN_PRECISION) computes float32 in HF32 on Atlas A2; the inputs are multiples of
 * 1/4, exact in HF32, so the results are exact. After printing them it checks them against a
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

    // input [N, Cin, H, W], weight [Cout, Cin, kH, kW], stride 1, padding 1: gradOutput [N, Cout, H, W].
    const int64_t N = 2, Cin = 2, H = 4, W = 4, Cout = 3, K = 3;
    std::vector<int64_t> inputShape = {N, Cin, H, W}, weightShape = {Cout, Cin, K, K},
                         gradOutputShape = {N, Cout, H, W};
    std::vector<int64_t> biasShape = {Cout};
    std::vector<float> inputHostData(GetShapeSize(inputShape)), weightHostData(GetShapeSize(weightShape)),
        gradOutputHostData(GetShapeSize(gradOutputShape));
    for (size_t i = 0; i < inputHostData.size(); i++) inputHostData[i] = (static_cast<int>(i % 7) - 3) * 0.25f;
    for (size_t i = 0; i < weightHostData.size(); i++) weightHostData[i] = (static_cast<int>(i % 5) - 2) * 0.5f;
    for (size_t i = 0; i < gradOutputHostData.size(); i++)
        gradOutputHostData[i] = (static_cast<int>(i % 4) - 1) * 0.75f;
    std::vector<float> gradInputHostData(GetShapeSize(inputShape), 0), gradWeightHostData(GetShapeSize(weightShape), 0),
        gradBiasHostData(Cout, 0);

    void *gradOutputDeviceAddr = nullptr, *inputDeviceAddr = nullptr, *weightDeviceAddr = nullptr,
         *gradInputDeviceAddr = nullptr, *gradWeightDeviceAddr = nullptr, *gradBiasDeviceAddr = nullptr;
    aclTensor *gradOutput = nullptr, *input = nullptr, *weight = nullptr, *gradInput = nullptr, *gradWeight = nullptr,
              *gradBias = nullptr;
    ret = CreateAclTensor(gradOutputHostData, gradOutputShape, &gradOutputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCHW, &gradOutput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradOutputTensorPtr(gradOutput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradOutputDeviceAddrPtr(gradOutputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(inputHostData, inputShape, &inputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCHW, &input);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> inputTensorPtr(input, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> inputDeviceAddrPtr(inputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCHW, &weight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> weightTensorPtr(weight, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> weightDeviceAddrPtr(weightDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradInputHostData, inputShape, &gradInputDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCHW, &gradInput);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradInputTensorPtr(gradInput, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradInputDeviceAddrPtr(gradInputDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradWeightHostData, weightShape, &gradWeightDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_NCHW, &gradWeight);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradWeightTensorPtr(gradWeight, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradWeightDeviceAddrPtr(gradWeightDeviceAddr, aclrtFree);
    ret = CreateAclTensor(gradBiasHostData, biasShape, &gradBiasDeviceAddr, aclDataType::ACL_FLOAT,
                          aclFormat::ACL_FORMAT_ND, &gradBias);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)> gradBiasTensorPtr(gradBias, aclDestroyTensor);
    std::unique_ptr<void, aclError (*)(void*)> gradBiasDeviceAddrPtr(gradBiasDeviceAddr, aclrtFree);

    std::vector<int64_t> biasSizesData = {Cout}, strideData = {1, 1}, paddingData = {1, 1}, dilationData = {1, 1},
                         outputPaddingData = {0, 0};
    aclIntArray* biasSizes = aclCreateIntArray(biasSizesData.data(), 1);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> biasSizesPtr(biasSizes, aclDestroyIntArray);
    aclIntArray* stride = aclCreateIntArray(strideData.data(), 2);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> stridePtr(stride, aclDestroyIntArray);
    aclIntArray* padding = aclCreateIntArray(paddingData.data(), 2);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> paddingPtr(padding, aclDestroyIntArray);
    aclIntArray* dilation = aclCreateIntArray(dilationData.data(), 2);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> dilationPtr(dilation, aclDestroyIntArray);
    aclIntArray* outputPadding = aclCreateIntArray(outputPaddingData.data(), 2);
    std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> outputPaddingPtr(outputPadding,
                                                                                       aclDestroyIntArray);
    bool outputMaskData[3] = {true, true, true};
    aclBoolArray* outputMask = aclCreateBoolArray(outputMaskData, 3);
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> outputMaskPtr(outputMask, aclDestroyBoolArray);
    const bool transposed = false;
    const int groups = 1;
    const int8_t cubeMathType = 1;

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

    // Not in the official sample: the float64 definition, y[n,co,oh,ow] += x[n,ci,oh-1+kh,ow-1+kw] * w[co,ci,kh,kw].
    std::vector<double> rdx(dx.size(), 0), rdw(dw.size(), 0), rdb(Cout, 0);
    for (int64_t n = 0; n < N; n++)
        for (int64_t co = 0; co < Cout; co++)
            for (int64_t oh = 0; oh < H; oh++)
                for (int64_t ow = 0; ow < W; ow++) {
                    double g = gradOutputHostData[((n * Cout + co) * H + oh) * W + ow];
                    rdb[co] += g;
                    for (int64_t ci = 0; ci < Cin; ci++)
                        for (int64_t kh = 0; kh < K; kh++)
                            for (int64_t kw = 0; kw < K; kw++) {
                                int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                int64_t xi = ((n * Cin + ci) * H + ih) * W + iw,
                                        wi = ((co * Cin + ci) * K + kh) * K + kw;
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
