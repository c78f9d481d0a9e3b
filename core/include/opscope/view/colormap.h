// Colormaps as pure functions from a normalized value t in [0, 1] to a colour. Diverging maps
// put t = 0.5 (value 0 when the range is symmetric) at white; sequential maps grow with t.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::view {

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
    bool operator!=(const Rgb& o) const { return !(*this == o); }
    uint32_t argb() const { return 0xff000000u | (uint32_t(r) << 16) | (uint32_t(g) << 8) | uint32_t(b); }
};

enum class Colormap {
    CoolWarm,  // diverging blue - white - red: signed values such as gradients and errors
    Viridis,   // sequential, perceptually uniform: magnitudes
    Magma,     // sequential, dark to bright: error magnitudes
    Gray,      // sequential black to white
};

std::vector<Colormap> allColormaps();
const char* colormapName(Colormap c);  // "coolwarm", "viridis", ...
bool parseColormap(const std::string& name, Colormap* out);
bool isDiverging(Colormap c);

// t is clamped to [0, 1]; NaN maps to the low end.
Rgb mapColor(Colormap c, double t);

// Overlay colours for values no colormap shows, chosen away from every map's hues.
inline constexpr Rgb kNaNColor{255, 0, 255};     // magenta
inline constexpr Rgb kPosInfColor{255, 255, 0};  // yellow
inline constexpr Rgb kNegInfColor{0, 255, 255};  // cyan
// Elements beyond tolerance: green, which no diverging (blue-red), magma or gray map uses;
// orange on viridis, which has green but no orange.
Rgb beyondToleranceColor(Colormap c);

}  // namespace opscope::view
