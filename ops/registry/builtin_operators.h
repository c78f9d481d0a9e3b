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

// For the operators' prepare(): whether the output mask asks for output i (a short mask
// leaves the rest off).
inline bool maskSelects(const std::vector<bool>& mask, std::size_t i) { return i < mask.size() && mask[i]; }

}  // namespace opscope::ops
