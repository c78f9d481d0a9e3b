#include "opscope/view/render.h"

#include <cmath>

#include "opscope/parallel.h"

namespace opscope::view {
namespace {

constexpr Rgb kEmptyColor{64, 64, 64};

}  // namespace

Rgb colorFor(double v, const DisplaySettings& s) {
    if (std::isnan(v)) return s.showNonFinite ? kNaNColor : kEmptyColor;
    if (std::isinf(v) && s.showNonFinite) return v > 0 ? kPosInfColor : kNegInfColor;
    return mapColor(s.colormap, s.scale.normalize(v));
}

std::vector<uint32_t> renderCells(const Downsampled& d, const DisplaySettings& s, const Downsampled* beyond) {
    std::vector<uint32_t> px(d.cells.size());
    const double centre = s.scale.centre();
    const bool useMask = s.showBeyond && beyond && beyond->rows == d.rows && beyond->cols == d.cols;
    const Rgb beyondColor = beyondToleranceColor(s.colormap);
    // Each pixel depends on its cell alone: any thread count gives the same image.
    parallelFor(0, static_cast<int64_t>(px.size()), int64_t{1} << 16, [&](int64_t first, int64_t last) {
        const auto b = static_cast<std::size_t>(first), e = static_cast<std::size_t>(last);
        for (std::size_t i = b; i < e; ++i) {
            const Cell& c = d.cells[i];
            Rgb rgb;
            if (s.showNonFinite && (c.flags & kCellNaN))
                rgb = kNaNColor;
            else if (s.showNonFinite && (c.flags & kCellPosInf))
                rgb = kPosInfColor;
            else if (s.showNonFinite && (c.flags & kCellNegInf))
                rgb = kNegInfColor;
            else if (c.flags & kCellEmpty)
                rgb = kEmptyColor;
            else {
                rgb = mapColor(s.colormap, s.scale.normalize(cellDisplayValue(c, centre)));
                // A solid colour no map uses: unmistakable (the value is one hover away).
                if (useMask && beyond->cells[i].max > 0 && !(beyond->cells[i].flags & kCellEmpty)) rgb = beyondColor;
            }
            px[i] = rgb.argb();
        }
    });
    return px;
}

}  // namespace opscope::view
