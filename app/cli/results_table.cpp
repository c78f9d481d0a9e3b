#include "results_table.h"

#include <iterator>
#include <set>

#include "cli_common.h"
#include "table.h"

namespace opscope::cli {
namespace {

std::string verdictCell(const ops::Comparison& c) {
    if (!c.compared) return "NOT JUDGED";
    if (!c.judged) return "info";
    switch (c.judgement.verdict) {
        case metrics::Verdict::Pass: return "pass";
        case metrics::Verdict::Warning: return "WARN";
        case metrics::Verdict::Fail: return "FAIL";
    }
    return "?";
}

std::string location(const ops::CaseResult& r) { return r.file.empty() ? r.path : r.file + ":" + r.path; }

// Each result's name in a table: its path, with its file when several files ran.
std::vector<std::string> caseNames(const RunSummary& s) {
    std::set<std::string> files;
    for (const ops::CaseResult& r : s.results) files.insert(r.file);
    std::vector<std::string> names;
    for (const ops::CaseResult& r : s.results) names.push_back(files.size() > 1 ? location(r) : r.path);
    return names;
}

// fn(result, name) for each result of the run, in order.
template <class Fn>
void forEachNamed(const RunSummary& s, Fn&& fn) {
    const std::vector<std::string> names = caseNames(s);
    for (std::size_t i = 0; i < s.results.size(); ++i) fn(s.results[i], names[i]);
}

void printSummary(std::ostream& os, const RunSummary& s) {
    int comparisons = 0, informational = 0;
    for (const ops::CaseResult& r : s.results)
        for (const ops::Comparison& c : r.comparisons) (c.judged ? comparisons : informational)++;
    os << "\n"
       << s.results.size() << " case" << (s.results.size() == 1 ? "" : "s") << ", " << comparisons
       << " judged comparison" << (comparisons == 1 ? "" : "s");
    if (informational) os << " (+" << informational << " informational)";
    os << ": " << s.passed << " passed, " << s.failed << " failed, " << s.errors << " error"
       << (s.errors == 1 ? "" : "s") << ".";
    os << " Standard: "
       << (s.standardOverride.empty() ? "per operator (cann; dual-thousandth for convolution)" : s.standardOverride)
       << "; product " << s.product << ", " << s.threads << " thread" << (s.threads == 1 ? "" : "s")
       << (s.workers > 1 ? " in each of " + std::to_string(s.workers) + " worker processes" : "");
    if (!s.dtype.empty()) os << ", inputs cast to " << s.dtype;
    os << ".\n";
    for (const std::string& k : s.skipped) os << "skipped: " << k << "\n";
}

// The metric columns of the run table, by metric_fields.h key.
constexpr const char* kTableMetrics[] = {"cosine",         "max_abs_error",        "max_rel_error",
                                         "mean_rel_error", "share_rel_below_1e-3", "max_ulp_error"};

}  // namespace

void printRunTable(std::ostream& os, const RunSummary& s, bool verbose) {
    Table t;
    using A = Table::Align;
    t.addColumn("case");
    t.addColumn("output");
    t.addColumn("compared");
    t.addColumn("dtype");
    for (const char* key : kTableMetrics) t.addColumn(metrics::metricField(key).shortLabel, A::Right);
    t.addColumn("standard");
    t.addColumn("verdict");
    forEachNamed(s, [&](const ops::CaseResult& r, const std::string& name) {
        if (!r.ok()) {
            std::vector<std::string> row = {name, "-", "-", "-"};
            row.insert(row.end(), std::size(kTableMetrics), "");
            row.push_back(r.standard.empty() ? "-" : r.standard);
            row.push_back("ERROR");
            t.addRow(row);
            t.addNote("error: " + r.error);
            return;
        }
        bool first = true;
        for (const ops::Comparison& c : r.comparisons) {
            const metrics::ComparisonMetrics& m = c.metrics;
            std::vector<std::string> row = {first ? name : "", c.output, c.actual + " vs " + c.reference,
                                            c.compared ? dtypeName(m.outputDtype) : "-"};
            for (const char* key : kTableMetrics)
                row.push_back(c.compared ? formatMetric(metrics::metricField(key), m) : "");
            row.push_back(c.judgement.standard);
            row.push_back(verdictCell(c));
            t.addRow(row);
            first = false;
            if (!c.judged) {
                if (verbose) t.addNote("info: " + c.note);
            } else if (c.judgement.verdict != metrics::Verdict::Pass || verbose) {
                t.addNote(std::string(c.judgement.verdict == metrics::Verdict::Fail      ? "fail"
                                      : c.judgement.verdict == metrics::Verdict::Warning ? "warning"
                                                                                         : "pass") +
                          " (" + c.judgement.standard + "): " + c.judgement.reason);
            }
        }
        if (r.comparisons.empty()) {
            std::vector<std::string> row = {name, "-", "no outputs", ""};
            row.insert(row.end(), std::size(kTableMetrics), "");
            row.push_back(r.standard);
            row.push_back("pass");
            t.addRow(row);
        }
        if (verbose)
            for (const std::string& n : r.notes) t.addNote("note: " + n);
    });
    t.print(os);
    printSummary(os, s);
}

void printBriefTable(std::ostream& os, const RunSummary& s) {
    Table t;
    using A = Table::Align;
    t.addColumn("case");
    t.addColumn("op");
    t.addColumn("dtype");
    t.addColumn("outputs", A::Right);
    t.addColumn("max rel", A::Right);
    t.addColumn("rel<1e-3", A::Right);
    t.addColumn("standard");
    t.addColumn("verdict");
    forEachNamed(s, [&](const ops::CaseResult& r, const std::string& name) {
        if (!r.ok()) {
            t.addRow({name, r.op, "-", "-", "", "", r.standard.empty() ? "-" : r.standard, "ERROR"});
            t.addNote("error: " + r.error);
            return;
        }
        double maxRel = 0, minShare = 1;
        bool warned = false;
        for (const ops::Comparison& c : r.comparisons) {
            if (!c.judged) continue;
            maxRel = std::max(maxRel, c.metrics.maxRelError);
            minShare = std::min(minShare, c.metrics.shareRelBelow1e3);
            warned = warned || c.judgement.verdict == metrics::Verdict::Warning;
        }
        const std::string dtype = r.runDtype == r.caseDtype
                                      ? dtypeName(r.caseDtype)
                                      : std::string(dtypeName(r.caseDtype)) + "->" + dtypeName(r.runDtype);
        t.addRow({name, r.op, dtype, std::to_string(r.outputs.size()), formatNumber(maxRel), formatPercent(minShare),
                  r.standard, r.passed() ? (warned ? "WARN" : "pass") : "FAIL"});
        for (const ops::Comparison& c : r.comparisons)
            if (c.judged && c.judgement.verdict != metrics::Verdict::Pass)
                t.addNote(c.output + " " + c.actual + " vs " + c.reference + ": " +
                          metrics::verdictName(c.judgement.verdict) + " (" + c.judgement.standard +
                          "): " + c.judgement.reason);
    });
    t.print(os);
    printSummary(os, s);
}

}  // namespace opscope::cli
