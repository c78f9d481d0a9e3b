// 2-D slices of N-D tensors, as an HDF5 viewer shows them: two displayed axes (rows, columns)
// and a fixed index on every other axis. The plane holds values as double, whatever the dtype.
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/tensor_view.h"

namespace opscope::view {

// rowAxis/colAxis are -1 when the tensor has fewer than two (resp. one) axes; a rank-1 tensor
// shows as one row, a scalar as one cell. `index` has one entry per axis; the entries of the
// displayed axes are ignored.
struct SliceSpec {
    int rowAxis = -1;
    int colAxis = -1;
    std::vector<int64_t> index;

    bool operator==(const SliceSpec& o) const {
        return rowAxis == o.rowAxis && colAxis == o.colAxis && index == o.index;
    }
    bool operator!=(const SliceSpec& o) const { return !(*this == o); }
};

// Rows x columns of doubles, row-major.
struct Plane {
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<double> values;

    double at(int64_t r, int64_t c) const { return values[static_cast<std::size_t>(r * cols + c)]; }
    int64_t size() const { return rows * cols; }
};

// The last two axes longer than one displayed (the last two when fewer are), index 0 elsewhere.
SliceSpec defaultSlice(const std::vector<int64_t>& shape);
// The spec made valid for `shape`: displayed axes distinct and in range (else the default),
// index resized to the rank and clamped into each axis.
SliceSpec normalizeSlice(const std::vector<int64_t>& shape, const SliceSpec& spec);
// Rows and columns the slice shows (1 for a missing axis).
int64_t sliceRows(const std::vector<int64_t>& shape, const SliceSpec& spec);
int64_t sliceCols(const std::vector<int64_t>& shape, const SliceSpec& spec);

// The plane of a (normalized) slice; any dtype, any strides.
Plane extractPlane(const TensorView& tensor, const SliceSpec& spec);
// The slice as a [rows, cols] view over the tensor's storage (nothing copied).
TensorView sliceView(const TensorView& tensor, const SliceSpec& spec);
// Row `row` of a rank-2 view as doubles: view.shape[1] values into `out`.
void readRow(const TensorView& view2d, int64_t row, double* out);

// The full N-D index of plane cell (row, col), and its row-major flat index.
std::vector<int64_t> elementIndex(const SliceSpec& spec, int64_t row, int64_t col);
int64_t flatIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& index);
// One element as double (any dtype, any strides); the index must be in range.
double elementValue(const TensorView& tensor, const std::vector<int64_t>& index);

// At most maxCount flat indices spread evenly over [0, n) (all of them when n <= maxCount),
// in increasing order: how charts sample large tensors reproducibly.
std::vector<int64_t> sampleIndices(int64_t n, int64_t maxCount);

}  // namespace opscope::view
