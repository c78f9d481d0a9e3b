// An owning, contiguous, row-major tensor in host memory: what HDF5 I/O, references and
// tests exchange. Storage is 64-byte aligned.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "opscope/dtype.h"
#include "opscope/tensor_view.h"

namespace opscope {

class HostTensor {
public:
    HostTensor() = default;
    // Zero-filled tensor; throws UsageError for an unusable dtype or negative dim.
    HostTensor(DType dtype, std::vector<int64_t> shape);

    DType dtype() const { return dtype_; }
    const std::vector<int64_t>& shape() const { return shape_; }
    int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
    int64_t numel() const;
    std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * dtypeSize(dtype_); }
    bool empty() const { return numel() == 0; }

    void* data() { return data_.get(); }
    const void* data() const { return data_.get(); }
    template <class T>
    T* dataAs() {
        return static_cast<T*>(data());
    }
    template <class T>
    const T* dataAs() const {
        return static_cast<const T*>(data());
    }

    // A contiguous view of the whole tensor.
    TensorView view() const;
    // True when another HostTensor (a shallow copy) holds the same storage. Another thread may
    // drop its copy meanwhile: a true answer can be stale, a false one cannot.
    bool sharesStorage() const { return data_.use_count() > 1; }

    // Element i (row-major) as double, and set from double (rounded to the dtype).
    double getAsDouble(int64_t i) const;
    void setFromDouble(int64_t i, double v);
    std::vector<double> toDoubles() const;
    static HostTensor fromDoubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values);
    // Copies any (possibly strided) view into a new contiguous tensor of the same dtype.
    static HostTensor copyOf(const TensorView& v);

private:
    struct AlignedFree {
        void operator()(void* p) const;
    };
    DType dtype_ = DType::Float32;
    std::vector<int64_t> shape_;
    std::shared_ptr<void> data_;
};

}  // namespace opscope
