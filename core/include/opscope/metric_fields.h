// The metric columns, once: every writer of a comparison (CLI JSON/CSV/text, the results table,
// the GUI's metrics table, session files) iterates this table instead of naming the metrics
// itself, so they cannot disagree on names, order or where a metric applies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "opscope/json_writer.h"
#include "opscope/metrics.h"

namespace opscope::metrics {

// How a value reads: a count of elements, a real, a cosine (many digits), a share of elements
// (0..1, shown as a percentage by people-facing views), a ULP distance.
enum class FieldFormat { Count, Real, Cosine, Share, Ulp };

struct MetricField {
    const char* key;         // JSON, CSV and HDF5 attribute name: "max_rel_error"
    const char* label;       // for people: "Max rel error"
    const char* shortLabel;  // a narrow table column: "max rel"
    FieldFormat format;
    // The value, or nullopt where the metric does not apply to this comparison (ULP of a
    // non-floating output, tolerance violations when no tolerance was checked): written as null,
    // an empty CSV cell, "—".
    std::optional<double> (*value)(const ComparisonMetrics&);
    // Sets it back from a report (a value that applies: ULP and tolerance fields mark themselves
    // applicable).
    void (*set)(ComparisonMetrics&, double);
};

// In report order: count, finite_count, cosine, abs/rel errors, rmse, error_balance, the
// shares, ULP, small values, NaN/Inf counts, mismatches, tolerance violations.
const std::vector<MetricField>& metricFields();
// The field with this key; throws UsageError for an unknown key (a programming error).
const MetricField& metricField(const std::string& key);

// Where an element of interest is ("worst_rel", "worst_abs", "first_nonfinite_mismatch").
struct ElementField {
    const char* key;
    const char* label;
    const ElementRef& (*element)(const ComparisonMetrics&);
    ElementRef& (*elementToSet)(ComparisonMetrics&);  // for reading a report back
};
const std::vector<ElementField>& elementFields();

// The metrics of one comparison as a JSON object, the one schema every report and session file
// uses: output_dtype, shape, every metricFields() key (null where it does not apply), every
// elementFields() key (null when there is no such element).
void writeMetricsJson(JsonWriter& w, const ComparisonMetrics& m);

}  // namespace opscope::metrics
