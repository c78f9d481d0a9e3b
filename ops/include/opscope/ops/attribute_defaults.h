// What the bound tensors' shapes say about an operator's attributes, so a form can prefill
// them: ConvolutionBackward's stride/padding/dilation/outputPadding get one value per spatial
// dimension of the input (rank - 2; the weight's when no input is bound) and groups stays;
// GroupNormBackward's N, C and HxW come from the input's shape (gradOut's when no input is
// bound) and group is kept but checked against C and mean. RmsNormGrad and
// GridSampler2DBackward have no attribute that follows from shapes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "opscope/ops/operator.h"

namespace opscope::ops {

using TensorShapes = std::map<std::string, std::vector<int64_t>>;

struct ImpliedAttributes {
    std::map<std::string, ParamValue> values;  // every attribute the shapes determine
    std::vector<std::string> notes;            // kept values the shapes contradict, one sentence each
};

// `attributes` are the current values (absent ones are the schema defaults); values that
// already fit (a 2-D convolution's four paddings) are returned unchanged.
ImpliedAttributes impliedAttributes(const OpSchema& schema, const TensorShapes& shapes,
                                    const std::map<std::string, ParamValue>& attributes);

}  // namespace opscope::ops
