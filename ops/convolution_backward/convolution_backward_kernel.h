// ConvolutionBackward GEMM stages on dense float32 (the plan rounds operands per cubeMathType
// before and rounds results to the output dtype after). One code path for 1D, 2D and 3D: the
// missing leading spatial axes have size one.
#pragma once

#include <cstdint>

#include "packed_gemm.h"

namespace opscope::kernels {

// One convolution seen from its two sides. A position o on the "small" side Y (a convolution's
// output, a transposed convolution's input) reads the "big" side X at, per axis (D, H, W),
//     x = o*stride - pad + k*dilation            (pad = the leading padding)
// The weight is [CY, CXg, kD, kH, kW]: one row per Y channel, CXg = CX/G X channels per group.
// Tensors are [N, C, D, H, W] row-major.
struct ConvGeometry {
    int64_t N = 0, G = 1, CY = 0, CXg = 0;
    int64_t xs[3] = {1, 1, 1}, ys[3] = {1, 1, 1}, k[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};

    int64_t CYg() const { return CY / G; }
    int64_t CX() const { return CXg * G; }
    int64_t kernelSize() const { return k[0] * k[1] * k[2]; }
    int64_t xSize() const { return xs[0] * xs[1] * xs[2]; }
    int64_t ySize() const { return ys[0] * ys[1] * ys[2]; }
    int64_t colRows() const { return CXg * kernelSize(); }  // rows of one group's im2col matrix
    // 1x1x1 kernel, stride 1, no padding, equal sizes: im2col is the identity and is skipped.
    bool pointwise() const;
    // One X and one Y channel per group: the direct kernels of conv_depthwise.h, no GEMM.
    bool depthwise() const { return CXg == 1 && CY == G; }
};

// How the stages split the work. Chosen in phase 1 from the shapes and the thread count, so the
// workspace can hold one im2col buffer per concurrent chunk and one partial sum per slice.
struct ConvTiling {
    int64_t tile = 1;                   // Y positions per GEMM column block
    int64_t workers = 1;                // max concurrent chunks = im2col buffers
    int64_t cxBlocks = 1;               // X-channel blocks per (image, group) in the scatter stage
    int64_t slices = 1;                 // gradWeight partial sums (<= workers)
    bool filterByGroup = false;         // gradWeight parallel over groups (each owns its rows) instead
    bool filterPadded = false;          // gradWeight reads a zero-padded copy of X, no im2col
                                        // (conv_padded_input.h: paddedFilterApplies, set by the plan)
    bool filterTapRows = true;          // 1D gradWeight per tap from a window copy where filterByTapRows
                                        // allows it (conv_tap_rows.h; false: im2col, for comparisons)
    GemmKind gemm = GemmKind::Float32;  // BFloat16 for the bf16 cube precision (packed_gemm.h)
};
ConvTiling chooseTiling(const ConvGeometry& g, int threads);
// Workspace floats: all im2col buffers, and gradWeight's float32 sums of every slice (transposed).
int64_t colsBufferFloats(const ConvGeometry& g, const ConvTiling& t);
int64_t filterPartialFloats(const ConvGeometry& g, const ConvTiling& t);

// T is float, or uint16_t for operands straight from bf16 storage (the bits of each value; im2col
// columns in bf16 too) on the BFloat16 GEMM where bf16StorageAvailable(): the same packed units,
// so the same bits as from their float32 widening. Depthwise shapes take either, on any build
// (conv_depthwise.h: they widen bf16 planes as they go, no GEMM).

// X = col2im(W^T · Y) per (image, group, X-channel block): a convolution's gradInput from
// gradOutput ("BackpropInput"). Each work item owns its X channels, so writes never race.
template <class T>
void convScatterInput(const ConvGeometry& g, const ConvTiling& t, const T* w, const T* y, float* x, float* cols);

// Y = W · im2col(X) per (image, group, column tile): a forward convolution, which is the
// gradInput of a transposed convolution (X = its gradOutput, Y = its gradInput).
template <class T>
void convGatherOutput(const ConvGeometry& g, const ConvTiling& t, const T* w, const T* x, float* y, T* cols);

// dW = Σ_n Y_n · im2col(X_n)^T ("BackpropFilter"), float32 accumulation, per slice into
// `partials` ([slices, CY, colRows]) and summed into dw in slice order at the end. With
// t.filterPadded it is computed transposed (dW_g^T += cols · Y^T, the columns read in place from
// the padded copy of X by gemmInPlaceA: only Y is packed), otherwise as Y · cols^T from an im2col
// block. With filterByGroup each group's block is summed over all (image, tile) items by one
// chunk; otherwise the items are cut into `slices`. Either way a fixed thread count gives fixed
// bits, the same in both forms (each element is the same chain of steps).
// `scratch`: the im2col buffers (colsBufferFloats), or with t.filterPadded the padded copy of X
// (paddedCopyElements).
template <class T>
void convFilterGrad(const ConvGeometry& g, const ConvTiling& t, const T* y, const T* x, float* dw, float* partials,
                    T* scratch);

// db[c] = Σ_n Σ_positions dy[n, c, :], accumulated in double in a fixed order, parallel over c
// (conv_bias_grad.cpp: AVX-512, bf16 read in place; the same bits for any thread count).
template <class T>  // float, or uint16_t: bf16 storage
void biasGrad(int64_t N, int64_t C, int64_t positions, const T* dy, float* db);

}  // namespace opscope::kernels
