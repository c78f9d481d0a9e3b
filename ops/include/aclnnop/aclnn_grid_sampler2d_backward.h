/* aclnnGridSampler2DBackward: gradients of 2-D grid sampling (OpScope CPU emulation). */
#ifndef OPSCOPE_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H_
#define OPSCOPE_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* interpolationMode: 0 bilinear, 1 nearest, 2 bicubic; paddingMode: 0 zeros, 1 border, 2 reflection. */
ACLNN_API aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* input,
                                                                 const aclTensor* grid, int64_t interpolationMode,
                                                                 int64_t paddingMode, bool alignCorners,
                                                                 const aclBoolArray* outputMask, aclTensor* inputGrad,
                                                                 aclTensor* gridGrad, uint64_t* workspaceSize,
                                                                 aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnGridSampler2DBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPSCOPE_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H_ */
