#include "edge_index.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "opscope/error.h"

namespace opscope::metrics::detail {
namespace {

// The exponent's bits of a key (the key without its sign bit).
constexpr uint64_t kExponentMask = (uint64_t{1} << (EdgeIndex::kKeyBits - 1)) - 1;

double fromBits(uint64_t b) {
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

}  // namespace

EdgeIndex::EdgeIndex(std::vector<double> edges, const char* what) : edges_(std::move(edges)) {
    if (std::any_of(edges_.begin(), edges_.end(), [](double e) { return std::isnan(e); }) ||
        !std::is_sorted(edges_.begin(), edges_.end()))
        throw UsageError(std::string(what) + " must be increasing numbers");
    const auto upper = [&](double v) {
        return static_cast<uint32_t>(std::upper_bound(edges_.begin(), edges_.end(), v) - edges_.begin());
    };
    const std::size_t keys = std::size_t{1} << kKeyBits;
    first_.resize(keys);
    last_.resize(keys);
    for (uint64_t key = 0; key < keys; ++key) {
        // The key's patterns run from `first` (smallest magnitude) to `last` (largest); for a
        // negative key the largest magnitude is the smallest value. The largest exponent holds
        // the infinity and the NaNs, which answer edges.size() like upper_bound.
        const double first = fromBits(key << kMantissaBits);
        const double last = fromBits(((key + 1) << kMantissaBits) - 1);
        const bool negative = (key >> (kKeyBits - 1)) != 0;
        const bool infinityAndNaNs = (key & kExponentMask) == kExponentMask;
        first_[key] = upper(negative && !infinityAndNaNs ? last : first);
        last_[key] = infinityAndNaNs ? static_cast<uint32_t>(edges_.size()) : upper(negative ? first : last);
    }
    padded_ = edges_;
    padded_.resize(edges_.size() + kLinearScan, 0.0);
}

}  // namespace opscope::metrics::detail
