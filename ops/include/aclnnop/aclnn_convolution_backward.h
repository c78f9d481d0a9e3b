/* aclnnConvolutionBackward: gradients of a 1D/2D/3D (transposed) convolution (OpScope CPU emulation). */
#ifndef OPSCOPE_ACLNNOP_ACLNN_CONVOLUTION_BACKWARD_H_
#define OPSCOPE_ACLNNOP_ACLNN_CONVOLUTION_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnConvolutionBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* input, const aclTensor* weight, const aclIntArray* biasSizes,
    const aclIntArray* stride, const aclIntArray* padding, const aclIntArray* dilation, bool transposed,
    const aclIntArray* outputPadding, int groups, const aclBoolArray* outputMask, int8_t cubeMathType,
    aclTensor* gradInput, aclTensor* gradWeight, aclTensor* gradBias, uint64_t* workspaceSize,
    aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnConvolutionBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                               const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPSCOPE_ACLNNOP_ACLNN_CONVOLUTION_BACKWARD_H_ */
