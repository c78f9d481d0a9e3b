// The operators OpScope ships, in one list (static libraries drop self-registering objects,
// so registration is explicit).
#include "builtin_operators.h"

namespace opscope::ops {

std::vector<const Operator*> builtinOperators() {
    return {
        &groupNormBackwardOperator(),
        &rmsNormGradOperator(),
        &gridSampler2DBackwardOperator(),
        &convolutionBackwardOperator(),
    };
}

}  // namespace opscope::ops
