#include "compare_tensor_sets.h"

#include <filesystem>
#include <iostream>

#include "cli_common.h"
#include "progress_line.h"
#include "opscope/h5/h5_file.h"
#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"
#include "opscope/json_writer.h"
#include "opscope/ops/evaluation.h"
#include "opscope/ops/tensor_sets.h"
#include "table.h"

namespace opscope::cli {
namespace {

// A tensor file of several tensors, opened once and read by key (its directory is not read again
// for each of a checkpoint's thousands of tensors).
std::optional<ops::TensorSet> tensorFileSet(const std::string& spec) {
    if (!import::isTensorFileSpec(spec) || import::tensorFilePath(spec) != spec) return std::nullopt;
    try {
        ops::TensorSet set = ops::tensorFileSet(spec);
        if (set.keys.size() < 2) return std::nullopt;
        return set;
    } catch (const import::FormatError&) {
        return std::nullopt;  // reading it as one tensor says what is wrong
    }
}

// FILE.h5:/group: every numeric dataset below the group, the file vetted once for all of them.
std::optional<ops::TensorSet> hdf5GroupSet(const std::string& spec) {
    if (import::isTensorFileSpec(spec) || spec.find(":/") == std::string::npos) return std::nullopt;
    const DatasetRef ref = parseDatasetRef(spec, "a tensor or group");
    // libhdf5 opens only what a throwaway process read first: the path's dataset, or every dataset
    // below the group, in one vetting (kept for the file, so a dataset's reader next costs nothing).
    requireSafeFile(ref.file, {ref.path});
    try {
        if (h5::File::openReadOnly(ref.file).info(ref.path).kind != h5::ObjectKind::Group) return std::nullopt;
        return ops::hdf5GroupSet(ref.file, ref.path, spec);
    } catch (const FileError& e) {
        throw CliError(e.what());
    }
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

std::optional<ops::TensorSet> tensorSetOf(const std::string& spec) {
    std::error_code ec;
    if (std::filesystem::is_directory(spec, ec)) return ops::tensorFolderSet(spec);  // both must be folders
    if (std::optional<ops::TensorSet> files = tensorFileSet(spec)) return files;
    return hdf5GroupSet(spec);
}

int compareTensorSets(const ParsedArgs& a, const ops::TensorSet& actual, const ops::TensorSet& reference,
                      const metrics::Standard& standard) {
    std::vector<ops::Comparison> comparisons;
    ProgressLine progress(a, 100);  // two checkpoints of thousands of tensors take a while
    ops::SetCompareControl control;
    control.compared = [&progress](const ops::Comparison& c, std::size_t done, std::size_t total) {
        progress.step(done, total, c.output);
    };
    // As `run` does with a case that cannot run: its sentence on stderr, the others go on, exit 2.
    std::size_t unreadable = 0;
    control.unreadable = [&](const std::string&, const std::string& error) {
        progress.clear();
        std::cerr << "opscope-cli: " << error << "\n";
        ++unreadable;
    };
    try {
        comparisons = ops::compareTensorSets(actual, reference, standard, control);
    } catch (const FileError& e) {
        progress.clear();
        throw CliError(e.what());
    }
    progress.clear();
    std::size_t failed = 0;
    for (const ops::Comparison& c : comparisons) failed += !c.judgement.passed();
    const int code = unreadable ? kExitError : failed == 0 ? kExitPass : kExitFail;
    if (!a.has("--json")) {
        printTable(comparisons, failed);
        return code;
    }
    JsonWriter w(std::cout);
    w.beginObject().field("command", "compare").field("actual", actual.name).field("reference", reference.name);
    w.key("comparisons").beginArray();
    for (const ops::Comparison& c : comparisons) ops::writeComparisonJson(w, c);
    w.endArray().field("exit_code", code).endObject();
    w.finish();
    return code;
}

}  // namespace opscope::cli
