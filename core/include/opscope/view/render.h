// A downsampled plane as 32-bit pixels (0xAARRGGBB, what QImage::Format_RGB32 reads): the
// colormap over the value scale, with NaN/Inf overlays and an optional "beyond tolerance"
// mask. Widgets only blit the result.
#pragma once

#include <cstdint>
#include <vector>

#include "opscope/view/colormap.h"
#include "opscope/view/downsample.h"
#include "opscope/view/scale.h"

namespace opscope::view {

struct DisplaySettings {
    Colormap colormap = Colormap::CoolWarm;
    ValueScale scale;
    bool showNonFinite = true;  // paint NaN / +Inf / -Inf cells in their overlay colours
    bool showBeyond = true;     // paint masked cells in beyondToleranceColor(colormap)
};

// One pixel per cell, row-major. `beyond` (same cell grid, may be null) marks cells to
// flag: a cell is flagged when the mask's max in that block is > 0.
std::vector<uint32_t> renderCells(const Downsampled& cells, const DisplaySettings& settings,
                                  const Downsampled* beyond = nullptr);

// The colour of one value under the settings (overlays included).
Rgb colorFor(double value, const DisplaySettings& settings);

}  // namespace opscope::view
