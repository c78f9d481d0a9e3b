#include "compare_tensor_sets.h"

#include <iostream>
#include <memory>
#include <unordered_set>

#include "cli_common.h"
#include "opscope/h5/file_safety.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"
#include "opscope/json_writer.h"
#include "opscope/ops/evaluation.h"
#include "table.h"

namespace opscope::cli {
namespace {

// One key: both tensors read, compared in the actual's dtype; not compared when a side lacks it.
ops::Comparison compareKey(const std::string& key, const TensorSet& actual, bool inActual, const TensorSet& reference,
                           bool inReference, const metrics::Standard& standard) {
    if (!inActual || !inReference)
        return ops::notCompared(key, actual.name, reference.name,
                                (inActual ? reference.name : actual.name) + " has no '" + key + "'", standard);
    const HostTensor a = actual.read(key);
    const HostTensor r = reference.read(key);
    return ops::compareOutput(key, actual.name, a, reference.name, r, ops::judgedDtype(a), standard);
}

// A tensor file of several tensors, opened once and read by key (its directory is not read again
// for each of a checkpoint's thousands of tensors).
std::optional<TensorSet> tensorFileSet(const std::string& spec) {
    if (!import::isTensorFileSpec(spec) || import::tensorFilePath(spec) != spec) return std::nullopt;
    std::shared_ptr<const import::TensorFile> file;
    std::vector<std::string> keys;
    try {
        file = std::make_shared<const import::TensorFile>(spec);
        keys = file->keys();
    } catch (const import::FormatError&) {
        return std::nullopt;  // reading it as one tensor says what is wrong
    }
    if (keys.size() < 2) return std::nullopt;
    return TensorSet{spec, std::move(keys), [file, spec](const std::string& key) {
                         try {
                             return file->read(key);
                         } catch (const import::FormatError& e) {
                             throw CliError(spec + ": " + e.what());
                         }
                     }};
}

// FILE.h5:/group: every numeric dataset below the group, the file vetted once for all of them.
std::optional<TensorSet> hdf5GroupSet(const std::string& spec) {
    if (import::isTensorFileSpec(spec) || spec.find(":/") == std::string::npos) return std::nullopt;
    const DatasetRef ref = parseDatasetRef(spec, "a tensor or group");
    // libhdf5 opens only what a throwaway process read first: the path's dataset, or every dataset
    // below the group, in one vetting (kept for the file, so a dataset's reader next costs nothing).
    requireSafeFile(ref.file, {ref.path});
    try {
        auto file = std::make_shared<const h5::File>(h5::File::openReadOnly(ref.file));
        if (file->info(ref.path).kind != h5::ObjectKind::Group) return std::nullopt;
        const std::string group = ref.path == "/" ? "" : ref.path;
        std::vector<std::string> keys;
        for (const h5::NodeInfo& n : h5::listTree(*file, ref.path)) {
            // A member that points outside the file is a sentence, as `run` makes it, not a
            // silently shorter set.
            if (!n.outside().empty() && !h5::externalDataAllowed(ref.file)) {
                const std::string outside = n.outside();  // "external link -> f.h5:/g"
                const std::size_t arrow = outside.find(" -> ");
                h5::refuseExternal("'" + n.path + "' in '" + ref.file + "'", outside.substr(0, arrow),
                                   arrow == std::string::npos ? "" : outside.substr(arrow + 4));
            }
            if (n.kind == h5::ObjectKind::Dataset && n.dataset.dtype != DType::Undefined)
                keys.push_back(n.path.substr(group.size() + 1));
        }
        return TensorSet{spec, std::move(keys), [file, group, spec](const std::string& key) {
                             try {
                                 return h5::readTensor(*file, group + "/" + key);
                             } catch (const FileError& e) {
                                 throw CliError(spec + ": " + e.what());
                             }
                         }};
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

std::optional<TensorSet> tensorSetOf(const std::string& spec) {
    if (std::optional<TensorSet> files = tensorFileSet(spec)) return files;
    return hdf5GroupSet(spec);
}

int compareTensorSets(const ParsedArgs& a, const TensorSet& actual, const TensorSet& reference,
                      const metrics::Standard& standard) {
    const std::unordered_set<std::string> inActual(actual.keys.begin(), actual.keys.end()),
        inReference(reference.keys.begin(), reference.keys.end());
    std::vector<std::string> keys = actual.keys;  // the actual's order, then the reference's others
    for (const std::string& k : reference.keys)
        if (!inActual.count(k)) keys.push_back(k);
    std::vector<ops::Comparison> comparisons;
    std::size_t failed = 0;
    for (const std::string& key : keys) {
        comparisons.push_back(
            compareKey(key, actual, inActual.count(key) > 0, reference, inReference.count(key) > 0, standard));
        failed += !comparisons.back().judgement.passed();
    }
    const int code = failed == 0 ? kExitPass : kExitFail;
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
