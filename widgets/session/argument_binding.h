// Operator arguments as the form edits them, how a case fills them, and which argument an
// aclnn error message blames. Pure functions over the operator schema: tested without a window.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/ops/operator.h"

namespace opscope::gui {

struct TensorBinding {
    std::string origin;  // where it came from: "/case/inputs/x", a dataset path, ...
    HostTensor tensor;
};

// The form's state: tensors bound so far and every attribute's value.
struct ArgumentState {
    std::map<std::string, TensorBinding> tensors;
    std::map<std::string, ParamValue> attributes;

    ops::OpArguments toOpArguments() const;
};

// Every attribute at its schema default, no tensors.
ArgumentState defaultArguments(const ops::OpSchema& schema);

// The case's inputs and parameters bound to the schema. Enum parameters given as names
// ("bilinear") become their index; parameters the schema does not know are reported in
// `notes` (one sentence each) and skipped, as are inputs it does not know.
ArgumentState argumentsFromCase(const ops::OpSchema& schema, const cases::Case& c, std::vector<std::string>* notes);

// The arguments of `now` that differ from `loaded`, in name order: an attribute with another
// value, a tensor bound to other data, bound or unbound since. A case's stored outputs (a
// device's gradients, an expected result) belong to its arguments as loaded.
std::vector<std::string> changedArguments(const ArgumentState& loaded, const ArgumentState& now);

// A tensor from a numpy or PyTorch file, named as on opscope-cli's command line ("x.npy",
// "d.npz:key", "w.pt"), read by the CLI's readers (import/tensor_file.h); the spec is its origin.
// Throws import::FormatError naming the file. Runs on a worker thread.
TensorBinding bindingFromFileOnWorker(const std::string& spec);

// The schema argument an error message is about: the earliest whole-word mention of a tensor
// or attribute name after the "aclnnXxxGetWorkspaceSize: " prefix (an output name counts as
// the output-mask argument when it is not itself an argument). "" when none is named.
std::string faultyArgument(const ops::OpSchema& schema, const std::string& message);

// The message without "[161002] " and "aclnnXxxGetWorkspaceSize: ": what to show beside the argument.
std::string stripMessagePrefix(const std::string& message);

}  // namespace opscope::gui
