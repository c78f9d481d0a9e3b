// Summary statistics of a tensor, as shown per step in traces and the debugger.
#pragma once

#include <cstdint>

#include "opscope/tensor_view.h"

namespace opscope {

struct TensorStats {
    int64_t count = 0;
    int64_t finiteCount = 0;
    int64_t nanCount = 0;
    int64_t infCount = 0;
    double min = 0, max = 0;  // over finite values (0 when there are none)
    double mean = 0;          // mean of finite values
    double meanAbs = 0;       // mean |x| of finite values
};

// Any dtype, any strides; accumulates in double.
TensorStats computeStats(const TensorView& v);

}  // namespace opscope
