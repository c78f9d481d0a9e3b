// The convolution layer shapes of issue 14, by name. compare_torch.py keeps the same table for
// the PyTorch peers and checks it against this one through the GFLOP counter of each benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opscope::bench {

struct ConvWorkload {
    std::string name;
    std::vector<int64_t> x;  // input [N, C, spatial...]
    int64_t outChannels = 0;
    std::vector<int64_t> kernel, stride, pad;
    int64_t groups = 1;
    bool transposed = false;
    std::vector<int64_t> dilation = {};  // empty: 1 on every axis
};

inline int64_t dilationOf(const ConvWorkload& wl, std::size_t axis) {
    return wl.dilation.empty() ? 1 : wl.dilation[axis];
}

inline const std::vector<ConvWorkload>& convWorkloads() {
    static const std::vector<ConvWorkload> list = {
        {"today_3x3", {8, 64, 56, 56}, 64, {3, 3}, {1, 1}, {1, 1}},
        {"resnet_1x1", {8, 256, 56, 56}, 64, {1, 1}, {1, 1}, {0, 0}},
        {"resnet_3x3_s2", {8, 128, 56, 56}, 128, {3, 3}, {2, 2}, {1, 1}},
        {"stem_7x7_s2", {8, 3, 224, 224}, 64, {7, 7}, {2, 2}, {3, 3}},
        {"depthwise_3x3", {8, 128, 56, 56}, 128, {3, 3}, {1, 1}, {1, 1}, 128},
        {"conv1d_k3", {8, 256, 1024}, 256, {3}, {1}, {1}},
        {"conv3d_k3", {2, 32, 16, 32, 32}, 32, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
        {"transposed_4x4_s2", {8, 128, 28, 28}, 64, {4, 4}, {2, 2}, {1, 1}, 1, true},
    };
    return list;
}

struct ConvShapes {
    std::vector<int64_t> x, w, dy;
};

inline ConvShapes shapesOf(const ConvWorkload& wl) {
    ConvShapes s;
    s.x = wl.x;
    const int64_t C = wl.x[1];
    s.w = {wl.transposed ? C : wl.outChannels, (wl.transposed ? wl.outChannels : C) / wl.groups};
    s.dy = {wl.x[0], wl.outChannels};
    for (std::size_t a = 0; a < wl.kernel.size(); ++a) {
        const int64_t in = wl.x[a + 2], k = wl.kernel[a], st = wl.stride[a], p = wl.pad[a], d = dilationOf(wl, a);
        s.w.push_back(k);
        s.dy.push_back(wl.transposed ? (in - 1) * st - 2 * p + d * (k - 1) + 1
                                     : (in + 2 * p - d * (k - 1) - 1) / st + 1);
    }
    return s;
}

inline int64_t product(const std::vector<int64_t>& v, std::size_t from) {
    int64_t n = 1;
    for (std::size_t i = from; i < v.size(); ++i) n *= v[i];
    return n;
}

// Multiply-adds x 2 of the gradInput and gradWeight GEMMs (gradBias is a sum, not counted).
// Each is one product over (image, small-side channel, small-side position, tap, big-side
// channel of the group); the small side is the convolution's output (transposed: its input).
inline double gemmFlops(const ConvWorkload& wl) {
    const ConvShapes s = shapesOf(wl);
    const std::vector<int64_t>& small = wl.transposed ? s.x : s.dy;
    const std::vector<int64_t>& big = wl.transposed ? s.dy : s.x;
    const double perGemm = 2.0 * static_cast<double>(small[0] * small[1] * product(small, 2)) *
                           static_cast<double>(product(wl.kernel, 0) * (big[1] / wl.groups));
    return 2 * perGemm;
}

}  // namespace opscope::bench
