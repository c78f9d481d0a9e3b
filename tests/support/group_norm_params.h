// The parameters of an aclnnGroupNormBackward case as case files store them: the one list
// the case-file and widget tests build their GroupNorm cases from.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "opscope/executor.h"

namespace opscope::fixtures {

inline std::vector<Param> groupNormParams(int64_t N, int64_t C, int64_t HxW, int64_t group,
                                          std::vector<bool> outputMask = {true, true, true}) {
    return {{"N", N}, {"C", C}, {"HxW", HxW}, {"group", group}, {"outputMask", std::move(outputMask)}};
}

}  // namespace opscope::fixtures
