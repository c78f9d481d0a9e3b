// The metric columns (see metric_fields.h).
#include "opscope/metric_fields.h"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include "opscope/error.h"

namespace opscope::metrics {
namespace {

using M = ComparisonMetrics;
using V = std::optional<double>;

double count(int64_t n) { return static_cast<double>(n); }
int64_t whole(double v) { return static_cast<int64_t>(v); }

// A column that is one member of the metrics, read as a double (a count converts) and set back
// from a report. A ULP column applies to floating outputs only; reading one back marks ULP
// applicable.
template <auto member, FieldFormat format = FieldFormat::Real>
MetricField column(const char* key, const char* label, const char* shortLabel) {
    using Member = std::remove_reference_t<decltype(std::declval<M&>().*member)>;
    return {key,
            label,
            shortLabel,
            format,
            [](const M& m) -> V {
                if (format == FieldFormat::Ulp && !m.ulpApplicable) return std::nullopt;
                return static_cast<double>(m.*member);
            },
            [](M& m, double v) {
                if (format == FieldFormat::Ulp) m.ulpApplicable = true;
                m.*member = static_cast<Member>(v);
            }};
}

// Where an element of interest is: an ElementRef member.
template <ElementRef M::*member>
ElementField elementAt(const char* key, const char* label) {
    return {key, label, [](const M& m) -> const ElementRef& { return m.*member; },
            [](M& m) -> ElementRef& { return m.*member; }};
}

}  // namespace

const std::vector<MetricField>& metricFields() {
    static const std::vector<MetricField> fields = {
        column<&M::count, FieldFormat::Count>("count", "Elements", "elements"),
        column<&M::finiteCount, FieldFormat::Count>("finite_count", "Finite pairs", "finite"),
        column<&M::cosine, FieldFormat::Cosine>("cosine", "Cosine similarity", "cosine"),
        column<&M::maxAbsError>("max_abs_error", "Max abs error", "max abs"),
        column<&M::meanAbsError>("mean_abs_error", "Mean abs error", "mean abs"),
        column<&M::maxRelError>("max_rel_error", "Max rel error", "max rel"),
        column<&M::meanRelError>("mean_rel_error", "Mean rel error", "mean rel"),
        column<&M::rmse>("rmse", "RMSE", "rmse"),
        column<&M::errorBalance>("error_balance", "Error balance", "balance"),
        column<&M::shareRelBelow1e2, FieldFormat::Share>("share_rel_below_1e-2", "Rel error < 1e-2", "rel<1e-2"),
        column<&M::shareRelBelow1e3, FieldFormat::Share>("share_rel_below_1e-3", "Rel error < 1e-3", "rel<1e-3"),
        column<&M::shareRelBelow1e4, FieldFormat::Share>("share_rel_below_1e-4", "Rel error < 1e-4", "rel<1e-4"),
        column<&M::maxUlpError, FieldFormat::Ulp>("max_ulp_error", "Max ULP error", "max ulp"),
        column<&M::meanUlpError, FieldFormat::Ulp>("mean_ulp_error", "Mean ULP error", "mean ulp"),
        column<&M::smallValueCount, FieldFormat::Count>("small_value_count", "Small values", "small"),
        {"small_value_error_ratio", "Small-value error ratio", "small err", FieldFormat::Share,
         [](const M& m) -> V { return m.smallValueCount > 0 ? V(m.smallValueErrorRatio) : std::nullopt; },
         [](M& m, double v) { m.smallValueErrorRatio = v; }},
        column<&M::nanActual, FieldFormat::Count>("nan_actual", "NaN in output", "nan out"),
        column<&M::nanReference, FieldFormat::Count>("nan_reference", "NaN in reference", "nan ref"),
        column<&M::infActual, FieldFormat::Count>("inf_actual", "Inf in output", "inf out"),
        column<&M::infReference, FieldFormat::Count>("inf_reference", "Inf in reference", "inf ref"),
        column<&M::nonFiniteMismatches, FieldFormat::Count>("nonfinite_mismatches", "NaN/Inf mismatches", "mismatch"),
        {"tolerance_violations", "Beyond tolerance", "beyond tol", FieldFormat::Count,
         [](const M& m) -> V { return m.toleranceChecked ? V(count(m.toleranceViolations)) : std::nullopt; },
         [](M& m, double v) { m.toleranceChecked = true, m.toleranceViolations = whole(v); }},
    };
    return fields;
}

const MetricField& metricField(const std::string& key) {
    for (const MetricField& f : metricFields())
        if (key == f.key) return f;
    throw UsageError("no metric field '" + key + "'");
}

const std::vector<ElementField>& elementFields() {
    static const std::vector<ElementField> fields = {
        elementAt<&M::worstRel>("worst_rel", "Worst rel at"),
        elementAt<&M::worstAbs>("worst_abs", "Worst abs at"),
        elementAt<&M::firstMismatch>("first_nonfinite_mismatch", "First NaN/Inf mismatch at"),
    };
    return fields;
}

void writeMetricsJson(JsonWriter& w, const ComparisonMetrics& m) {
    w.beginObject();
    w.field("output_dtype", dtypeName(m.outputDtype)).field("shape", m.shape);
    for (const MetricField& f : metricFields()) {
        w.key(f.key);
        const std::optional<double> v = f.value(m);
        if (!v)
            w.null();
        else if (f.format == FieldFormat::Count)
            w.value(static_cast<int64_t>(*v));
        else
            w.value(*v);
    }
    for (const ElementField& f : elementFields()) {
        const ElementRef& e = f.element(m);
        w.key(f.key);
        if (e.index < 0) {
            w.null();
            continue;
        }
        w.beginObject();
        w.field("index", e.index).field("coords", e.coords).field("actual", e.actual).field("reference", e.reference);
        w.field("abs_error", e.absError).field("rel_error", e.relError);
        w.endObject();
    }
    w.endObject();
}

}  // namespace opscope::metrics
