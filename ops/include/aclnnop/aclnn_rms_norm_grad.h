/* aclnnRmsNormGrad: gradients of RmsNorm (OpScope CPU emulation). */
#ifndef OPSCOPE_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_
#define OPSCOPE_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The outputs are const aclTensor* as in the official prototype; they are written all the same. */
ACLNN_API aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd,
                                                       const aclTensor* gamma, const aclTensor* dxOut,
                                                       const aclTensor* dgammaOut, uint64_t* workspaceSize,
                                                       aclOpExecutor** executor);

ACLNN_API aclnnStatus aclnnRmsNormGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OPSCOPE_ACLNNOP_ACLNN_RMS_NORM_GRAD_H_ */
