// libFuzzer target: phase 1 (XxxGetWorkspaceSize) of the four operators, with tensor shapes,
// dtypes, formats and attributes decoded from the input. The first byte picks the operator.
// Tensors are contiguous views over real aclrtMalloc blocks (small: dims up to 8, rank up to
// 5), sometimes null; attributes are small numbers or edge values (0, -1, INT32/INT64 limits).
// Phase 1 must answer with a status code; a crash, a sanitizer report or a huge allocation is
// a finding. Phase 2 never runs.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

namespace {

constexpr aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,      ACL_DOUBLE,     ACL_INT8,        ACL_INT32,
                                   ACL_UINT8, ACL_INT16,   ACL_UINT16,    ACL_UINT32,     ACL_INT64,       ACL_UINT64,
                                   ACL_BOOL,  ACL_STRING,  ACL_COMPLEX64, ACL_COMPLEX128, ACL_DT_UNDEFINED};
constexpr aclFormat kFormats[] = {ACL_FORMAT_ND,      ACL_FORMAT_NCHW,      ACL_FORMAT_NHWC,     ACL_FORMAT_NCL,
                                  ACL_FORMAT_NCDHW,   ACL_FORMAT_NC,        ACL_FORMAT_NDHWC,    ACL_FORMAT_HWCN,
                                  ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_UNDEFINED};
constexpr int64_t kEdges[] = {0,
                              -1,
                              1,
                              2,
                              8000,
                              8001,
                              std::numeric_limits<int32_t>::max(),
                              std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min(),
                              int64_t{1} << 31,
                              int64_t{1} << 62};

// Owns what one input creates, destroyed in reverse at the end.
class Call {
public:
    explicit Call(FuzzedDataProvider& in) : in_(in) {}
    ~Call() {
        for (const aclTensor* t : tensors_) aclDestroyTensor(t);
        for (const aclIntArray* a : intArrays_) aclDestroyIntArray(a);
        for (const aclBoolArray* a : boolArrays_) aclDestroyBoolArray(a);
        for (void* p : blocks_) aclrtFree(p);
    }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    int64_t number() {
        const uint8_t pick = in_.ConsumeIntegral<uint8_t>();
        if (pick < 200) return static_cast<int64_t>(pick % 12) - 1;  // -1 .. 10
        return in_.PickValueInArray(kEdges);
    }

    aclTensor* tensor() {
        if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) return nullptr;
        const std::size_t rank = in_.ConsumeIntegralInRange<std::size_t>(0, 5);
        std::vector<int64_t> dims(rank), strides(rank);
        int64_t numel = 1;
        for (int64_t& d : dims) {
            d = in_.ConsumeIntegralInRange<int64_t>(0, 8);
            numel *= d;
        }
        int64_t stride = 1;
        for (std::size_t i = rank; i-- > 0;) {
            strides[i] = stride;
            stride *= dims[i] > 0 ? dims[i] : 1;
        }
        const aclDataType dtype = in_.PickValueInArray(kDtypes);
        const aclFormat format = in_.PickValueInArray(kFormats);
        void* block = nullptr;
        const std::size_t bytes = static_cast<std::size_t>(numel > 0 ? numel : 1) * 16;  // any element size
        if (aclrtMalloc(&block, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != 0) return nullptr;
        blocks_.push_back(block);
        const int64_t storage = numel;
        aclTensor* t = aclCreateTensor(dims.data(), rank, dtype, strides.data(), 0, format, &storage, 1, block);
        if (t) tensors_.push_back(t);
        return t;
    }

    aclIntArray* intArray() {
        if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) return nullptr;
        std::vector<int64_t> v(in_.ConsumeIntegralInRange<std::size_t>(0, 4));
        for (int64_t& x : v) x = number();
        aclIntArray* a = aclCreateIntArray(v.data(), v.size());
        if (a) intArrays_.push_back(a);
        return a;
    }

    aclBoolArray* boolArray() {
        if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) return nullptr;
        bool v[4] = {};
        const std::size_t n = in_.ConsumeIntegralInRange<std::size_t>(0, 4);
        for (std::size_t i = 0; i < n; ++i) v[i] = in_.ConsumeBool();
        aclBoolArray* a = aclCreateBoolArray(v, n);
        if (a) boolArrays_.push_back(a);
        return a;
    }

    void finish(aclnnStatus status, aclOpExecutor* executor) {
        if (status == 0 && executor) aclDestroyAclOpExecutor(executor);
    }

private:
    FuzzedDataProvider& in_;
    std::vector<const aclTensor*> tensors_;
    std::vector<const aclIntArray*> intArrays_;
    std::vector<const aclBoolArray*> boolArrays_;
    std::vector<void*> blocks_;
};

void groupNorm(FuzzedDataProvider& in) {
    Call c(in);
    aclTensor *gradOut = c.tensor(), *input = c.tensor(), *mean = c.tensor(), *rstd = c.tensor(), *gamma = c.tensor();
    const int64_t n = c.number(), ch = c.number(), hxw = c.number(), group = c.number();
    aclBoolArray* mask = c.boolArray();
    aclTensor *dx = c.tensor(), *dgamma = c.tensor(), *dbeta = c.tensor();
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    c.finish(aclnnGroupNormBackwardGetWorkspaceSize(gradOut, input, mean, rstd, gamma, n, ch, hxw, group, mask, dx,
                                                    dgamma, dbeta, &ws, &ex),
             ex);
}

void rmsNorm(FuzzedDataProvider& in) {
    Call c(in);
    aclTensor *dy = c.tensor(), *x = c.tensor(), *rstd = c.tensor(), *gamma = c.tensor(), *dx = c.tensor(),
              *dgamma = c.tensor();
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    c.finish(aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dx, dgamma, &ws, &ex), ex);
}

void gridSampler(FuzzedDataProvider& in) {
    Call c(in);
    aclTensor *gradOut = c.tensor(), *input = c.tensor(), *grid = c.tensor();
    const int64_t interpolation = c.number(), padding = c.number();
    const bool align = in.ConsumeBool();
    aclBoolArray* mask = c.boolArray();
    aclTensor *inputGrad = c.tensor(), *gridGrad = c.tensor();
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    c.finish(aclnnGridSampler2DBackwardGetWorkspaceSize(gradOut, input, grid, interpolation, padding, align, mask,
                                                        inputGrad, gridGrad, &ws, &ex),
             ex);
}

void convolution(FuzzedDataProvider& in) {
    Call c(in);
    aclTensor *gradOut = c.tensor(), *input = c.tensor(), *weight = c.tensor();
    aclIntArray *biasSizes = c.intArray(), *stride = c.intArray(), *padding = c.intArray(), *dilation = c.intArray();
    const bool transposed = in.ConsumeBool();
    aclIntArray* outputPadding = c.intArray();
    const int groups = static_cast<int>(c.number());
    aclBoolArray* mask = c.boolArray();
    const int8_t cubeMathType = static_cast<int8_t>(c.number());
    aclTensor *gradInput = c.tensor(), *gradWeight = c.tensor(), *gradBias = c.tensor();
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    c.finish(aclnnConvolutionBackwardGetWorkspaceSize(gradOut, input, weight, biasSizes, stride, padding, dilation,
                                                      transposed, outputPadding, groups, mask, cubeMathType, gradInput,
                                                      gradWeight, gradBias, &ws, &ex),
             ex);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const bool ready = aclInit(nullptr) == 0 && aclrtSetDevice(0) == 0;
    if (!ready) __builtin_trap();
    FuzzedDataProvider in(data, size);
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: groupNorm(in); break;
        case 1: rmsNorm(in); break;
        case 2: gridSampler(in); break;
        default: convolution(in); break;
    }
    return 0;
}
