#include "opscope/view/downsample.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opscope::view {

Downsampled downsample(const Plane& plane, int64_t maxRows, int64_t maxCols) {
    Downsampled d;
    if (plane.rows <= 0 || plane.cols <= 0) return d;
    maxRows = std::max<int64_t>(maxRows, 1);
    maxCols = std::max<int64_t>(maxCols, 1);
    d.blockRows = (plane.rows + maxRows - 1) / maxRows;
    d.blockCols = (plane.cols + maxCols - 1) / maxCols;
    d.rows = (plane.rows + d.blockRows - 1) / d.blockRows;
    d.cols = (plane.cols + d.blockCols - 1) / d.blockCols;
    constexpr double inf = std::numeric_limits<double>::infinity();
    d.cells.assign(static_cast<std::size_t>(d.rows * d.cols), Cell{inf, -inf, kCellEmpty});
    for (int64_t r = 0; r < plane.rows; ++r) {
        Cell* row = &d.cells[static_cast<std::size_t>((r / d.blockRows) * d.cols)];
        const double* v = &plane.values[static_cast<std::size_t>(r * plane.cols)];
        for (int64_t c = 0; c < plane.cols; ++c) {
            Cell& cell = row[c / d.blockCols];
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
    for (Cell& c : d.cells)
        if (c.flags & kCellEmpty) c.min = c.max = 0;
    return d;
}

}  // namespace opscope::view
