#include "opscope/view/scale.h"

#include "opscope/names.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opscope::view {

namespace {

constexpr Named<ScaleKind> kScales[] = {
    {ScaleKind::Linear, "linear"}, {ScaleKind::Log, "log"}, {ScaleKind::SymLog, "symlog"}};

constexpr Named<RangeMode> kRangeModes[] = {{RangeMode::Autofit, "autofit"},
                                            {RangeMode::Symmetric, "symmetric"},
                                            {RangeMode::Percentile, "percentile"},
                                            {RangeMode::Manual, "manual"}};

}  // namespace

const char* scaleName(ScaleKind s) { return nameOf(kScales, s); }

bool parseScale(const std::string& name, ScaleKind* out) { return parseNamed(name, kScales, out); }

const char* rangeModeName(RangeMode m) { return nameOf(kRangeModes, m); }

bool parseRangeMode(const std::string& name, RangeMode* out) { return parseNamed(name, kRangeModes, out); }

namespace {

// A usable range: lo < hi, both finite, lo > 0 for log.
ValueRange widen(ValueRange r, ScaleKind scale) {
    if (!std::isfinite(r.lo) || !std::isfinite(r.hi)) r = {0, 1};
    if (r.lo > r.hi) std::swap(r.lo, r.hi);
    if (scale == ScaleKind::Log) {
        if (r.hi <= 0) r = {1, 10};
        if (r.lo <= 0) r.lo = r.hi * 1e-6;
        if (r.lo == r.hi) r = {r.lo / 2, r.hi * 2};
        return r;
    }
    if (r.lo == r.hi) {
        const double d = r.lo == 0 ? 1.0 : std::fabs(r.lo) * 0.01;
        r = {r.lo - d, r.hi + d};
    }
    return r;
}

double quantile(std::vector<double>& v, double q) {
    const std::size_t k = static_cast<std::size_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1) + 0.5);
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

}  // namespace

ValueRange computeRange(const std::vector<double>& values, const RangeRequest& req, ScaleKind scale) {
    if (req.mode == RangeMode::Manual) return widen({req.manualLo, req.manualHi}, scale);
    std::vector<double> usable;
    usable.reserve(values.size());
    for (double v : values)
        if (std::isfinite(v) && (scale != ScaleKind::Log || v > 0)) usable.push_back(v);
    if (usable.empty()) return scale == ScaleKind::Log ? ValueRange{1, 10} : ValueRange{0, 1};
    const auto [mn, mx] = std::minmax_element(usable.begin(), usable.end());
    ValueRange r{*mn, *mx};
    switch (req.mode) {
        case RangeMode::Autofit:
        case RangeMode::Manual: break;
        case RangeMode::Symmetric:
            if (scale != ScaleKind::Log) {
                const double m = std::max(std::fabs(r.lo), std::fabs(r.hi));
                r = {-m, m};
            }
            break;
        case RangeMode::Percentile: {
            double p = std::clamp(req.percentile, 0.0, 100.0);
            if (p < 50) p = 100 - p;
            r.lo = quantile(usable, (100 - p) / 100);
            r.hi = quantile(usable, p / 100);
            break;
        }
    }
    return widen(r, scale);
}

double defaultLinthresh(const ValueRange& r) {
    const double m = std::max(std::fabs(r.lo), std::fabs(r.hi));
    return m > 0 ? m * 1e-3 : 1.0;
}

ValueScale::ValueScale(ScaleKind kind, ValueRange range, double linthresh)
    : kind_(kind), range_(widen(range, kind)), linthresh_(linthresh > 0 ? linthresh : defaultLinthresh(range_)) {
    f0_ = forward(range_.lo);
    f1_ = forward(range_.hi);
    if (!(f1_ > f0_)) f1_ = f0_ + 1;
}

double ValueScale::forward(double v) const {
    switch (kind_) {
        case ScaleKind::Linear: return v;
        case ScaleKind::Log: return v > 0 ? std::log10(v) : -std::numeric_limits<double>::infinity();
        case ScaleKind::SymLog: return std::copysign(std::log10(1 + std::fabs(v) / linthresh_), v);
    }
    return v;
}

double ValueScale::normalize(double v) const {
    if (std::isnan(v)) return v;
    const double t = (forward(v) - f0_) / (f1_ - f0_);
    if (std::isnan(t)) return 0;
    return std::clamp(t, 0.0, 1.0);
}

double ValueScale::denormalize(double t) const {
    const double y = f0_ + t * (f1_ - f0_);
    switch (kind_) {
        case ScaleKind::Linear: return y;
        case ScaleKind::Log: return std::pow(10.0, y);
        case ScaleKind::SymLog: return std::copysign(linthresh_ * (std::pow(10.0, std::fabs(y)) - 1), y);
    }
    return y;
}

double ValueScale::centre() const {
    if (kind_ != ScaleKind::Log && range_.lo < 0 && range_.hi > 0) return 0;
    return range_.lo;
}

}  // namespace opscope::view
