#pragma once

#include <vector>

#include "opscope/ops/operator.h"

namespace opscope::ops {

// Defined in ops/<op>/<op>_operator.cpp.
const Operator& groupNormBackwardOperator();
const Operator& rmsNormGradOperator();
const Operator& gridSampler2DBackwardOperator();
const Operator& convolutionBackwardOperator();

std::vector<const Operator*> builtinOperators();

}  // namespace opscope::ops
