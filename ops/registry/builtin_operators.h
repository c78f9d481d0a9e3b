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

// Runs phase 1, `getWorkspaceSize(&workspaceSize, &executor)` returning its status, and hands
// the result to the call (which throws on a failing status).
template <class GetWorkspaceSize>
std::unique_ptr<PreparedCall> finishPrepare(std::unique_ptr<PreparedCall> call, GetWorkspaceSize getWorkspaceSize) {
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    const int32_t status = getWorkspaceSize(&workspaceSize, &executor);
    call->finishPhase1(status, workspaceSize, executor);
    return call;
}

}  // namespace opscope::ops
