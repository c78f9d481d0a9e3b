// Operators as data: a schema per aclnn operator (its tensor and attribute arguments and its
// outputs), a way to prepare a call from named arguments through the public C API, and the
// float64 reference for the same arguments. The CLI, the GUI and the dataset tests all bind
// case files to operators through this one interface.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "opscope/error.h"
#include "opscope/executor.h"
#include "opscope/host_tensor.h"
#include "opscope/product.h"
#include "opscope/objects.h"

namespace opscope::ops {

enum class ArgKind { Tensor, Int, Bool, Float, IntArray, BoolArray, Enum };
const char* argKindName(ArgKind k);

struct ArgSpec {
    std::string name;  // the aclnn parameter name: "gradOut", "group", ...
    ArgKind kind = ArgKind::Tensor;
    bool optional = false;               // may be absent (gamma, biasSizes)
    std::string help;                    // one line for forms and --help
    std::vector<std::string> enumNames;  // Enum: value i is called enumNames[i]
    ParamValue defaultValue = int64_t{0};
};

// Short constructors for schema tables.
ArgSpec tensorArg(std::string name, std::string help, bool optional = false);
ArgSpec intArg(std::string name, std::string help, int64_t defaultValue);
ArgSpec boolArg(std::string name, std::string help, bool defaultValue);
ArgSpec intArrayArg(std::string name, std::string help, std::vector<int64_t> defaultValue, bool optional = false);
ArgSpec boolArrayArg(std::string name, std::string help, std::vector<bool> defaultValue);
ArgSpec enumArg(std::string name, std::string help, std::vector<std::string> names, int64_t defaultValue);
// An enum attribute given by name ("bilinear", "KEEP_DTYPE"), as people write it and older traces
// recorded it: its value, matching the name case-insensitively; nullopt when none matches.
std::optional<int64_t> enumValueByName(const ArgSpec& spec, const std::string& name);
// "0 bilinear, 1 nearest, 2 bicubic", for messages.
std::string enumValuesText(const ArgSpec& spec);

struct OutputSpec {
    std::string name;    // "gradInput", ...
    int maskIndex = -1;  // index in the schema's output mask argument, -1 if always produced
};

// The aclFormat an operator's tensors take: ND, or channels first by rank (NCL, NCHW, NCDHW for
// rank 3, 4, 5; ND otherwise), as the convolution's documentation asks of its tensors.
enum class TensorFormats { ND, ChannelsFirst };

// The C prototype of XxxGetWorkspaceSize is the tensors, then the attributes, then the outputs, each
// in schema order, then workspaceSize and executor (checked against the official headers by
// test_repro.cpp).
struct OpSchema {
    std::string name;       // "aclnnGroupNormBackward"
    std::string shortName;  // "group_norm_backward"
    std::string summary;
    std::vector<ArgSpec> tensors;
    std::vector<ArgSpec> attributes;
    std::string maskArgument;  // the BoolArray attribute selecting outputs ("outputMask"), or ""
    std::vector<OutputSpec> outputs;
    TensorFormats formats = TensorFormats::ND;
};

// Named argument values for one call.
struct OpArguments {
    std::map<std::string, HostTensor> tensors;
    std::map<std::string, ParamValue> attributes;

    bool hasTensor(const std::string& name) const { return tensors.count(name) > 0; }
    const HostTensor& tensor(const std::string& name) const;  // throws ArgumentError if absent
    // Attribute readers with coercion (an int array of 0/1 is a bool array, a bool an int, ...);
    // absent attributes take the schema default (see Operator::withDefaults).
    int64_t intAttr(const std::string& name) const;
    bool boolAttr(const std::string& name) const;
    std::vector<int64_t> intArrayAttr(const std::string& name) const;
    std::vector<bool> boolArrayAttr(const std::string& name) const;
    bool hasAttr(const std::string& name) const { return attributes.count(name) > 0; }
};

// One float64 output of an operator's scalar reference (values outlive the call below).
struct GoldenOutput {
    std::string name;
    std::vector<int64_t> shape;
    const std::vector<double>& values;
};
// The outputs the output mask asks for, as float64 tensors: outputs[i] is kept when mask[i] is set.
std::map<std::string, HostTensor> maskedGolden(const std::vector<bool>& mask,
                                               std::initializer_list<GoldenOutput> outputs);

// A binding problem (missing argument, wrong kind): not an aclnn status, a usage error.
class ArgumentError : public UsageError {
public:
    using UsageError::UsageError;
};

// One prepared executor over host-memory copies of the arguments. The executor writes the
// output tensors held here; step it via executor(), after bindWorkspace().
class PreparedCall {
public:
    PreparedCall() = default;
    ~PreparedCall();
    PreparedCall(const PreparedCall&) = delete;
    PreparedCall& operator=(const PreparedCall&) = delete;

    Executor& executor() { return *executor_; }
    const Executor& executor() const { return *executor_; }
    uint64_t workspaceSize() const { return workspaceSize_; }
    // Allocates the workspace (once) and binds it, rewinding the executor to step 0.
    void bindWorkspace();
    // Runs every remaining step.
    void runToEnd();
    const std::vector<std::pair<std::string, HostTensor>>& outputs() const { return outputs_; }
    // Copy-on-write for outputs: each output whose storage someone else still holds (a shallow
    // copy taken as a snapshot) moves to new storage, with the values written so far when
    // `keepValues`, else zeroed as before the first run; the executor then writes there and the
    // holder keeps what it saw. Call before the executor runs a step.
    void detachSharedOutputs(bool keepValues);
    const HostTensor* output(const std::string& name) const;
    const OpArguments& arguments() const { return args_; }

    // --- for Operator implementations (building the C API call) ---
    explicit PreparedCall(OpArguments args) : args_(std::move(args)) {}
    aclTensor* inputTensor(const std::string& name);  // null when the optional tensor is absent
    aclTensor* outputTensor(const std::string& name, DType dtype, const std::vector<int64_t>& shape);
    // An output the C API needs although the output mask turns it off: written to nothing
    // that is reported.
    aclTensor* unusedOutputTensor(const std::string& name, DType dtype, const std::vector<int64_t>& shape);
    // The outputs passed to the C API although the mask turns them off, by name (for reproducers).
    const std::vector<std::pair<std::string, HostTensor>>& unusedOutputs() const { return unusedOutputs_; }
    aclIntArray* intArray(const std::vector<int64_t>& values);
    aclBoolArray* boolArray(const std::vector<bool>& values);
    // Takes the result of XxxGetWorkspaceSize; throws StatusError with aclGetRecentErrMsg()
    // when the status is not success.
    void finishPhase1(int32_t status, uint64_t workspaceSize, aclOpExecutor* executor);

private:
    OpArguments args_;
    std::vector<std::pair<std::string, HostTensor>> unusedOutputs_;  // outputs the mask leaves out
    std::vector<std::pair<std::string, HostTensor>> outputs_;
    std::vector<aclTensor*> tensors_;
    std::vector<aclIntArray*> intArrays_;
    std::vector<aclBoolArray*> boolArrays_;
    aclOpExecutor* executor_ = nullptr;
    uint64_t workspaceSize_ = 0;
    HostTensor workspace_;
};

// Another arithmetic a device may have run the same call in that the call's arguments do not
// show: a dump records neither torch_npu's settings (allow_hf32 makes a float32 convolution
// multiply HF32 operands) nor the device it came from, so an import can assume the wrong one.
struct ArithmeticVariant {
    std::string label;               // "float32 operands (cubeMathType 0, KEEP_DTYPE)"
    std::string advice;              // what the user does about it
    OpArguments args;                // the call in that arithmetic
    std::optional<Product> product;  // the product that computes it so, when not the run's
};

// An operator is its schema plus two functions of the completed arguments (withDefaults):
// the binding to its aclnnXxxGetWorkspaceSize and its float64 reference. The entry points
// that complete the arguments and run phase 1 are the same for every operator, here.
class Operator {
public:
    explicit Operator(OpSchema schema) : schema_(std::move(schema)) {}
    virtual ~Operator() = default;
    const OpSchema& schema() const { return schema_; }
    // Phase 1 through the public C API; throws StatusError (the aclnn code and message) when the
    // operator rejects the arguments, ArgumentError when they do not fit the schema.
    std::unique_ptr<PreparedCall> prepare(const OpArguments& args) const;
    // Float64 outputs of the scalar reference, by output name (only the masked-in ones), for the
    // call as `product` computes it (the convolution's cube rounds its operands per product).
    std::map<std::string, HostTensor> reference(const OpArguments& args, Product product) const {
        return golden(withDefaults(args), product);
    }
    // The other arithmetics the device may have run `args` in on `product` (none for most).
    virtual std::vector<ArithmeticVariant> arithmeticVariants(const OpArguments& args, Product product) const {
        return {};
    }
    // The arguments with every floating tensor converted to `dtype` ("run as"); operators
    // whose tensors have fixed dtypes (RmsNormGrad's rstd) override this.
    virtual OpArguments castTo(const OpArguments& args, DType dtype) const;
    // Fills absent attributes with the schema defaults (then completeDefaults) and checks
    // names and kinds.
    OpArguments withDefaults(const OpArguments& args) const;

protected:
    // Adjusts defaults that depend on the tensors (e.g. one stride per spatial dimension);
    // `given` tells which attributes the caller set.
    virtual void completeDefaults(OpArguments& filled, const OpArguments& given) const {}
    // Creates the call's tensors and arrays from its completed arguments (call.arguments()) and
    // calls the operator's aclnnXxxGetWorkspaceSize, returning its status.
    virtual int32_t getWorkspaceSize(PreparedCall& call, uint64_t* workspaceSize, aclOpExecutor** executor) const = 0;
    // The scalar reference's outputs for completed arguments on `product`.
    virtual std::map<std::string, HostTensor> golden(const OpArguments& filled, Product product) const = 0;

private:
    OpSchema schema_;
};

// All registered operators, sorted by name.
std::vector<const Operator*> allOperators();
// By aclnn name or short name ("aclnnGroupNormBackward", "group_norm_backward"); null if unknown.
const Operator* findOperator(const std::string& name);

}  // namespace opscope::ops
