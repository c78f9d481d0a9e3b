// Test data the slice-summary suites share: normally distributed tensors, an fp16 output a little
// off its float64 reference, and the source of an error map of the two.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "opscope/host_tensor.h"
#include "opscope/view/slice_summary.h"

namespace opscope::test {

inline HostTensor randomNormal(DType dt, std::vector<int64_t> shape, unsigned seed, double mean, double stddev) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> dist(mean, stddev);
    std::vector<double> v(static_cast<std::size_t>(shapeNumel(shape)));
    for (double& x : v) x = dist(gen);
    return HostTensor::fromDoubles(dt, std::move(shape), v);
}

// The reference times (1 + 1e-3 sin i), rounded to float16.
inline HostTensor perturbedFloat16(const HostTensor& reference) {
    HostTensor out(DType::Float16, reference.shape());
    for (int64_t i = 0; i < reference.numel(); ++i)
        out.setFromDouble(i, reference.getAsDouble(i) * (1 + 1e-3 * std::sin(static_cast<double>(i))));
    return out;
}

// `content` of the float16 output against its reference.
inline view::SliceSource float16ErrorSource(const HostTensor& out, const HostTensor& reference,
                                            view::SliceContent content) {
    view::SliceSource src;
    src.tensor = out.view();
    src.reference = reference.view();
    src.content = content;
    src.outputDtype = DType::Float16;
    return src;
}

}  // namespace opscope::test
