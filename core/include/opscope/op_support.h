// What every operator front end uses: argument checks that produce aclnn codes with
// messages naming the argument and the values seen, and the two C entry-point wrappers.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "opscope/error.h"
#include "opscope/launch_memory.h"
#include "opscope/objects.h"
#include "opscope/product.h"
#include "opscope/trace.h"

namespace opscope {

// 161001 when null; 161002 when not a live aclTensor.
const TensorView& requireTensor(const aclTensor* t, const char* name);
// Null allowed (returns nullptr); otherwise as requireTensor.
const TensorView* optionalTensor(const aclTensor* t, const char* name);
const std::vector<bool>& requireBoolArray(const aclBoolArray* a, const char* name);
const std::vector<int64_t>& requireIntArray(const aclIntArray* a, const char* name);
const std::vector<int64_t>* optionalIntArray(const aclIntArray* a, const char* name);

// One tensor argument of an operator: where the raw arguments hold it, where the validated
// problem keeps its view, and the name messages use. An operator that checks all its tensors
// alike lists them once, in signature order, and runs each per-tensor rule over the list.
template <class Args, class Problem>
struct TensorArgument {
    const aclTensor* Args::*arg;
    const TensorView* Problem::*view;
    const char* name;
};

// requireTensor for each, in order, keeping each view in the problem.
template <class Args, class Problem, std::size_t N>
void requireTensors(const TensorArgument<Args, Problem> (&tensors)[N], const Args& a, Problem& p) {
    for (const auto& t : tensors) p.*t.view = &requireTensor(a.*t.arg, t.name);
}

std::string dtypeList(const std::vector<DType>& types);
// 161002 "<name> dtype X is not supported on <product>: expected one of ..."
void checkDtypeIn(const TensorView& v, const char* name, const std::vector<DType>& allowed, Product p);
// 161002 "<name> dtype X must equal <refName> dtype Y"
void checkSameDtype(const TensorView& v, const char* name, const TensorView& ref, const char* refName);
void checkSameShape(const TensorView& v, const char* name, const TensorView& ref, const char* refName);
// 161002 for device-private layouts (5HD, fractal) that the operator does not accept.
void checkPlainFormat(const TensorView& v, const char* name);
void checkRankRange(const TensorView& v, const char* name, int64_t lo, int64_t hi);

// 161002 "<op> is not supported on <product>" on the product that lacks the operator.
void checkProductHasOperator(const char* op, Product product, Product lacking);

// 161002 "outputMask has N entries; expected K (<outputs>)" unless one entry per output.
void checkMaskLength(const std::vector<bool>& mask, std::initializer_list<const char*> outputs);
// The mask's length, then each output it selects (161001 when null): selected[i] is that
// output's view, left alone where the mask is off.
void checkMaskedOutputs(const std::vector<bool>& mask, std::initializer_list<aclTensor*> outputs,
                        std::initializer_list<const char*> names, const TensorView** selected);

// fp16 and fp32 everywhere; bf16 only where the product has it.
std::vector<DType> normDtypesFor(Product p);

// Phase 1: checks the out-pointers, runs `build` (which validates and returns the executor),
// checks what every plan must satisfy (outputs without self-overlap), remembers the device
// blocks under the caller's tensors, reports the workspace size and hands the executor over.
template <class Build>
int32_t prepareExecutor(const char* api, uint64_t* workspaceSize, aclOpExecutor** executor, Build&& build) noexcept {
    return guardCApi(api, [&] {
        startTraceFromEnvironment();  // OPSCOPE_TRACE: the C API is where a program starts
        if (!workspaceSize) fail(status::kParamNullptr, "workspaceSize is null");
        if (!executor) fail(status::kParamNullptr, "executor is null");
        std::unique_ptr<aclOpExecutor> e = build();
        checkOutputsDoNotOverlapThemselves(e->plan());
        e->callerBlocks = callerBlocks(e->plan());
        *workspaceSize = e->plan().workspaceBytes();
        *executor = adoptExecutor(std::move(e));
    });
}

// Phase 2: validates executor, stream, workspace and the memory of every tensor (361001 with a
// message naming it), runs every step, retires a non-repeatable executor. Thread-safe: see
// ExecutorLaunch for two launches of one executor.
int32_t launchExecutor(const char* api, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                       aclrtStream stream) noexcept;

}  // namespace opscope
