// gradBias (kernels::biasGrad, declared in convolution_backward_kernel.h) by either path, for
// the tests, which compare both with a plain loop of their own. The order of the sums is in
// conv_bias_grad.cpp.
#pragma once

#include <cstdint>

namespace opscope::kernels {

// db[c] for c in [c0, c1) as biasGrad gives it (biasGrad runs this over chunks of channels):
// dy is [N, C, positions], float or bf16 storage (uint16_t). `vectorised` picks the AVX-512 path
// where the build has it, else the portable lane loops; both give the same bits.
template <class T>
void biasSums(const T* dy, int64_t N, int64_t C, int64_t positions, int64_t c0, int64_t c1, float* db, bool vectorised);

}  // namespace opscope::kernels
