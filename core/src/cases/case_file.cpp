// Case groups in HDF5: finding, summarising, reading and writing them (layout in
// datasets/FORMAT.md, "Case files"). Only metadata is touched until a case is read.
#include "opscope/case_file.h"

#include <optional>
#include <set>

#include "opscope/h5/atomic_write.h"
#include "opscope/h5/attribute_value.h"
#include "opscope/h5/file_safety.h"
#include "opscope/h5/tensor_io.h"

namespace opscope::cases {
namespace {

constexpr int64_t kCaseFormatVersion = 1;
constexpr std::size_t kCompressAbove = 64 * 1024;

std::string join(const std::string& group, const std::string& name) { return (group == "/" ? "" : group) + "/" + name; }

std::string where(const h5::File& file, const std::string& path) { return "'" + path + "' in '" + file.path() + "'"; }

std::string optionalString(const h5::File& file, const std::string& path, const char* name) {
    if (!file.hasAttribute(path, name)) return {};
    return file.readAttribute<std::string>(path, name);
}

SourceRole roleOf(const h5::File& file, const std::string& sourcePath, const std::string& sourceName) {
    if (!file.hasAttribute(sourcePath, kRoleAttribute)) return defaultRole(sourceName);
    const std::string role = file.readAttribute<std::string>(sourcePath, kRoleAttribute);
    if (role == "reference") return SourceRole::Reference;
    if (role == "actual") return SourceRole::Actual;
    throw ContentError("source " + where(file, sourcePath) + " has role \"" + role +
                       "\"; a role is \"reference\" (what a run is held to) or \"actual\" (outputs judged against the "
                       "golden reference)");
}

// Children of a case-level group that must all be datasets (inputs/, a source).
std::vector<std::string> datasetChildren(const h5::File& file, const std::string& group) {
    std::vector<std::string> names = file.children(group);
    for (const std::string& name : names) {
        const h5::ObjectInfo found = file.info(join(group, name));
        file.refuseIfExternal(join(group, name), found);
        const h5::ObjectKind kind = found.kind;
        if (kind != h5::ObjectKind::Dataset)
            throw ContentError(where(file, join(group, name)) + " is a " + h5::kindName(kind) + ", but " +
                               where(file, group) + " may hold only tensor datasets, one per argument or output");
    }
    return names;
}

void requireCase(const h5::File& file, const std::string& path) {
    const h5::ObjectKind kind = file.info(path).kind;
    if (kind == h5::ObjectKind::Missing) throw ContentError("no case " + where(file, path) + ": nothing is there");
    if (!isCaseGroup(file, path))
        throw ContentError(where(file, path) +
                           " is not a case: a case is a group with a string attribute 'op' naming "
                           "the operator");
    if (!file.isGroup(join(path, kInputsGroup)))
        throw ContentError("case " + where(file, path) + " has no group '" + kInputsGroup +
                           "' holding its input tensors");
}

// The case's subgroups other than inputs/, and a sentence for anything else found there.
std::vector<std::string> sourceGroups(const h5::File& file, const std::string& path) {
    std::vector<std::string> out;
    for (const std::string& name : file.children(path)) {
        if (name == kInputsGroup) continue;
        const std::string child = join(path, name);
        const h5::ObjectInfo found = file.info(child);
        file.refuseIfExternal(child, found);
        const h5::ObjectKind kind = found.kind;
        if (kind == h5::ObjectKind::Group) {
            out.push_back(name);
            continue;
        }
        throw ContentError(where(file, child) + " is a " + h5::kindName(kind) +
                           " directly inside the case; inputs go in '" + join(path, kInputsGroup) +
                           "/' and outputs in a source group such as '" + join(path, kExpectedSource) + "/'");
    }
    return out;
}

TensorSummary summarize(const h5::File& file, const std::string& path, const std::string& name) {
    const h5::DatasetInfo info = h5::datasetInfo(file, path);
    return TensorSummary{name, info.dtype, info.typeName, info.shape};
}

std::vector<Param> readParams(const h5::File& file, const std::string& path, bool lenient) {
    std::vector<Param> params;
    for (const std::string& name : file.attributeNames(path)) {
        if (isReservedAttribute(name)) continue;
        if (!lenient) {
            params.push_back({name, h5::readAttributeValue(file, path, name)});
        } else if (std::optional<ParamValue> value = h5::readAttributeValueIfParameter(file, path, name)) {
            params.push_back({name, std::move(*value)});
        } else {
            params.push_back({name, h5::attributeText(file, path, name)});
        }
    }
    return params;
}

}  // namespace

bool isReservedAttribute(const std::string& name) {
    return name == kOpAttribute || name == kDescriptionAttribute || name == kStandardAttribute ||
           name.rfind("opscope_", 0) == 0;
}

const char* sourceRoleName(SourceRole r) { return r == SourceRole::Reference ? "reference" : "actual"; }

SourceRole defaultRole(const std::string& sourceName) {
    return sourceName == kExpectedSource || sourceName == "golden" ? SourceRole::Reference : SourceRole::Actual;
}

const HostTensor* OutputSource::find(const std::string& output) const {
    for (const auto& [tensorName, t] : tensors)
        if (tensorName == output) return &t;
    return nullptr;
}

const HostTensor* Case::input(const std::string& name) const {
    for (const auto& [n, t] : inputs)
        if (n == name) return &t;
    return nullptr;
}

const OutputSource* Case::source(const std::string& name) const {
    for (const OutputSource& s : sources)
        if (s.name == name) return &s;
    return nullptr;
}

namespace {

// What makes a group a case: an 'op' attribute that is a string (any other 'op' is someone
// else's data).
bool hasOpString(const h5::File& file, const std::string& groupPath) {
    return h5::readStringAttributeIfPresent(file, groupPath, kOpAttribute).has_value();
}

}  // namespace

bool isCaseGroup(const h5::File& file, const std::string& path) {
    return file.isGroup(path) && hasOpString(file, path);
}

namespace {

std::vector<std::string> walkForCases(const h5::File& file, const std::string& root) {
    const std::string start = h5::normalizePath(root);
    const h5::ObjectKind kind = file.info(start).kind;
    if (kind != h5::ObjectKind::Group)
        throw ContentError(kind == h5::ObjectKind::Missing
                               ? "no group " + where(file, start)
                               : where(file, start) + " is a " + h5::kindName(kind) + ", not a group");
    std::vector<std::string> out;
    if (isTraceFile(file)) return out;  // its executors look alike; casesFromTrace reads them
    std::set<std::string> walked;
    h5::WalkBudget budget(file);
    struct Pending {
        std::string path;
        int depth;  // below start
        h5::ObjectInfo info;
        bool isCase;
    };
    // Depth first in name order: children are pushed in reverse. Each child's kind and 'op' come
    // from listing its parent (read from the open parent instead of a lookup from the root).
    std::vector<Pending> stack{{start, 0, file.info(start), hasOpString(file, start)}};
    while (!stack.empty()) {
        const Pending p = std::move(stack.back());
        stack.pop_back();
        if (p.depth > 0) budget.visit(p.path, p.depth);
        if (p.info.kind != h5::ObjectKind::Group || p.info.viaSoftLink || !walked.insert(p.info.identity).second)
            continue;
        if (p.isCase) {
            out.push_back(p.path);
            continue;
        }
        const std::vector<h5::File::Child> children = file.listChildren(p.path, kOpAttribute);
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.push_back({join(p.path, it->name), p.depth + 1, it->info, it->marker.has_value()});
    }
    return out;
}

// One walk of a case group for the listing and for the run: `readTensor(path, name)` gives each
// input and source tensor as a summary or with its data. A strict read refuses an empty 'op'
// and unreadable parameters; a lenient one lists what it finds.
template <class CaseT, class SourceT, class ReadTensor>
CaseT walkCase(const h5::File& file, const std::string& casePath, bool strict, ReadTensor readTensor) {
    const std::string path = h5::normalizePath(casePath);
    requireCase(file, path);
    CaseT c;
    c.path = path;
    c.op = file.readAttribute<std::string>(path, kOpAttribute);
    if (strict && c.op.empty()) throw ContentError("case " + where(file, path) + " has an empty 'op' attribute");
    c.description = optionalString(file, path, kDescriptionAttribute);
    c.standard = optionalString(file, path, kStandardAttribute);
    c.params = readParams(file, path, !strict);
    const std::string inputs = join(path, kInputsGroup);
    for (const std::string& name : datasetChildren(file, inputs))
        c.inputs.push_back(readTensor(join(inputs, name), name));
    for (const std::string& name : sourceGroups(file, path)) {
        const std::string sp = join(path, name);
        SourceT src;
        src.name = name;
        src.role = roleOf(file, sp, name);
        src.description = optionalString(file, sp, kDescriptionAttribute);
        for (const std::string& out : datasetChildren(file, sp)) src.tensors.push_back(readTensor(join(sp, out), out));
        c.sources.push_back(std::move(src));
    }
    return c;
}

CaseSummary summarizeCase(const h5::File& file, const std::string& casePath) {
    return walkCase<CaseSummary, SourceSummary>(
        file, casePath, false,
        [&](const std::string& path, const std::string& name) { return summarize(file, path, name); });
}

Case readCaseData(const h5::File& file, const std::string& casePath) {
    return walkCase<Case, OutputSource>(file, casePath, true, [&](const std::string& path, const std::string& name) {
        return std::pair<std::string, HostTensor>(name, h5::readTensor(file, path));
    });
}

}  // namespace

std::vector<std::string> findCases(const h5::File& file, const std::string& root) {
    return h5::readingFile(file.path(), [&] { return walkForCases(file, root); });
}

CaseSummary inspectCase(const h5::File& file, const std::string& casePath) {
    return h5::readingFile(file.path(), [&] { return summarizeCase(file, casePath); });
}

Case readCase(const h5::File& file, const std::string& casePath) {
    return h5::readingFile(file.path(), [&] {
        Case c = readCaseData(file, casePath);
        c.product = recordedProductOf(file);
        return c;
    });
}

namespace {

using Compressed = std::map<std::string, h5::CompressedChunks>;

bool compressedOnWrite(const HostTensor& t) { return t.nbytes() > kCompressAbove; }

void writeCaseWith(h5::File& file, const std::string& casePath, const Case& c, const Compressed& compressed) {
    const std::string path = h5::normalizePath(casePath);
    if (file.exists(path)) throw IoError("cannot write case " + where(file, path) + ": that path already exists");
    if (c.op.empty()) throw IoError("cannot write case " + where(file, path) + ": it names no operator");
    file.createGroup(path);
    file.writeAttribute(path, kOpAttribute, c.op);
    if (!c.description.empty()) file.writeAttribute(path, kDescriptionAttribute, c.description);
    if (!c.standard.empty()) file.writeAttribute(path, kStandardAttribute, c.standard);
    for (const Param& p : c.params) {
        if (isReservedAttribute(p.name))
            throw IoError("cannot write case " + where(file, path) + ": parameter name '" + p.name + "' is reserved");
        h5::writeAttributeValue(file, path, p.name, p.value);
    }
    for (const auto& [name, text] : c.notes) {
        if (name.rfind("opscope_", 0) != 0)
            throw IoError("cannot write case " + where(file, path) + ": note '" + name + "' must be named opscope_*");
        file.writeAttribute(path, name, text);
    }
    auto options = [&](const HostTensor& t, const std::string& group, const std::string& name) {
        h5::WriteOptions o;
        o.compress = compressedOnWrite(t);
        o.compact = true;  // small tensors (most of an import's): one object written, not two
        const auto found = compressed.find(group + "/" + name);
        if (found != compressed.end()) o.precompressed = &found->second;
        return o;
    };
    const std::string inputs = join(path, kInputsGroup);
    file.createGroup(inputs);
    for (const auto& [name, t] : c.inputs) h5::writeTensor(file, join(inputs, name), t, options(t, kInputsGroup, name));
    for (const OutputSource& s : c.sources) {
        if (s.name == kInputsGroup)
            throw IoError("cannot write case " + where(file, path) + ": a source cannot be called 'inputs'");
        const std::string sp = join(path, s.name);
        file.createGroup(sp);
        file.writeAttribute(sp, kRoleAttribute, sourceRoleName(s.role));
        if (!s.description.empty()) file.writeAttribute(sp, kDescriptionAttribute, s.description);
        for (const auto& [name, t] : s.tensors) h5::writeTensor(file, join(sp, name), t, options(t, s.name, name));
    }
}

}  // namespace

void writeCase(h5::File& file, const std::string& casePath, const Case& c) { writeCaseWith(file, casePath, c, {}); }

PreparedCase prepareCase(Case c) {
    PreparedCase p;
    auto compress = [&](const std::string& group, const std::string& name, const HostTensor& t) {
        if (compressedOnWrite(t) && t.rank() > 0) p.compressed.emplace(group + "/" + name, h5::compressChunks(t));
    };
    for (const auto& [name, t] : c.inputs) compress(kInputsGroup, name, t);
    for (const OutputSource& s : c.sources)
        for (const auto& [name, t] : s.tensors) compress(s.name, name, t);
    p.c = std::move(c);
    return p;
}

void writeCase(h5::File& file, const PreparedCase& prepared) {
    writeCaseWith(file, prepared.c.path, prepared.c, prepared.compressed);
}

struct CaseFileWriter::Impl {
    h5::AtomicFileWriter writer;
    h5::File file;
    Impl(const std::string& destination, const std::vector<std::filesystem::path>& inputs)
        : writer(destination, inputs), file(h5::File::create(writer.tempPath().string())) {}
};

CaseFileWriter::CaseFileWriter(const std::string& destination, const std::vector<std::string>& inputs)
    : impl_(std::make_unique<Impl>(destination, std::vector<std::filesystem::path>(inputs.begin(), inputs.end()))) {
    impl_->file.writeAttribute("/", "opscope_format", "cases");
    impl_->file.writeAttribute("/", "format_version", kCaseFormatVersion);
}

CaseFileWriter::~CaseFileWriter() = default;

void CaseFileWriter::add(const Case& c) { writeCase(impl_->file, c.path, c); }
void CaseFileWriter::add(const PreparedCase& c) { writeCase(impl_->file, c); }

void CaseFileWriter::setRootAttribute(const std::string& name, const std::string& value) {
    impl_->file.writeAttribute("/", name, value);
}

void CaseFileWriter::commit() {
    impl_->file.close();
    impl_->writer.commit();
}

void writeCaseFile(const std::string& destination, const std::vector<Case>& cases,
                   const std::vector<std::string>& inputs) {
    CaseFileWriter writer(destination, inputs);
    for (const Case& c : cases) writer.add(c);
    writer.commit();
}

bool isTraceFile(const h5::File& file) {
    return h5::readStringAttributeIfPresent(file, "/", "opscope_format") == std::optional<std::string>("trace");
}

std::string importShardOf(const h5::File& file) {
    return h5::readStringAttributeIfPresent(file, "/", kImportShardAttribute).value_or("");
}

std::optional<Product> recordedProductOf(const h5::File& file, std::string* unknown) {
    const std::optional<std::string> id = h5::readStringAttributeIfPresent(file, "/", kProductAttribute);
    if (unknown) unknown->clear();
    Product p;
    if (id && parseProduct(*id, &p)) return p;
    if (unknown && file.hasAttribute("/", kProductAttribute))  // a text no product has, or not text at all
        *unknown = id ? *id : h5::attributeText(file, "/", kProductAttribute);
    return std::nullopt;
}

Case caseFromExecutorTrace(const ExecutorTrace& t, const std::string& path) {
    Case c;
    c.path = path;
    c.op = t.op;
    Product ranOn;
    if (parseProduct(t.product, &ranOn)) c.product = ranOn;
    c.origin = "trace";
    c.description = "executor " + std::to_string(t.executorId) + " recorded on product " + t.product + " with " +
                    std::to_string(t.threads) + " thread" + (t.threads == 1 ? "" : "s");
    c.params = t.params;
    for (const TensorRecord& r : t.inputs)
        if (r.values) c.inputs.emplace_back(r.name, *r.values);
    OutputSource recorded;
    recorded.name = "trace";
    recorded.role = SourceRole::Reference;
    recorded.description = "outputs recorded in the trace";
    for (const TensorRecord& r : t.outputs)
        if (r.values) recorded.tensors.emplace_back(r.name, *r.values);
    if (!recorded.tensors.empty()) c.sources.push_back(std::move(recorded));
    return c;
}

std::string whyNotReplayable(const ExecutorTrace& t) {
    if (!t.completed) return "did not run to completion";
    for (const TensorRecord& r : t.inputs)
        if (r.valuesPath.empty() && !r.values)
            return "has no values for input '" + r.name + "' (record the trace at level full to replay it)";
    return "";
}

std::vector<Case> casesFromTrace(const std::string& tracePath, std::vector<std::string>* skipped) {
    std::string tornTail;
    const std::vector<ExecutorTrace> traces = readTraceFile(tracePath, TraceValues::Load, &tornTail);
    if (skipped && !tornTail.empty()) skipped->push_back(tornTail);
    std::vector<Case> out;
    for (std::size_t i = 0; i < traces.size(); ++i) {
        const ExecutorTrace& t = traces[i];
        const std::string path = traceExecutorPath(i);
        const std::string why = whyNotReplayable(t);
        if (!why.empty()) {
            if (skipped) skipped->push_back("executor " + path + " (" + t.op + ") " + why);
            continue;
        }
        out.push_back(caseFromExecutorTrace(t, path));
    }
    return out;
}

Case caseFromTrace(const h5::File& trace, const std::string& executorPath) {
    std::size_t index = 0;
    if (!parseTraceExecutorPath(executorPath, &index))
        throw ContentError("'" + executorPath + "' does not name an executor of trace '" + trace.path() +
                           "' (executors are /executors/000000, /executors/000001, ...)");
    const ExecutorTrace t = readTraceExecutor(trace, index);
    const std::string why = whyNotReplayable(t);
    if (!why.empty()) throw ContentError("executor " + executorPath + " (" + t.op + ") " + why);
    return caseFromExecutorTrace(t, traceExecutorPath(index));
}

}  // namespace opscope::cases
