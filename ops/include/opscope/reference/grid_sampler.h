// Scalar float64 references for 2-D grid sampling (PyTorch's grid_sample / grid_sampler_2d):
// obviously correct, slow, sharing nothing with the fast kernels. input is [N, C, H, W], grid
// [N, Ho, Wo, 2] (x then y, normalised to [-1, 1]), output and gradOutput [N, C, Ho, Wo], all
// flattened row-major.
#pragma once

#include <cstdint>
#include <vector>

namespace opscope::reference {

struct GridSamplerShape {
    int64_t N = 0, C = 0, H = 0, W = 0, Ho = 0, Wo = 0;
};

struct GridSamplerOptions {
    int interpolation = 0;  // 0 bilinear, 1 nearest, 2 bicubic (cubic convolution, A = -0.75)
    int padding = 0;        // 0 zeros, 1 border, 2 reflection
    bool alignCorners = false;
};

std::vector<double> gridSampler2D(const std::vector<double>& input, const std::vector<double>& grid,
                                  const GridSamplerShape& s, const GridSamplerOptions& o);

struct GridSamplerBackwardResult {
    std::vector<double> inputGrad;  // [N, C, H, W]
    std::vector<double> gridGrad;   // [N, Ho, Wo, 2]
};

// Non-finite coordinates follow PyTorch's CPU kernel where it is defined: a NaN coordinate
// (or +-Inf under reflection) samples nothing in bilinear mode and its grid gradient is NaN
// where the interpolation weights are; nearest and bicubic clamp NaN to 0 under border and
// reflection padding (PyTorch's clip_coordinates).
GridSamplerBackwardResult gridSampler2DBackward(const std::vector<double>& gradOutput, const std::vector<double>& input,
                                                const std::vector<double>& grid, const GridSamplerShape& s,
                                                const GridSamplerOptions& o);

}  // namespace opscope::reference
