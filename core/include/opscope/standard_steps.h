// The device's data-movement steps, shared by every operator plan: Contiguous (strided ->
// dense), Cast (dtype change, round to nearest even), ViewCopy (dense -> the caller's strided
// output) and ZeroFill. Each adds scratch only when it is needed.
#pragma once

#include "opscope/plan.h"

namespace opscope {

// A slot holding the input's values densely in `want`; `input` itself when it already is.
int materializeInput(Plan& plan, int input, DType want);

// Where a kernel should write an output computed in `computeDtype`: the caller's tensor when
// it is dense and of that dtype, else a scratch tensor that deliverOutput() copies back.
struct OutputTarget {
    int user = -1;
    int compute = -1;
};
OutputTarget prepareOutput(Plan& plan, int userOutput, DType computeDtype);
void deliverOutput(Plan& plan, const OutputTarget& target);

void addZeroFill(Plan& plan, int slot);

}  // namespace opscope
