// Copies between strided views with dtype conversion: the work of the Contiguous, Cast and
// ViewCopy steps. Shapes must match; any rank 0..8; parallel over the outer elements.
#pragma once

#include "opscope/tensor_view.h"

namespace opscope {

void copyConvert(const TensorView& src, const TensorView& dst);
// Sets every element of a view to zero.
void fillZero(const TensorView& dst);

}  // namespace opscope
