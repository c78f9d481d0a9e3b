// Running a case: bind it to its operator (tensors by aclnn argument name, parameters as
// attributes), run the prepared executor, compute the float64 golden reference from the same
// inputs, and compare every output with the golden and with the case's own sources.
//
// Self-contained on purpose (operators, core, metrics; no CLI helpers): the bundled-dataset
// test compiles this file too, so CTest holds the operators to exactly what the CLI runs.
#pragma once

#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/metrics.h"
#include "opscope/ops/evaluation.h"
#include "opscope/ops/operator.h"

namespace opscope::ops {

struct RunSettings {
    DType dtype = DType::Undefined;               // --dtype: cast floating inputs; Undefined = as stored
    const metrics::Standard* standard = nullptr;  // --standard; null = the case's, else the operator's default
};

struct OutputSummary {
    std::string name;
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
};

struct CaseResult {
    std::string file, path, op, origin, description;
    DType caseDtype = DType::Undefined;  // the stored inputs' dtype (first floating tensor argument)
    DType runDtype = DType::Undefined;   // after --dtype
    std::string standard;                // the standard's name
    std::string error;                   // non-empty: the case could not be run
    std::vector<OutputSummary> outputs;
    std::vector<Comparison> comparisons;
    std::vector<std::string> notes;                   // sources or outputs not compared, and why
    std::optional<OtherArithmetic> deviceArithmetic;  // a failing device passes in this arithmetic
    double runMs = 0, goldenMs = 0;

    bool ok() const { return error.empty(); }
    // Ran, every output was compared, and every judged comparison passed its standard.
    bool passed() const;
    // The device verdict of its comparisons (ops::deviceVerdict); NoDevice when it did not run.
    DeviceVerdict deviceVerdict() const;
};

// The case's inputs and parameters as operator arguments. Parameters of a replayed trace that
// the operator's schema does not know (the recorded "dtype") are left out. Throws
// ops::ArgumentError naming what does not fit.
OpArguments bindArguments(const Operator& op, const cases::Case& c);
// The other way: a case at `path` of `op` holding `args` (tensors as inputs, attributes as
// parameters), no sources: a call the debugger set up, stored as a case.
cases::Case caseOfArguments(const Operator& op, const OpArguments& args, const std::string& path);

// Never throws: what goes wrong is one sentence in CaseResult::error.
CaseResult runCase(const cases::Case& c, const std::string& file, const RunSettings& settings);

// "unknown operator 'x' (registered: a, b)" for messages.
std::string unknownOperatorMessage(const std::string& name);

}  // namespace opscope::ops
