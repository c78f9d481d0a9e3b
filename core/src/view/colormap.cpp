#include "opscope/view/colormap.h"

#include "opscope/names.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace opscope::view {
namespace {

// Control points evenly spaced over [0, 1], interpolated linearly in RGB.
using Stops = std::vector<Rgb>;

const Stops& stopsFor(Colormap c) {
    // ColorBrewer RdBu reversed: blue for negative, white at the centre, red for positive.
    static const Stops coolwarm = {{5, 48, 97},     {33, 102, 172},  {67, 147, 195},  {146, 197, 222},
                                   {209, 229, 240}, {247, 247, 247}, {253, 219, 199}, {244, 165, 130},
                                   {214, 96, 77},   {178, 24, 43},   {103, 0, 31}};
    // matplotlib viridis and magma sampled at t = k/8.
    static const Stops viridis = {{68, 1, 84},    {71, 44, 122}, {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
                                  {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}};
    static const Stops magma = {{0, 0, 4},      {28, 16, 68},   {79, 18, 123},   {129, 37, 129}, {181, 54, 122},
                                {229, 80, 100}, {251, 135, 97}, {254, 194, 135}, {252, 253, 191}};
    static const Stops gray = {{0, 0, 0}, {255, 255, 255}};
    switch (c) {
        case Colormap::CoolWarm: return coolwarm;
        case Colormap::Viridis: return viridis;
        case Colormap::Magma: return magma;
        case Colormap::Gray: return gray;
    }
    return gray;
}

uint8_t lerp(uint8_t a, uint8_t b, double f) {
    return static_cast<uint8_t>(std::lround(a + (static_cast<double>(b) - a) * f));
}

}  // namespace

namespace {
// Every colormap once, in the order the display controls offer them.
constexpr Named<Colormap> kColormaps[] = {{Colormap::CoolWarm, "coolwarm"},
                                          {Colormap::Viridis, "viridis"},
                                          {Colormap::Magma, "magma"},
                                          {Colormap::Gray, "gray"}};
}  // namespace

std::vector<Colormap> allColormaps() { return valuesOf(kColormaps); }

const char* colormapName(Colormap c) { return nameOf(kColormaps, c); }

bool parseColormap(const std::string& name, Colormap* out) { return parseNamed(name, kColormaps, out); }

bool isDiverging(Colormap c) { return c == Colormap::CoolWarm; }

Rgb beyondToleranceColor(Colormap c) { return c == Colormap::Viridis ? Rgb{255, 128, 0} : Rgb{0, 200, 83}; }

Rgb mapColor(Colormap c, double t) {
    const Stops& s = stopsFor(c);
    if (std::isnan(t)) t = 0;
    t = std::clamp(t, 0.0, 1.0);
    const double pos = t * static_cast<double>(s.size() - 1);
    const std::size_t i = std::min(static_cast<std::size_t>(pos), s.size() - 2);
    const double f = pos - static_cast<double>(i);
    return {lerp(s[i].r, s[i + 1].r, f), lerp(s[i].g, s[i + 1].g, f), lerp(s[i].b, s[i + 1].b, f)};
}

}  // namespace opscope::view
