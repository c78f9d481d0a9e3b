// GridSampler2DBackward kernels on dense tensors of one compute type (float32, or float64 for
// float64 data). gradOutput is [N, C, Ho, Wo] (NCHW) or [N, Ho, Wo, C] (NHWC), input and
// inputGrad [N, C, H, W] or [N, H, W, C]; grid and gridGrad are [N, Ho, Wo, 2] (x, y).
// Semantics are PyTorch's CPU grid_sampler_2d_backward; see ops/grid_sampler2d_backward/README.md.
#pragma once

#include <cstdint>

#include "opscope/dtype.h"

namespace opscope::kernels {

enum class GridInterpolation { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPadding { Zeros = 0, Border = 1, Reflection = 2 };
enum class GridLayout { NCHW, NHWC };

struct GridSamplerGradProblem {
    int64_t N = 0, C = 0, H = 0, W = 0, Ho = 0, Wo = 0;
    GridInterpolation interpolation = GridInterpolation::Bilinear;
    GridPadding padding = GridPadding::Zeros;
    bool alignCorners = false;
    GridLayout layout = GridLayout::NHWC;
};

// inputGrad is a scatter. It is made race-free and deterministic by ownership: a task owns
// (batch n, channel block b) and is the only writer of inputGrad[n, block b]; inside a task the
// grid points are visited in raster order. Channel blocks (multiples of 16 channels) are only
// used when the batches alone cannot keep the threads busy; their count is fixed when the plan
// is built, and gridGrad, a sum over channels, is then reduced over the blocks in block order.
struct ChannelBlocks {
    int64_t size = 0;  // channels per block (the last block may be shorter)
    int64_t count = 1;
};
ChannelBlocks gridSamplerChannelBlocks(int64_t N, int64_t C, int threads);

// Every buffer holds `dtype`, the compute type: float32, or float64.
struct GridSamplerGradTensors {
    DType dtype = DType::Float32;
    const void* gradOutput = nullptr;
    const void* input = nullptr;  // may be null when gridGrad is not wanted or mode is nearest
    const void* grid = nullptr;
    void* inputGrad = nullptr;     // null: not wanted
    void* gridGrad = nullptr;      // null: not wanted
    void* gridPartials = nullptr;  // [blocks.count, N, Ho, Wo, 2] when blocks.count > 1
};

void gridSamplerGrad(const GridSamplerGradProblem& p, const GridSamplerGradTensors& t, const ChannelBlocks& blocks);

}  // namespace opscope::kernels
