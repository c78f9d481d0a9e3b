// Value scaling for display: linear, log (positive values) and symlog (linear near zero,
// logarithmic beyond a threshold), and how the displayed range is chosen.
#pragma once

#include <string>
#include <vector>

namespace opscope::view {

enum class ScaleKind { Linear, Log, SymLog };
const char* scaleName(ScaleKind s);  // "linear", "log", "symlog"
bool parseScale(const std::string& name, ScaleKind* out);

enum class RangeMode {
    Autofit,     // finite min .. max
    Symmetric,   // -m .. m with m = max |x|: zero in the middle of a diverging map
    Percentile,  // the p-th and (100-p)-th percentiles: a few outliers do not wash out the rest
    Manual,      // lo .. hi as given
};
const char* rangeModeName(RangeMode m);
bool parseRangeMode(const std::string& name, RangeMode* out);

struct ValueRange {
    double lo = 0, hi = 1;
    bool operator==(const ValueRange& o) const { return lo == o.lo && hi == o.hi; }
};

struct RangeRequest {
    RangeMode mode = RangeMode::Autofit;
    double percentile = 99.0;  // Percentile: keep [100-p, p]
    double manualLo = 0, manualHi = 1;
};

// The range to display `values` (non-finite ones ignored). Always lo < hi: a constant tensor
// gets a small window around its value. For ScaleKind::Log, lo > 0 (the smallest positive
// value when autofitting) and Symmetric behaves as Autofit over positive values.
ValueRange computeRange(const std::vector<double>& values, const RangeRequest& request,
                        ScaleKind scale = ScaleKind::Linear);

// Maps values of [lo, hi] to t in [0, 1] on the chosen scale; values outside clamp to 0 or 1,
// NaN stays NaN. SymLog is linear inside [-linthresh, linthresh].
class ValueScale {
public:
    ValueScale() = default;
    ValueScale(ScaleKind kind, ValueRange range, double linthresh = 0);

    ScaleKind kind() const { return kind_; }
    const ValueRange& range() const { return range_; }
    double linthresh() const { return linthresh_; }

    double normalize(double v) const;    // value -> t (clamped)
    double denormalize(double t) const;  // t -> value
    // The value that sits at the middle of a diverging map: 0 when the range spans it.
    double centre() const;

private:
    double forward(double v) const;
    ScaleKind kind_ = ScaleKind::Linear;
    ValueRange range_;
    double linthresh_ = 1;
    double f0_ = 0, f1_ = 1;  // forward(lo), forward(hi)
};

// A symlog threshold suited to a range: a thousandth of its largest magnitude (never 0).
double defaultLinthresh(const ValueRange& range);

}  // namespace opscope::view
