// Design: element-wise, parallel over contiguous ranges; the rounding is done on the bits so it
// is exact and independent of the host's floating-point environment.
#include "cube_precision.h"

#include <cstring>

#include "opscope/dispatch.h"
#include "opscope/parallel.h"

namespace opscope::kernels {

float roundToHF32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    if ((u & 0x7F800000u) == 0x7F800000u) return v;  // Inf, NaN
    const uint32_t lsb = (u >> 12) & 1u;             // last kept mantissa bit: ties to even
    u = (u + 0x7FFu + lsb) & ~0xFFFu;                // a carry may bump the exponent (or reach Inf)
    float r;
    std::memcpy(&r, &u, sizeof r);
    return r;
}

void castForCube(const TensorView& src, float* dst, CubeRounding rounding) {
    const int64_t n = src.numel();
    dispatchKernel<Float32Family>(src.dtype, "Cast", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* s = static_cast<const T*>(src.first());
        parallelFor(0, n, 1 << 16, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
                const float v = static_cast<float>(s[i]);
                switch (rounding) {
                    case CubeRounding::HF32: dst[i] = roundToHF32(v); break;
                    case CubeRounding::FP16: dst[i] = roundToHalf(v); break;
                    default: dst[i] = v; break;
                }
            }
        });
    });
}

}  // namespace opscope::kernels
