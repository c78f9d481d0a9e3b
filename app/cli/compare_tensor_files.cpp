#include "compare_tensor_files.h"

#include <iostream>
#include <unordered_set>

#include "cli_common.h"
#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"
#include "opscope/json_writer.h"
#include "opscope/ops/evaluation.h"
#include "table.h"

namespace opscope::cli {
namespace {

std::vector<std::string> keysOf(const std::string& file) {
    try {
        return import::tensorFileKeys(file);
    } catch (const import::FormatError& e) {
        throw CliError(e.what());
    }
}

// One key: both tensors read, compared in the actual's dtype; not compared when a side lacks it.
ops::Comparison compareKey(const std::string& key, const std::string& actualFile, bool inActual,
                           const std::string& referenceFile, bool inReference, const metrics::Standard& standard) {
    if (!inActual || !inReference)
        return ops::notCompared(key, actualFile, referenceFile,
                                (inActual ? referenceFile : actualFile) + " has no '" + key + "'", standard);
    const HostTensor actual = readTensorArgument(actualFile + ":" + key, "the actual tensor");
    const HostTensor reference = readTensorArgument(referenceFile + ":" + key, "the reference tensor");
    return ops::compareOutput(key, actualFile, actual, referenceFile, reference, ops::judgedDtype(actual), standard);
}

void printTable(const std::vector<ops::Comparison>& comparisons, std::size_t failed) {
    Table t;
    t.addColumn("tensor");
    t.addColumn("dtype");
    t.addColumn("max abs", Table::Align::Right);
    t.addColumn("max rel", Table::Align::Right);
    t.addColumn("verdict");
    const metrics::MetricField& maxAbs = metrics::metricField("max_abs_error");
    const metrics::MetricField& maxRel = metrics::metricField("max_rel_error");
    for (const ops::Comparison& c : comparisons) {
        const bool shown = c.compared;
        t.addRow({c.output, shown ? dtypeName(c.metrics.outputDtype) : "-",
                  shown ? formatMetric(maxAbs, c.metrics) : "-", shown ? formatMetric(maxRel, c.metrics) : "-",
                  shown ? metrics::verdictName(c.judgement.verdict) : "not judged"});
        if (!c.judgement.passed()) t.addNote(c.judgement.reason);
    }
    t.print(std::cout);
    std::cout << "\n"
              << comparisons.size() << " tensors: " << comparisons.size() - failed << " passed, " << failed
              << " failed or not compared. Standard: "
              << (comparisons.empty() ? "" : comparisons.front().judgement.standard) << "\n";
}

}  // namespace

bool isFileOfTensors(const std::string& spec) {
    if (!import::isTensorFileSpec(spec) || import::tensorFilePath(spec) != spec) return false;
    try {
        return import::tensorFileKeys(spec).size() > 1;
    } catch (const import::FormatError&) {
        return false;  // reading it as one tensor says what is wrong
    }
}

int compareTensorFiles(const ParsedArgs& a, const std::string& actualFile, const std::string& referenceFile,
                       const metrics::Standard& standard) {
    const std::vector<std::string> actualKeys = keysOf(actualFile), referenceKeys = keysOf(referenceFile);
    const std::unordered_set<std::string> inActual(actualKeys.begin(), actualKeys.end()),
        inReference(referenceKeys.begin(), referenceKeys.end());
    std::vector<std::string> keys = actualKeys;  // the actual's order, then the reference's others
    for (const std::string& k : referenceKeys)
        if (!inActual.count(k)) keys.push_back(k);
    std::vector<ops::Comparison> comparisons;
    std::size_t failed = 0;
    for (const std::string& key : keys) {
        comparisons.push_back(
            compareKey(key, actualFile, inActual.count(key) > 0, referenceFile, inReference.count(key) > 0, standard));
        failed += !comparisons.back().judgement.passed();
    }
    const int code = failed == 0 ? kExitPass : kExitFail;
    if (!a.has("--json")) {
        printTable(comparisons, failed);
        return code;
    }
    JsonWriter w(std::cout);
    w.beginObject().field("command", "compare").field("actual", actualFile).field("reference", referenceFile);
    w.key("comparisons").beginArray();
    for (const ops::Comparison& c : comparisons) ops::writeComparisonJson(w, c);
    w.endArray().field("exit_code", code).endObject();
    w.finish();
    return code;
}

}  // namespace opscope::cli
