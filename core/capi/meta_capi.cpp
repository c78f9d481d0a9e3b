// libnnopbase: aclTensor / array / scalar objects and executor lifetime.
// Creation functions return null on bad input and leave the reason in aclGetRecentErrMsg().
#include <cstring>

#include "aclnn/acl_meta.h"
#include "opscope/checked_math.h"
#include "opscope/device_memory.h"
#include "opscope/dispatch.h"
#include "opscope/error.h"
#include "opscope/objects.h"
#include "opscope/raw_enum.h"

using namespace opscope;

namespace {

template <class T, class Body>
T* guardCreate(const char* api, Body&& body) noexcept {
    T* result = nullptr;
    guardCApi(api, [&] { result = body(); });
    return result;
}

template <class T>
aclnnStatus destroyHandle(const char* api, HandleKind kind, const T* p) {
    return guardCApi(api, [&] {
        if (!p) fail(status::kParamNullptr, "handle is null");
        if (!releaseHandle(kind, p))
            fail(status::kParamInvalid, Msg() << "not a live " << handleKindName(kind) << " (already destroyed?)");
        delete p;
    });
}

const aclTensor& requireTensorHandle(const aclTensor* t) {
    if (!t) fail(status::kParamNullptr, "tensor is null");
    if (!isLiveHandle(HandleKind::Tensor, t)) fail(status::kParamInvalid, "tensor is not a live aclTensor");
    return *t;
}

// The caller's array of `size` elements: null only when empty, and not running past the end of
// the address space (a size near 2^64 would wrap `value + size`).
template <class T>
void checkArrayArgument(const T* value, uint64_t size) {
    if (size > 0 && !value) fail(status::kParamNullptr, "value is null but size > 0");
    std::size_t bytes;
    if (!checkedMul(static_cast<std::size_t>(size), sizeof(T), &bytes) || !rangeFitsAddressSpace(value, bytes))
        fail(status::kParamInvalid,
             Msg() << "size " << size << " runs past the end of the address space from value " << value);
}

// aclCreateIntArray/FloatArray/BoolArray: a checked copy of the caller's `size` elements.
template <class Array, class T>
Array* createArray(const char* api, HandleKind kind, const T* value, uint64_t size) noexcept {
    return guardCreate<Array>(api, [&] {
        checkArrayArgument(value, size);
        auto a = std::make_unique<Array>();
        if (size) a->values.assign(value, value + size);
        registerHandle(kind, a.get());
        return a.release();
    });
}

// Copies dims into a new[] array the caller frees with delete[], as in CANN.
void exportDims(const std::vector<int64_t>& v, int64_t** out, uint64_t* num) {
    if (!out || !num) fail(status::kParamNullptr, "output pointer is null");
    *num = v.size();
    *out = new int64_t[v.empty() ? 1 : v.size()];
    if (!v.empty()) std::memcpy(*out, v.data(), v.size() * sizeof(int64_t));
}

}  // namespace

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData) {
    return guardCreate<aclTensor>("aclCreateTensor", [&] {
        if (viewDimsNum > static_cast<uint64_t>(kMaxCreateRank))
            fail(status::kParamInvalid, Msg()
                                            << "viewDimsNum " << viewDimsNum
                                            << " exceeds the largest rank OpScope accepts (" << kMaxCreateRank << ")");
        if (viewDimsNum > 0 && !viewDims) fail(status::kParamNullptr, "viewDims is null but viewDimsNum > 0");
        const int32_t dt = rawEnum(dataType);
        if (!isValidAclDataType(dt) || dtypeSize(static_cast<DType>(dt)) == 0)
            fail(status::kParamInvalid, Msg() << "dataType " << dt << " is not a tensor dtype");
        if (offset < 0) fail(status::kParamInvalid, Msg() << "offset " << offset << " is negative");
        auto t = std::make_unique<aclTensor>();
        TensorView& v = t->view;
        v.dtype = static_cast<DType>(dt);
        v.format = static_cast<Format>(rawEnum(format));
        v.shape.assign(viewDims, viewDims + viewDimsNum);
        for (int64_t d : v.shape)
            if (d < 0)
                fail(status::kParamInvalid, Msg() << "viewDims " << shapeToString(v.shape) << " has a negative size");
        if (stride) {
            v.strides.assign(stride, stride + viewDimsNum);
            for (int64_t s : v.strides)
                if (s < 0)
                    fail(status::kParamInvalid,
                         Msg() << "stride " << shapeToString(v.strides) << " has a negative value");
        } else {
            v.strides = TensorView::contiguousStrides(v.shape);
        }
        v.offset = offset;
        v.data = tensorData;
        if (storageDims && storageDimsNum > 0) {
            if (storageDimsNum > static_cast<uint64_t>(kMaxCreateRank))
                fail(status::kParamInvalid, Msg() << "storageDimsNum " << storageDimsNum
                                                  << " exceeds the largest rank OpScope accepts (" << kMaxCreateRank
                                                  << ")");
            t->storageDims.assign(storageDims, storageDims + storageDimsNum);
            for (int64_t d : t->storageDims)
                if (d < 0)
                    fail(status::kParamInvalid,
                         Msg() << "storageDims " << shapeToString(t->storageDims) << " has a negative size");
        } else {
            t->storageDims = v.shape;
        }

        // Every count, index and byte size below is overflow-checked (161002 naming the values).
        const int64_t n = v.numel();
        const int64_t storageNumel = shapeNumel(t->storageDims);
        if (n > 0) {
            if (!tensorData) fail(status::kParamNullptr, "tensorData is null for a non-empty tensor");
            const std::size_t bytes = v.byteRange().end;  // from tensorData to past the last element
            const auto last = static_cast<int64_t>(bytes / v.elementSize()) - 1;  // highest element index touched
            if (storageDims && storageDimsNum > 0 && last >= storageNumel)
                fail(status::kParamInvalid, Msg() << "view " << shapeToString(v.shape) << " strides "
                                                  << shapeToString(v.strides) << " offset " << offset
                                                  << " reaches element " << last << " but storageDims "
                                                  << shapeToString(t->storageDims) << " hold " << storageNumel);
            if (!rangeFitsAddressSpace(tensorData, bytes))
                fail(status::kParamInvalid, Msg() << "the view needs " << bytes << " bytes from tensorData "
                                                  << tensorData << ", which wraps around the address space");
            if (device::find(tensorData).base && !device::containsRange(tensorData, bytes))
                fail(status::kParamInvalid, Msg() << "the view needs " << bytes
                                                  << " bytes from tensorData but its aclrtMalloc block is smaller");
        }
        registerHandle(HandleKind::Tensor, t.get());
        return t.release();
    });
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
    return guardCreate<aclScalar>("aclCreateScalar", [&] {
        if (!value) fail(status::kParamNullptr, "value is null");
        const int32_t raw = rawEnum(dataType);
        const DType t = static_cast<DType>(raw);
        if (!isValidAclDataType(raw) || dtypeSize(t) == 0)
            fail(status::kParamInvalid, Msg() << "dataType " << raw << " is not a scalar dtype");
        auto s = std::make_unique<aclScalar>();
        s->dtype = t;
        s->value = dispatchAll(t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            T x;
            std::memcpy(&x, value, sizeof(T));
            return convertValue<double>(x);
        });
        registerHandle(HandleKind::Scalar, s.get());
        return s.release();
    });
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
    return createArray<aclIntArray>("aclCreateIntArray", HandleKind::IntArray, value, size);
}

aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
    return createArray<aclFloatArray>("aclCreateFloatArray", HandleKind::FloatArray, value, size);
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
    return createArray<aclBoolArray>("aclCreateBoolArray", HandleKind::BoolArray, value, size);
}

aclnnStatus aclDestroyTensor(const aclTensor* t) { return destroyHandle("aclDestroyTensor", HandleKind::Tensor, t); }
aclnnStatus aclDestroyScalar(const aclScalar* s) { return destroyHandle("aclDestroyScalar", HandleKind::Scalar, s); }
aclnnStatus aclDestroyIntArray(const aclIntArray* a) {
    return destroyHandle("aclDestroyIntArray", HandleKind::IntArray, a);
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray* a) {
    return destroyHandle("aclDestroyFloatArray", HandleKind::FloatArray, a);
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray* a) {
    return destroyHandle("aclDestroyBoolArray", HandleKind::BoolArray, a);
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
    return guardCApi("aclGetViewShape",
                     [&] { exportDims(requireTensorHandle(tensor).view.shape, viewDims, viewDimsNum); });
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue, uint64_t* stridesNum) {
    return guardCApi("aclGetViewStrides",
                     [&] { exportDims(requireTensorHandle(tensor).view.strides, stridesValue, stridesNum); });
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims, uint64_t* storageDimsNum) {
    return guardCApi("aclGetStorageShape",
                     [&] { exportDims(requireTensorHandle(tensor).storageDims, storageDims, storageDimsNum); });
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
    return guardCApi("aclGetViewOffset", [&] {
        if (!offset) fail(status::kParamNullptr, "offset is null");
        *offset = requireTensorHandle(tensor).view.offset;
    });
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
    return guardCApi("aclGetDataType", [&] {
        if (!dataType) fail(status::kParamNullptr, "dataType is null");
        *dataType = static_cast<aclDataType>(requireTensorHandle(tensor).view.dtype);
    });
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
    return guardCApi("aclGetFormat", [&] {
        if (!format) fail(status::kParamNullptr, "format is null");
        *format = static_cast<aclFormat>(requireTensorHandle(tensor).view.format);
    });
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
    return guardCApi("aclGetIntArraySize", [&] {
        if (!array || !size) fail(status::kParamNullptr, "array or size is null");
        if (!isLiveHandle(HandleKind::IntArray, array)) fail(status::kParamInvalid, "array is not a live aclIntArray");
        *size = array->values.size();
    });
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
    return guardCApi("aclGetBoolArraySize", [&] {
        if (!array || !size) fail(status::kParamNullptr, "array or size is null");
        if (!isLiveHandle(HandleKind::BoolArray, array))
            fail(status::kParamInvalid, "array is not a live aclBoolArray");
        *size = array->values.size();
    });
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
    return guardCApi("aclGetFloatArraySize", [&] {
        if (!array || !size) fail(status::kParamNullptr, "array or size is null");
        if (!isLiveHandle(HandleKind::FloatArray, array))
            fail(status::kParamInvalid, "array is not a live aclFloatArray");
        *size = array->values.size();
    });
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
    return guardCApi("aclSetAclOpExecutorRepeatable", [&] { requireRunnableExecutor(executor)->setRepeatable(true); });
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
    return guardCApi("aclDestroyAclOpExecutor", [&] { destroyExecutor(executor); });
}

}  // extern "C"
