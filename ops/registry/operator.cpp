#include "opscope/ops/operator.h"

#include <algorithm>
#include <cctype>

#include "aclnn/acl_meta.h"
#include "builtin_operators.h"
#include "opscope/convert.h"
#include "opscope/error.h"
#include "opscope/names.h"

namespace opscope::ops {

const char* argKindName(ArgKind k) {
    static constexpr Named<ArgKind> kArgKinds[] = {{ArgKind::Tensor, "tensor"},  {ArgKind::Int, "int"},
                                                   {ArgKind::Bool, "bool"},      {ArgKind::Float, "float"},
                                                   {ArgKind::IntArray, "int[]"}, {ArgKind::BoolArray, "bool[]"},
                                                   {ArgKind::Enum, "enum"}};
    return nameOf(kArgKinds, k);
}

ArgSpec tensorArg(std::string name, std::string help, bool optional) {
    ArgSpec a;
    a.name = std::move(name);
    a.kind = ArgKind::Tensor;
    a.optional = optional;
    a.help = std::move(help);
    return a;
}

namespace {
ArgSpec attr(std::string name, ArgKind kind, std::string help, ParamValue def, bool optional = false) {
    ArgSpec a;
    a.name = std::move(name);
    a.kind = kind;
    a.help = std::move(help);
    a.defaultValue = std::move(def);
    a.optional = optional;
    return a;
}
}  // namespace

ArgSpec intArg(std::string name, std::string help, int64_t d) {
    return attr(std::move(name), ArgKind::Int, std::move(help), d);
}
ArgSpec boolArg(std::string name, std::string help, bool d) {
    return attr(std::move(name), ArgKind::Bool, std::move(help), d);
}
ArgSpec intArrayArg(std::string name, std::string help, std::vector<int64_t> d, bool optional) {
    return attr(std::move(name), ArgKind::IntArray, std::move(help), std::move(d), optional);
}
ArgSpec boolArrayArg(std::string name, std::string help, std::vector<bool> d) {
    return attr(std::move(name), ArgKind::BoolArray, std::move(help), std::move(d));
}
ArgSpec enumArg(std::string name, std::string help, std::vector<std::string> names, int64_t d) {
    ArgSpec a = attr(std::move(name), ArgKind::Enum, std::move(help), d);
    a.enumNames = std::move(names);
    return a;
}

std::optional<int64_t> enumValueByName(const ArgSpec& spec, const std::string& name) {
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        return s;
    };
    for (std::size_t i = 0; i < spec.enumNames.size(); ++i)
        if (lower(spec.enumNames[i]) == lower(name)) return static_cast<int64_t>(i);
    return std::nullopt;
}

std::string enumValuesText(const ArgSpec& spec) {
    std::string names;
    for (std::size_t i = 0; i < spec.enumNames.size(); ++i)
        names += (i ? ", " : "") + std::to_string(i) + " " + spec.enumNames[i];
    return names;
}

// ---- OpArguments ----

const HostTensor& OpArguments::tensor(const std::string& name) const {
    auto it = tensors.find(name);
    if (it == tensors.end()) throw ArgumentError("tensor argument '" + name + "' is not bound");
    return it->second;
}

namespace {

const ParamValue& attrValue(const OpArguments& a, const std::string& name) {
    auto it = a.attributes.find(name);
    if (it == a.attributes.end()) throw ArgumentError("attribute '" + name + "' is not set");
    return it->second;
}

std::vector<int64_t> asInts(const ParamValue& v, const std::string& name) {
    if (auto p = std::get_if<std::vector<int64_t>>(&v)) return *p;
    if (auto p = std::get_if<std::vector<bool>>(&v)) return std::vector<int64_t>(p->begin(), p->end());
    if (auto p = std::get_if<int64_t>(&v)) return {*p};
    if (auto p = std::get_if<bool>(&v)) return {*p ? 1 : 0};
    if (auto p = std::get_if<std::vector<double>>(&v)) {
        std::vector<int64_t> out;
        for (double d : *p) {
            if (d != static_cast<double>(static_cast<int64_t>(d)))
                throw ArgumentError("attribute '" + name + "' must hold integers, got " + paramToString(v));
            out.push_back(static_cast<int64_t>(d));
        }
        return out;
    }
    throw ArgumentError("attribute '" + name + "' must be an integer or integer array, got " + paramToString(v));
}

}  // namespace

int64_t OpArguments::intAttr(const std::string& name) const {
    const std::vector<int64_t> v = asInts(attrValue(*this, name), name);
    if (v.size() != 1)
        throw ArgumentError("attribute '" + name + "' must be one integer, got " + std::to_string(v.size()));
    return v[0];
}

bool OpArguments::boolAttr(const std::string& name) const { return intAttr(name) != 0; }

std::vector<int64_t> OpArguments::intArrayAttr(const std::string& name) const {
    return asInts(attrValue(*this, name), name);
}

std::vector<bool> OpArguments::boolArrayAttr(const std::string& name) const {
    const std::vector<int64_t> v = asInts(attrValue(*this, name), name);
    std::vector<bool> out;
    for (int64_t x : v) out.push_back(x != 0);
    return out;
}

// ---- PreparedCall ----

std::map<std::string, HostTensor> maskedGolden(const std::vector<bool>& mask,
                                               std::initializer_list<GoldenOutput> outputs) {
    std::map<std::string, HostTensor> out;
    std::size_t i = 0;
    for (const GoldenOutput& o : outputs) {
        if (i < mask.size() && mask[i]) out[o.name] = HostTensor::fromDoubles(DType::Float64, o.shape, o.values);
        ++i;
    }
    return out;
}

PreparedCall::~PreparedCall() {
    if (executor_) aclDestroyAclOpExecutor(executor_);
    for (aclTensor* t : tensors_) aclDestroyTensor(t);
    for (aclIntArray* a : intArrays_) aclDestroyIntArray(a);
    for (aclBoolArray* a : boolArrays_) aclDestroyBoolArray(a);
}

namespace {

aclTensor* createTensorOver(const HostTensor& t) {
    const std::vector<int64_t> strides = TensorView::contiguousStrides(t.shape());
    aclTensor* h =
        aclCreateTensor(t.shape().data(), t.shape().size(), static_cast<aclDataType>(t.dtype()), strides.data(), 0,
                        ACL_FORMAT_ND, t.shape().data(), t.shape().size(), const_cast<void*>(t.data()));
    if (!h) fail(status::kParamInvalid, aclGetRecentErrMsg());
    return h;
}

}  // namespace

aclTensor* PreparedCall::inputTensor(const std::string& name) {
    auto it = args_.tensors.find(name);
    if (it == args_.tensors.end()) return nullptr;
    // The kernels only read inputs, and args_ holds its own reference to the storage: the
    // executor reads the bound tensor in place (a copy doubled the memory of a big call).
    tensors_.push_back(createTensorOver(it->second));
    return tensors_.back();
}

aclTensor* PreparedCall::outputTensor(const std::string& name, DType dtype, const std::vector<int64_t>& shape) {
    outputs_.emplace_back(name, HostTensor(dtype, shape));
    tensors_.push_back(createTensorOver(outputs_.back().second));
    return tensors_.back();
}

aclTensor* PreparedCall::unusedOutputTensor(const std::string& name, DType dtype, const std::vector<int64_t>& shape) {
    unusedOutputs_.emplace_back(name, HostTensor(dtype, shape));
    tensors_.push_back(createTensorOver(unusedOutputs_.back().second));
    return tensors_.back();
}

aclIntArray* PreparedCall::intArray(const std::vector<int64_t>& values) {
    intArrays_.push_back(aclCreateIntArray(values.data(), values.size()));
    return intArrays_.back();
}

aclBoolArray* PreparedCall::boolArray(const std::vector<bool>& values) {
    std::unique_ptr<bool[]> buf(new bool[values.size() + 1]);
    for (std::size_t i = 0; i < values.size(); ++i) buf[i] = values[i];
    boolArrays_.push_back(aclCreateBoolArray(buf.get(), values.size()));
    return boolArrays_.back();
}

void PreparedCall::finishPhase1(int32_t status, uint64_t workspaceSize, aclOpExecutor* executor) {
    if (status != ACLNN_SUCCESS) throw StatusError(status, aclGetRecentErrMsg());
    executor_ = executor;
    workspaceSize_ = workspaceSize;
    aclSetAclOpExecutorRepeatable(executor_);  // the debugger restarts it at will
}

void PreparedCall::bindWorkspace() {
    if (workspace_.nbytes() < workspaceSize_)
        workspace_ = HostTensor(DType::UInt8, {static_cast<int64_t>(workspaceSize_)});
    executor_->bindWorkspace(workspace_.data(), workspaceSize_);
}

void PreparedCall::runToEnd() {
    if (executor_->atEnd() || executor_->nextStep() == 0) bindWorkspace();
    executor_->runToEnd();
}

void PreparedCall::detachSharedOutputs(bool keepValues) {
    for (auto& named : outputs_) {
        HostTensor& old = named.second;
        if (old.empty() || !old.sharesStorage()) continue;
        HostTensor moved = keepValues ? HostTensor::copyOf(old.view()) : HostTensor(old.dtype(), old.shape());
        // The output's aclTensor keeps the old address: nothing reads it after phase 1.
        executor().plan().moveCallerStorage(old.data(), moved.data());
        old = std::move(moved);
    }
}

const HostTensor* PreparedCall::output(const std::string& name) const {
    for (const auto& o : outputs_)
        if (o.first == name) return &o.second;
    return nullptr;
}

// ---- Operator ----

std::unique_ptr<PreparedCall> Operator::prepare(const OpArguments& args) const {
    auto call = std::make_unique<PreparedCall>(withDefaults(args));
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    const int32_t status = getWorkspaceSize(*call, &workspaceSize, &executor);
    call->finishPhase1(status, workspaceSize, executor);
    return call;
}

OpArguments Operator::castTo(const OpArguments& args, DType dtype) const {
    OpArguments out = args;
    for (auto& [name, t] : out.tensors) {
        if (!isFloatingType(t.dtype()) || t.dtype() == dtype) continue;
        HostTensor c(dtype, t.shape());
        copyConvert(t.view(), c.view());
        t = std::move(c);
    }
    return out;
}

namespace {

// Throws unless every name given (the keys of `given`) is one of the schema's `specs`.
template <class Map>
void requireKnownNames(const OpSchema& s, const Map& given, const std::vector<ArgSpec>& specs, const char* what) {
    for (const auto& entry : given) {
        const std::string& name = entry.first;
        const bool known = std::any_of(specs.begin(), specs.end(), [&](const ArgSpec& a) { return a.name == name; });
        if (!known) throw ArgumentError(s.name + " has no " + what + " '" + name + "'");
    }
}

}  // namespace

OpArguments Operator::withDefaults(const OpArguments& args) const {
    const OpSchema& s = schema();
    OpArguments out = args;
    requireKnownNames(s, args.tensors, s.tensors, "tensor argument");
    for (const ArgSpec& a : s.tensors)
        if (!a.optional && !args.hasTensor(a.name))
            throw ArgumentError(s.name + " needs tensor '" + a.name + "' (" + a.help + ")");
    requireKnownNames(s, args.attributes, s.attributes, "attribute");
    for (const ArgSpec& a : s.attributes)
        if (!out.hasAttr(a.name)) out.attributes[a.name] = a.defaultValue;
    completeDefaults(out, args);
    return out;
}

// ---- registry ----

std::vector<const Operator*> allOperators() {
    std::vector<const Operator*> v = builtinOperators();
    std::sort(v.begin(), v.end(),
              [](const Operator* a, const Operator* b) { return a->schema().name < b->schema().name; });
    return v;
}

const Operator* findOperator(const std::string& name) {
    for (const Operator* op : allOperators())
        if (op->schema().name == name || op->schema().shortName == name) return op;
    return nullptr;
}

}  // namespace opscope::ops
