// Downsampling a plane for display without hiding extremes: each block of cells keeps its
// minimum, its maximum and whether it holds NaN, +Inf or -Inf, so one bad element in a
// million still shows on screen.
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/view/slice.h"

namespace opscope::view {

enum CellFlag : uint8_t {
    kCellNaN = 1,
    kCellPosInf = 2,
    kCellNegInf = 4,
    kCellEmpty = 8,  // no finite value in the block (min/max meaningless)
};

struct Cell {
    double min = 0;
    double max = 0;
    uint8_t flags = 0;
};

struct Downsampled {
    int64_t rows = 0, cols = 0;            // cells
    int64_t blockRows = 1, blockCols = 1;  // plane rows/cols per cell (the last block may be smaller)
    std::vector<Cell> cells;               // row-major

    const Cell& at(int64_t r, int64_t c) const { return cells[static_cast<std::size_t>(r * cols + c)]; }
};

// Blocks of ceil(rows/maxRows) x ceil(cols/maxCols) plane cells; block size 1 (no loss)
// when the plane already fits.
Downsampled downsample(const Plane& plane, int64_t maxRows, int64_t maxCols);

// The same in a streaming pass: feed the rows of a rows x cols plane in any order, each once,
// then take the cells. Holds only the cells, so a slice of any size is downsampled without
// being materialised. Rows of different rows of cells (row / blockRows()) touch different
// cells, so threads may add them at the same time.
class Downsampler {
public:
    Downsampler(int64_t rows, int64_t cols, int64_t maxRows, int64_t maxCols);
    void addRow(int64_t row, const double* values) { addRowPart(row, 0, values, cols_); }  // `cols` values
    // Columns [col0, col0 + n) of a row (a row longer than a band, read in parts).
    void addRowPart(int64_t row, int64_t col0, const double* values, int64_t n);
    int64_t blockRows() const { return d_.blockRows; }
    int64_t cellRows() const { return d_.rows; }
    Downsampled take();

private:
    Downsampled d_;
    int64_t cols_ = 0;
};

// Which value of a cell to colour: the one farther from `centre` (0 for a diverging map,
// the low end of the range for a sequential one), so peaks of either sign survive.
inline double cellDisplayValue(const Cell& c, double centre) {
    return (c.max - centre) >= (centre - c.min) ? c.max : c.min;
}

}  // namespace opscope::view
