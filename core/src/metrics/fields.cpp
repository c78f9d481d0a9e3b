// The metric columns (see metric_fields.h).
#include "opscope/metric_fields.h"

#include <stdexcept>

#include "opscope/error.h"

namespace opscope::metrics {
namespace {

using M = ComparisonMetrics;
using V = std::optional<double>;

double count(int64_t n) { return static_cast<double>(n); }
int64_t whole(double v) { return static_cast<int64_t>(v); }

}  // namespace

const std::vector<MetricField>& metricFields() {
    static const std::vector<MetricField> fields = {
        {"count", "Elements", "elements", FieldFormat::Count, [](const M& m) -> V { return count(m.count); },
         [](M& m, double v) { m.count = whole(v); }},
        {"finite_count", "Finite pairs", "finite", FieldFormat::Count,
         [](const M& m) -> V { return count(m.finiteCount); }, [](M& m, double v) { m.finiteCount = whole(v); }},
        {"cosine", "Cosine similarity", "cosine", FieldFormat::Cosine, [](const M& m) -> V { return m.cosine; },
         [](M& m, double v) { m.cosine = v; }},
        {"max_abs_error", "Max abs error", "max abs", FieldFormat::Real, [](const M& m) -> V { return m.maxAbsError; },
         [](M& m, double v) { m.maxAbsError = v; }},
        {"mean_abs_error", "Mean abs error", "mean abs", FieldFormat::Real,
         [](const M& m) -> V { return m.meanAbsError; }, [](M& m, double v) { m.meanAbsError = v; }},
        {"max_rel_error", "Max rel error", "max rel", FieldFormat::Real, [](const M& m) -> V { return m.maxRelError; },
         [](M& m, double v) { m.maxRelError = v; }},
        {"mean_rel_error", "Mean rel error", "mean rel", FieldFormat::Real,
         [](const M& m) -> V { return m.meanRelError; }, [](M& m, double v) { m.meanRelError = v; }},
        {"rmse", "RMSE", "rmse", FieldFormat::Real, [](const M& m) -> V { return m.rmse; },
         [](M& m, double v) { m.rmse = v; }},
        {"error_balance", "Error balance", "balance", FieldFormat::Real, [](const M& m) -> V { return m.errorBalance; },
         [](M& m, double v) { m.errorBalance = v; }},
        {"share_rel_below_1e-2", "Rel error < 1e-2", "rel<1e-2", FieldFormat::Share,
         [](const M& m) -> V { return m.shareRelBelow1e2; }, [](M& m, double v) { m.shareRelBelow1e2 = v; }},
        {"share_rel_below_1e-3", "Rel error < 1e-3", "rel<1e-3", FieldFormat::Share,
         [](const M& m) -> V { return m.shareRelBelow1e3; }, [](M& m, double v) { m.shareRelBelow1e3 = v; }},
        {"share_rel_below_1e-4", "Rel error < 1e-4", "rel<1e-4", FieldFormat::Share,
         [](const M& m) -> V { return m.shareRelBelow1e4; }, [](M& m, double v) { m.shareRelBelow1e4 = v; }},
        {"max_ulp_error", "Max ULP error", "max ulp", FieldFormat::Ulp,
         [](const M& m) -> V { return m.ulpApplicable ? V(m.maxUlpError) : std::nullopt; },
         [](M& m, double v) { m.ulpApplicable = true, m.maxUlpError = v; }},
        {"mean_ulp_error", "Mean ULP error", "mean ulp", FieldFormat::Ulp,
         [](const M& m) -> V { return m.ulpApplicable ? V(m.meanUlpError) : std::nullopt; },
         [](M& m, double v) { m.ulpApplicable = true, m.meanUlpError = v; }},
        {"small_value_count", "Small values", "small", FieldFormat::Count,
         [](const M& m) -> V { return count(m.smallValueCount); },
         [](M& m, double v) { m.smallValueCount = whole(v); }},
        {"small_value_error_ratio", "Small-value error ratio", "small err", FieldFormat::Share,
         [](const M& m) -> V { return m.smallValueCount > 0 ? V(m.smallValueErrorRatio) : std::nullopt; },
         [](M& m, double v) { m.smallValueErrorRatio = v; }},
        {"nan_actual", "NaN in output", "nan out", FieldFormat::Count,
         [](const M& m) -> V { return count(m.nanActual); }, [](M& m, double v) { m.nanActual = whole(v); }},
        {"nan_reference", "NaN in reference", "nan ref", FieldFormat::Count,
         [](const M& m) -> V { return count(m.nanReference); }, [](M& m, double v) { m.nanReference = whole(v); }},
        {"inf_actual", "Inf in output", "inf out", FieldFormat::Count,
         [](const M& m) -> V { return count(m.infActual); }, [](M& m, double v) { m.infActual = whole(v); }},
        {"inf_reference", "Inf in reference", "inf ref", FieldFormat::Count,
         [](const M& m) -> V { return count(m.infReference); }, [](M& m, double v) { m.infReference = whole(v); }},
        {"nonfinite_mismatches", "NaN/Inf mismatches", "mismatch", FieldFormat::Count,
         [](const M& m) -> V { return count(m.nonFiniteMismatches); },
         [](M& m, double v) { m.nonFiniteMismatches = whole(v); }},
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
        {"worst_rel", "Worst rel at", [](const M& m) -> const ElementRef& { return m.worstRel; },
         [](M& m) -> ElementRef& { return m.worstRel; }},
        {"worst_abs", "Worst abs at", [](const M& m) -> const ElementRef& { return m.worstAbs; },
         [](M& m) -> ElementRef& { return m.worstAbs; }},
        {"first_nonfinite_mismatch", "First NaN/Inf mismatch at",
         [](const M& m) -> const ElementRef& { return m.firstMismatch; },
         [](M& m) -> ElementRef& { return m.firstMismatch; }},
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
