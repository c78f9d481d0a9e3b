// Design: the flipped weight is a permutation of the weight (no arithmetic), written once per
// call into the workspace; the GEMM stage is convGatherOutput on the flipped geometry.
#include "conv_input_as_forward.h"

#include "opscope/parallel.h"

namespace opscope::kernels {

bool gradInputAsForward(const ConvGeometry& g) {
    if (g.pointwise() || g.depthwise()) return false;
    for (int a = 0; a < 3; ++a)
        if (g.stride[a] != 1) return false;
    return true;
}

ConvGeometry flippedGeometry(const ConvGeometry& g) {
    ConvGeometry f = g;
    f.CY = g.CX();
    f.CXg = g.CYg();
    for (int a = 0; a < 3; ++a) {
        f.xs[a] = g.ys[a];
        f.ys[a] = g.xs[a];
        f.pad[a] = g.dil[a] * (g.k[a] - 1) - g.pad[a];
    }
    return f;
}

namespace {

template <class T>
void flip(const ConvGeometry& g, const T* w, T* flipped) {
    const int64_t K = g.kernelSize(), CYg = g.CYg(), CXg = g.CXg;
    parallelFor(0, g.CY, 1, [&](int64_t b, int64_t e) {
        for (int64_t cy = b; cy < e; ++cy) {
            const int64_t grp = cy / CYg, co = cy % CYg;
            for (int64_t ci = 0; ci < CXg; ++ci) {
                const T* src = w + (cy * CXg + ci) * K;
                T* dst = flipped + ((grp * CXg + ci) * CYg + co) * K;
                for (int64_t k = 0; k < K; ++k) dst[K - 1 - k] = src[k];
            }
        }
    });
}

}  // namespace

void flipWeights(const ConvGeometry& g, const float* w, float* flipped) { flip(g, w, flipped); }
void flipWeights(const ConvGeometry& g, const uint16_t* w, uint16_t* flipped) { flip(g, w, flipped); }

}  // namespace opscope::kernels
