// Design: a tile of Y positions is walked as row segments (fixed od, oh; consecutive ow). For
// each kernel tap a segment maps to one X row read at iw = ow*stride - pad + kw*dilation, so the
// valid part is found analytically: zeros, a contiguous (stride 1) or strided copy, zeros. The
// (tap, segment) pieces do not depend on the channel, so they are computed once per tile and
// replayed for every channel: no index arithmetic (divisions) in the per-channel loops.
// col2im is the same walk with += and no zeros; it touches only the channels it is given, which
// is what makes the scatter stage race-free.
#include "conv_im2col.h"

#include <algorithm>
#include <vector>

namespace opscope::kernels {
namespace {

// The j in [0, len) with 0 <= iw0 + j*s < W form [*lo, *hi).
void validRange(int64_t iw0, int64_t s, int64_t W, int64_t len, int64_t* lo, int64_t* hi) {
    int64_t a = iw0 >= 0 ? 0 : (-iw0 + s - 1) / s;
    int64_t b = iw0 >= W ? 0 : (W - 1 - iw0) / s + 1;
    a = std::min(a, len);
    b = std::min(b, len);
    *lo = a;
    *hi = std::max(a, b);
}

}  // namespace

const std::vector<Piece>& piecesOf(const ConvGeometry& g, int64_t p0, int64_t len) {
    thread_local std::vector<Piece> pieces;
    pieces.clear();
    int64_t row = 0;
    for (int64_t kd = 0; kd < g.k[0]; ++kd)
        for (int64_t kh = 0; kh < g.k[1]; ++kh)
            for (int64_t kw = 0; kw < g.k[2]; ++kw, ++row) {
                int64_t ow = p0 % g.ys[2];
                const int64_t rest = p0 / g.ys[2];
                int64_t oh = rest % g.ys[1], od = rest / g.ys[1];
                for (int64_t t = 0; t < len;) {
                    const int64_t seg = std::min(len - t, g.ys[2] - ow);
                    const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
                    const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
                    Piece p{row, t, seg, -1, ow * g.stride[2] - g.pad[2] + kw * g.dil[2], 0, 0};
                    if (id >= 0 && id < g.xs[0] && ih >= 0 && ih < g.xs[1]) {
                        p.xOff = (id * g.xs[1] + ih) * g.xs[2];
                        validRange(p.iw0, g.stride[2], g.xs[2], seg, &p.lo, &p.hi);
                    }
                    pieces.push_back(p);
                    t += seg;
                    ow = 0;
                    if (++oh == g.ys[1]) {
                        oh = 0;
                        ++od;
                    }
                }
            }
    return pieces;
}

namespace {

template <class T>
void im2colOf(const ConvGeometry& g, const T* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len, T* cols,
              int64_t ld) {
    const int64_t K = g.kernelSize(), X = g.xSize(), sw = g.stride[2];
    const std::vector<Piece>& pieces = piecesOf(g, p0, len);
    for (int64_t cx = cx0; cx < cx1; ++cx) {
        const T* xc = x + cx * X;
        T* block = cols + (cx - cx0) * K * ld;
        for (const Piece& p : pieces) {
            T* dst = block + p.row * ld + p.t;
            if (p.xOff < 0) {
                std::fill(dst, dst + p.len, T{});
                continue;
            }
            const T* src = xc + p.xOff;
            std::fill(dst, dst + p.lo, T{});
            if (sw == 1) {
                if (p.hi > p.lo) std::copy(src + (p.iw0 + p.lo), src + (p.iw0 + p.hi), dst + p.lo);
            } else {
                for (int64_t j = p.lo; j < p.hi; ++j) dst[j] = src[p.iw0 + j * sw];
            }
            std::fill(dst + p.hi, dst + p.len, T{});
        }
    }
}

}  // namespace

void im2colTile(const ConvGeometry& g, const float* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len, float* cols,
                int64_t ld) {
    im2colOf(g, x, cx0, cx1, p0, len, cols, ld);
}

void im2colTile(const ConvGeometry& g, const uint16_t* x, int64_t cx0, int64_t cx1, int64_t p0, int64_t len,
                uint16_t* cols, int64_t ld) {
    im2colOf(g, x, cx0, cx1, p0, len, cols, ld);
}

void col2imTile(const ConvGeometry& g, const float* cols, int64_t ld, int64_t cx0, int64_t cx1, int64_t p0, int64_t len,
                float* x) {
    const int64_t K = g.kernelSize(), X = g.xSize(), sw = g.stride[2];
    const std::vector<Piece>& pieces = piecesOf(g, p0, len);
    for (int64_t cx = cx0; cx < cx1; ++cx) {
        float* xc = x + cx * X;
        const float* block = cols + (cx - cx0) * K * ld;
        for (const Piece& p : pieces) {
            if (p.xOff < 0 || p.hi <= p.lo) continue;
            const float* src = block + p.row * ld + p.t;
            float* dst = xc + p.xOff;
            if (sw == 1) {
                float* __restrict d = dst + (p.iw0 + p.lo);
                const float* __restrict c = src + p.lo;
                for (int64_t j = 0; j < p.hi - p.lo; ++j) d[j] += c[j];
            } else {
                for (int64_t j = p.lo; j < p.hi; ++j) dst[p.iw0 + j * sw] += src[j];
            }
        }
    }
}

}  // namespace opscope::kernels
