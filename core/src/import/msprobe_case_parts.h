// The pieces every msprobe mapping builds a case from (private to import/): the case with its
// device source, its floating inputs, the device's gradients, one value per spatial axis.
// msprobe_mappings.cpp maps the PyTorch calls, msprobe_aten.cpp the aten backward ops.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "msprobe_call.h"

namespace opscope::import::msprobe::detail {

// Starts a case with the device's gradients as the source "npu".
cases::Case newCase(const Call& call, const char* op);

struct DumpedInput {
    const char* name;  // the operator's argument
    const json* tensor;
    const char* what;  // for messages
};

// Reads the case's inputs from the dump, then requires each to be a floating type the operator takes.
void addFloatingInputs(cases::Case& c, const Call& call, std::initializer_list<DumpedInput> inputs);

// Reads an optional device gradient into the "npu" source; returns whether it is there.
bool addGradient(cases::Case& c, const Call& call, const json* g, const char* output, const std::string& what);

// `v` for each of `spatial` axes: as given, or its one value repeated.
std::vector<int64_t> perDim(const std::vector<int64_t>& v, std::size_t spatial, const std::string& what);

}  // namespace opscope::import::msprobe::detail
