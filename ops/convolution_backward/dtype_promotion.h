// The "higher precision of the two" rule of aclnnConvolutionBackward's output dtypes (PyTorch's
// and CANN's promotion): equal dtypes stay, the more precise one wins, fp16 with bf16 gives fp32.
// The one promotion rule: the front end checks gradInput/gradWeight with it and the registry
// creates those outputs with it.
#pragma once

#include "opscope/dtype.h"

namespace opscope::conv {

inline int precisionRank(DType t) {
    switch (t) {
        case DType::Float64: return 4;
        case DType::Float32: return 3;
        case DType::BFloat16: return 2;  // bf16 with fp16 promotes to float32 (neither holds the other)
        case DType::Float16: return 2;
        default: return 0;
    }
}

inline DType promoteDtype(DType a, DType b) {
    if (a == b) return a;
    if (precisionRank(a) == precisionRank(b)) return DType::Float32;
    return precisionRank(a) > precisionRank(b) ? a : b;
}

}  // namespace opscope::conv
