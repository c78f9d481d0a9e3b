/* OpScope CPU emulation of AscendCL: the umbrella header NPU samples include. */
#ifndef OPSCOPE_ACL_ACL_H_
#define OPSCOPE_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"
#include "../aclnn/acl_meta.h"

#endif /* OPSCOPE_ACL_ACL_H_ */
