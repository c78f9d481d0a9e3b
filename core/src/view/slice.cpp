#include "opscope/view/slice.h"

#include <algorithm>
#include <stdexcept>

#include "opscope/dispatch.h"
#include "opscope/error.h"

namespace opscope::view {
namespace {

int64_t axisSize(const std::vector<int64_t>& shape, int axis) {
    return axis < 0 ? 1 : shape[static_cast<std::size_t>(axis)];
}

}  // namespace

SliceSpec defaultSlice(const std::vector<int64_t>& shape) {
    SliceSpec s;
    const int rank = static_cast<int>(shape.size());
    if (rank >= 2) {
        // The last two axes longer than 1 ([5, 8, 1] shows 5 x 8, not a strip of 8 x 1).
        std::vector<int> longer;
        for (int a = rank - 1; a >= 0 && longer.size() < 2; --a)
            if (shape[static_cast<std::size_t>(a)] > 1) longer.insert(longer.begin(), a);
        s.rowAxis = rank - 2;
        s.colAxis = rank - 1;
        if (longer.size() == 2) {
            s.rowAxis = longer[0];
            s.colAxis = longer[1];
        } else if (longer.size() == 1 && longer[0] != rank - 1) {
            s.rowAxis = longer[0];
            s.colAxis = rank - 1;
        }
    } else if (rank == 1) {
        s.colAxis = 0;
    }
    s.index.assign(shape.size(), 0);
    return s;
}

SliceSpec normalizeSlice(const std::vector<int64_t>& shape, const SliceSpec& spec) {
    const int rank = static_cast<int>(shape.size());
    SliceSpec s = spec;
    const bool axesOk =
        rank >= 2 ? (s.rowAxis >= 0 && s.rowAxis < rank && s.colAxis >= 0 && s.colAxis < rank && s.rowAxis != s.colAxis)
                  : false;
    if (!axesOk) {
        const SliceSpec d = defaultSlice(shape);
        s.rowAxis = d.rowAxis;
        s.colAxis = d.colAxis;
    }
    s.index.resize(shape.size(), 0);
    for (std::size_t a = 0; a < shape.size(); ++a)
        s.index[a] = std::clamp<int64_t>(s.index[a], 0, std::max<int64_t>(shape[a] - 1, 0));
    return s;
}

int64_t sliceRows(const std::vector<int64_t>& shape, const SliceSpec& spec) { return axisSize(shape, spec.rowAxis); }
int64_t sliceCols(const std::vector<int64_t>& shape, const SliceSpec& spec) { return axisSize(shape, spec.colAxis); }

Plane extractPlane(const TensorView& tensor, const SliceSpec& given) {
    Plane p;
    if (tensor.numel() == 0) return p;
    const TensorView v = sliceView(tensor, normalizeSlice(tensor.shape, given));
    p.rows = v.shape[0];
    p.cols = v.shape[1];
    p.values.resize(static_cast<std::size_t>(p.rows * p.cols));
    for (int64_t r = 0; r < p.rows; ++r) readRow(v, r, p.values.data() + r * p.cols);
    return p;
}

TensorView sliceView(const TensorView& tensor, const SliceSpec& given) {
    const SliceSpec spec = normalizeSlice(tensor.shape, given);
    TensorView v = tensor;
    v.shape = {sliceRows(tensor.shape, spec), sliceCols(tensor.shape, spec)};
    for (std::size_t a = 0; a < tensor.shape.size(); ++a)
        if (static_cast<int>(a) != spec.rowAxis && static_cast<int>(a) != spec.colAxis)
            v.offset += spec.index[a] * tensor.strides[a];
    v.strides = {spec.rowAxis >= 0 ? tensor.strides[static_cast<std::size_t>(spec.rowAxis)] : 0,
                 spec.colAxis >= 0 ? tensor.strides[static_cast<std::size_t>(spec.colAxis)] : 0};
    if (tensor.numel() == 0) v.shape = {0, 0};
    return v;
}

void readRow(const TensorView& v, int64_t row, double* out) {
    const int64_t base = v.offset + row * v.strides[0], cs = v.strides[1];
    dispatchAll(v.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* data = static_cast<const T*>(v.data) + base;
        for (int64_t c = 0; c < v.shape[1]; ++c) out[c] = convertValue<double>(data[c * cs]);
    });
}

std::vector<int64_t> elementIndex(const SliceSpec& spec, int64_t row, int64_t col) {
    std::vector<int64_t> idx = spec.index;
    if (spec.rowAxis >= 0) idx[static_cast<std::size_t>(spec.rowAxis)] = row;
    if (spec.colAxis >= 0) idx[static_cast<std::size_t>(spec.colAxis)] = col;
    return idx;
}

int64_t flatIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& index) {
    int64_t flat = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) flat = flat * shape[a] + (a < index.size() ? index[a] : 0);
    return flat;
}

double elementValue(const TensorView& tensor, const std::vector<int64_t>& index) {
    if (index.size() != tensor.shape.size()) throw UsageError("elementValue: index rank differs from tensor rank");
    int64_t off = tensor.offset;
    for (std::size_t a = 0; a < index.size(); ++a) {
        if (index[a] < 0 || index[a] >= tensor.shape[a]) throw UsageError("elementValue: index out of range");
        off += index[a] * tensor.strides[a];
    }
    return dispatchAll(tensor.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return convertValue<double>(static_cast<const T*>(tensor.data)[off]);
    });
}

std::vector<int64_t> sampleIndices(int64_t n, int64_t maxCount) {
    std::vector<int64_t> out;
    if (n <= 0 || maxCount <= 0) return out;
    const int64_t m = std::min(n, maxCount);
    out.reserve(static_cast<std::size_t>(m));
    // Evenly spaced: floor(i * n / m), strictly increasing because n >= m (long double keeps
    // the product exact for any tensor that fits in memory).
    for (int64_t i = 0; i < m; ++i)
        out.push_back(static_cast<int64_t>(static_cast<long double>(i) * static_cast<long double>(n) / m));
    return out;
}

}  // namespace opscope::view
