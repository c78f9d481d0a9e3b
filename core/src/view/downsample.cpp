#include "opscope/view/downsample.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opscope::view {

Downsampled downsample(const Plane& plane, int64_t maxRows, int64_t maxCols) {
    Downsampler d(plane.rows, plane.cols, maxRows, maxCols);
    for (int64_t r = 0; r < plane.rows; ++r) d.addRow(r, &plane.values[static_cast<std::size_t>(r * plane.cols)]);
    return d.take();
}

Downsampler::Downsampler(int64_t rows, int64_t cols, int64_t maxRows, int64_t maxCols) : cols_(cols) {
    if (rows <= 0 || cols <= 0) return;
    maxRows = std::max<int64_t>(maxRows, 1);
    maxCols = std::max<int64_t>(maxCols, 1);
    d_.blockRows = (rows + maxRows - 1) / maxRows;
    d_.blockCols = (cols + maxCols - 1) / maxCols;
    d_.rows = (rows + d_.blockRows - 1) / d_.blockRows;
    d_.cols = (cols + d_.blockCols - 1) / d_.blockCols;
    constexpr double inf = std::numeric_limits<double>::infinity();
    d_.cells.assign(static_cast<std::size_t>(d_.rows * d_.cols), Cell{inf, -inf, kCellEmpty});
}

void Downsampler::addRow(int64_t r, const double* v) {
    Cell* row = &d_.cells[static_cast<std::size_t>((r / d_.blockRows) * d_.cols)];
    for (int64_t c = 0; c < cols_; ++c) {
        Cell& cell = row[c / d_.blockCols];
        const double x = v[c];
        if (std::isnan(x)) {
            cell.flags |= kCellNaN;
        } else if (std::isinf(x)) {
            cell.flags |= x > 0 ? kCellPosInf : kCellNegInf;
        } else {
            cell.flags &= static_cast<uint8_t>(~kCellEmpty);
            cell.min = std::min(cell.min, x);
            cell.max = std::max(cell.max, x);
        }
    }
}

Downsampled Downsampler::take() {
    for (Cell& c : d_.cells)
        if (c.flags & kCellEmpty) c.min = c.max = 0;
    return std::move(d_);
}

}  // namespace opscope::view
