/* OpScope CPU emulation: what every aclnnop/ operator header includes. */
#ifndef OPSCOPE_ACLNN_ACLNN_BASE_H_
#define OPSCOPE_ACLNN_ACLNN_BASE_H_

#include "../acl/acl_base.h"
#include "../acl/acl_rt.h"
#include "acl_meta.h"

#endif /* OPSCOPE_ACLNN_ACLNN_BASE_H_ */
