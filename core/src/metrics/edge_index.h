// Private to the metrics module: which bin of a fixed, sorted list of edges a value falls in,
// in a few comparisons instead of a binary search (the charts' histograms and tolerance counts
// ask this twice per element of a comparison).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace opscope::metrics::detail {

// std::upper_bound over `edges` for any double, NaN included (edges.size()), by a table keyed by
// the value's sign and binary exponent: upper_bound is monotone in the value, so all values of
// one key share a short range of answers, and only that range's edges are compared. The answer
// is upper_bound's bit for bit: the table narrows the search, the edges still decide.
class EdgeIndex {
public:
    // Throws UsageError, naming the edges `what`, unless they are sorted and none is NaN.
    EdgeIndex(std::vector<double> edges, const char* what);
    std::size_t upperBound(double value) const;  // inline below: it runs four times an element
    const std::vector<double>& edges() const { return edges_; }

    static constexpr int kKeyBits = 12;  // sign and exponent of a double
    static constexpr int kMantissaBits = 52;

private:
    static constexpr std::size_t kLinearScan = 4;  // a longer range is searched by halves
    std::vector<double> edges_;
    std::vector<double> padded_;          // edges_ and kLinearScan more, so that a scan reads no further
    std::vector<uint32_t> first_, last_;  // per key: the smallest and largest answer
};

inline std::size_t EdgeIndex::upperBound(double value) const {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const std::size_t key = static_cast<std::size_t>(bits >> kMantissaBits);
    const std::size_t first = first_[key], count = last_[key] - first;
    if (count > kLinearScan)
        return static_cast<std::size_t>(std::upper_bound(edges_.begin() + static_cast<std::ptrdiff_t>(first),
                                                         edges_.begin() + static_cast<std::ptrdiff_t>(last_[key]),
                                                         value) -
                                        edges_.begin());
    // The edges of the range that are not above the value (all of them for a NaN), counted
    // without a branch: which edge a value passes is as random as the value's low bits.
    const double* e = padded_.data() + first;
    std::size_t passed = 0;
    for (std::size_t j = 0; j < kLinearScan; ++j) passed += static_cast<std::size_t>((j < count) & !(value < e[j]));
    return first + passed;
}

}  // namespace opscope::metrics::detail
