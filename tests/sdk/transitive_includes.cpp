// Compiles only if OpScope's public headers provide what CANN's provide to a program that
// includes nothing else but what Huawei's operator samples include: std::array from
// aclnn_group_norm_backward.h, the ACLNN_API export macro from the operator headers, the fixed
// width integer types and malloc/free from the aclnn base headers, the enum names both scoped
// and unscoped. Built by run_samples.sh with the official g++ line; prints "transitive includes: ok".
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

// A program's own wrapper declared the way CANN's headers declare theirs.
extern "C" ACLNN_API aclnnStatus myWrappedCall(aclOpExecutor* executor);
aclnnStatus myWrappedCall(aclOpExecutor*) { return ACLNN_SUCCESS; }

int main() {
    std::array<bool, 3> outputMask = {true, true, false};  // <array> comes with the GroupNorm header
    std::int64_t dims[1] = {4};
    std::uint64_t workspaceSize = 0;
    std::size_t bytes = static_cast<std::size_t>(dims[0]) * sizeof(float);
    void* scratch = std::malloc(bytes);
    std::free(scratch);
    aclDataType dtype = aclDataType::ACL_FLOAT;
    aclFormat format = aclFormat::ACL_FORMAT_ND;
    if (aclInit(nullptr) != ACL_SUCCESS) return 1;
    aclBoolArray* mask = aclCreateBoolArray(outputMask.data(), outputMask.size());
    void* dev = nullptr;
    if (aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
    aclTensor* t = aclCreateTensor(dims, 1, dtype, nullptr, 0, format, dims, 1, dev);
    const bool ok = mask && t && myWrappedCall(nullptr) == ACLNN_SUCCESS && workspaceSize == 0;
    aclDestroyTensor(t);
    aclDestroyBoolArray(mask);
    aclrtFree(dev);
    aclFinalize();
    printf("transitive includes: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
