#include "opscope/op_support.h"

namespace opscope {

const TensorView& requireTensor(const aclTensor* t, const char* name) {
    if (!t) fail(status::kParamNullptr, Msg() << name << " is null");
    if (!isLiveHandle(HandleKind::Tensor, t))
        fail(status::kParamInvalid, Msg()
                                        << name << " is not a live aclTensor (destroyed, or not from aclCreateTensor)");
    return t->view;
}

const TensorView* optionalTensor(const aclTensor* t, const char* name) { return t ? &requireTensor(t, name) : nullptr; }

const std::vector<bool>& requireBoolArray(const aclBoolArray* a, const char* name) {
    if (!a) fail(status::kParamNullptr, Msg() << name << " is null");
    if (!isLiveHandle(HandleKind::BoolArray, a))
        fail(status::kParamInvalid, Msg() << name << " is not a live aclBoolArray");
    return a->values;
}

const std::vector<int64_t>& requireIntArray(const aclIntArray* a, const char* name) {
    if (!a) fail(status::kParamNullptr, Msg() << name << " is null");
    if (!isLiveHandle(HandleKind::IntArray, a))
        fail(status::kParamInvalid, Msg() << name << " is not a live aclIntArray");
    return a->values;
}

const std::vector<int64_t>* optionalIntArray(const aclIntArray* a, const char* name) {
    return a ? &requireIntArray(a, name) : nullptr;
}

std::string dtypeList(const std::vector<DType>& types) {
    std::string s;
    for (std::size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + std::string(dtypeName(types[i]));
    return s;
}

void checkDtypeIn(const TensorView& v, const char* name, const std::vector<DType>& allowed, Product p) {
    for (DType t : allowed)
        if (v.dtype == t) return;
    fail(status::kParamInvalid, Msg() << name << " dtype " << dtypeName(v.dtype) << " is not supported on "
                                      << productName(p) << ": expected one of " << dtypeList(allowed));
}

void checkSameDtype(const TensorView& v, const char* name, const TensorView& ref, const char* refName) {
    if (v.dtype != ref.dtype)
        fail(status::kParamInvalid, Msg() << name << " dtype " << dtypeName(v.dtype) << " must equal " << refName
                                          << " dtype " << dtypeName(ref.dtype));
}

void checkSameShape(const TensorView& v, const char* name, const TensorView& ref, const char* refName) {
    if (v.shape != ref.shape)
        fail(status::kParamInvalid, Msg() << name << " shape " << shapeToString(v.shape) << " must equal " << refName
                                          << " shape " << shapeToString(ref.shape));
}

void checkPlainFormat(const TensorView& v, const char* name) {
    if (isPrivateFormat(v.format))
        fail(status::kParamInvalid,
             Msg() << name << " format " << formatName(v.format)
                   << " is a private device layout; expected ND or an origin format (NCHW, NCL, ...)");
}

void checkProductHasOperator(const char* op, Product product, Product lacking) {
    if (product == lacking) fail(status::kParamInvalid, Msg() << op << " is not supported on " << productName(product));
}

void checkMaskLength(const std::vector<bool>& mask, std::initializer_list<const char*> outputs) {
    if (mask.size() == outputs.size()) return;
    std::string names;
    for (const char* n : outputs) names += (names.empty() ? "" : ", ") + std::string(n);
    fail(status::kParamInvalid,
         Msg() << "outputMask has " << mask.size() << " entries; expected " << outputs.size() << " (" << names << ")");
}

void checkMaskedOutputs(const std::vector<bool>& mask, std::initializer_list<aclTensor*> outputs,
                        std::initializer_list<const char*> names, const TensorView** selected) {
    checkMaskLength(mask, names);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        if (!mask[i]) continue;
        const char* name = names.begin()[i];
        if (!outputs.begin()[i])
            fail(status::kParamNullptr, Msg() << name << " is null but outputMask[" << i << "] is true");
        selected[i] = &requireTensor(outputs.begin()[i], name);
    }
}

void checkRankRange(const TensorView& v, const char* name, int64_t lo, int64_t hi) {
    if (v.rank() < lo || v.rank() > hi)
        fail(status::kParamInvalid, Msg() << name << " rank " << v.rank() << " (shape " << shapeToString(v.shape)
                                          << ") is outside [" << lo << ", " << hi << "]");
}

std::vector<DType> normDtypesFor(Product p) {
    if (productHasBFloat16(p)) return {DType::Float32, DType::Float16, DType::BFloat16};
    return {DType::Float32, DType::Float16};
}

int32_t launchExecutor(const char* api, void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                       aclrtStream stream) noexcept {
    return guardCApi(api, [&] {
        ExecutorLaunch launch(executor);
        aclOpExecutor* e = launch.executor();
        device::requireRuntime(status::kRuntimeError);
        requireLiveStream(stream, "stream");
        e->bindWorkspace(workspace, workspaceSize);
        checkLaunchMemory(e->plan(), e->callerBlocks, workspace, workspaceSize);
        {
            InputSnapshot snapshot(e->plan());
            e->runToEnd();
        }
        launch.completed();
    });
}

}  // namespace opscope
