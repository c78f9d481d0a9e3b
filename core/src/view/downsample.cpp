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

void Downsampler::addRowPart(int64_t r, int64_t col0, const double* v, int64_t n) {
    const int64_t end = std::min(cols_, col0 + n);
    Cell* cell = &d_.cells[static_cast<std::size_t>((r / d_.blockRows) * d_.cols + col0 / d_.blockCols)];
    for (int64_t c0 = col0; c0 < end; c0 = (c0 / d_.blockCols + 1) * d_.blockCols, ++cell) {
        const int64_t c1 = std::min(end, (c0 / d_.blockCols + 1) * d_.blockCols);
        double lo = cell->min, hi = cell->max;
        uint8_t flags = cell->flags;
        for (int64_t c = c0; c < c1; ++c) {
            const double x = v[c - col0];
            if (x - x == 0) {  // finite: the one branch the common case takes
                lo = std::min(lo, x);
                hi = std::max(hi, x);
                flags &= static_cast<uint8_t>(~kCellEmpty);
            } else {
                flags |= std::isnan(x) ? kCellNaN : x > 0 ? kCellPosInf : kCellNegInf;
            }
        }
        cell->min = lo;
        cell->max = hi;
        cell->flags = flags;
    }
}

Downsampled Downsampler::take() {
    for (Cell& c : d_.cells)
        if (c.flags & kCellEmpty) c.min = c.max = 0;
    return std::move(d_);
}

}  // namespace opscope::view
