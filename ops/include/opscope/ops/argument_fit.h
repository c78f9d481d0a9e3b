// Whether a dataset can be a tensor argument, from its dtype and shape and the tensors bound
// so far: what the debugger's "Bind to" menu shows beside each argument. The rules are the
// operators' plain expectations (ranks, shapes shared between arguments, floating dtypes),
// not every check of phase 1, which still has the last word.
#pragma once

#include <string>
#include <vector>

#include "opscope/dtype.h"
#include "opscope/ops/attribute_defaults.h"

namespace opscope::ops {

// "" when the tensor fits `argument`, else one phrase saying why not ("rank 2, expects 3-D to
// 5-D", "shape [4, 5] differs from x [2, 3]"). `bound` holds the other arguments' shapes (an
// entry for `argument` itself is ignored: binding replaces it).
std::string argumentMismatch(const OpSchema& schema, const std::string& argument, DType dtype,
                             const std::vector<int64_t>& shape, const TensorShapes& bound);

}  // namespace opscope::ops
