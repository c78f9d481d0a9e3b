// opscope-cli info: what a file holds (cases, trace executors, every dataset), from metadata
// only: no tensor data is read, so a checkpoint of any size lists at once.
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>

#include "cli_common.h"
#include "commands.h"
#include "opscope/json_writer.h"
#include "opscope/case_file.h"
#include "opscope/h5/attribute_value.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"
#include "opscope/trace.h"

namespace opscope::cli {

CommandSpec infoSpec() {
    return {"info",
            "info FILE [--tree] [--attrs] [--depth N] [--json]",
            "list the cases, trace executors and datasets in an HDF5 file, or the tensors of a .npy/.npz/.pt/"
            ".safetensors",
            "A case file lists its cases (operator, parameters, inputs, output sources); a trace lists its\n"
            "executors; any other HDF5 file (a checkpoint, a dump) lists its tree. Dataset paths in the\n"
            "tree can be bound to operator arguments with 'run --op NAME --bind ARG=FILE.h5:/path'.\n"
            "A numpy, PyTorch or safetensors file (.npy, .npz, .pt, .pth, .bin, .safetensors) lists each tensor's\n"
            "key, dtype and shape, as '--bind' and 'compare' name it (FILE.npz:KEY, FILE.pt:KEY,\n"
            "FILE.safetensors:KEY). No tensor data is decoded.",
            {{"--tree", "", false, "also list every group and dataset (the default for files without cases)"},
             {"--attrs", "", false, "with the tree: show each object's attributes"},
             {"--depth", "N", false, "with the tree: list at most N levels"},
             kJsonOption},
            /*minPositionals=*/1,
            /*maxPositionals=*/1,
            "  opscope-cli info datasets/convolution_backward.h5\n  opscope-cli info model.h5 --attrs\n"
            "  opscope-cli info state_dict.pt\n"};
}

int runInfo(const ParsedArgs& a);  // below

Command infoCommand() { return {infoSpec(), runInfo}; }

namespace {

std::string tensorsText(const std::vector<cases::TensorSummary>& tensors) {
    std::string s;
    for (const cases::TensorSummary& t : tensors)
        s += (s.empty() ? "" : "  ") + t.name + " " + tensorText(t.typeName, t.shape);
    return s.empty() ? "(none)" : s;
}

std::string paramsText(const std::vector<Param>& params) {
    std::string s;
    for (const Param& p : params) s += (s.empty() ? "" : " ") + p.name + "=" + paramToString(p.value);
    return s.empty() ? "(none)" : s;
}

void writeTensorsJson(JsonWriter& w, const std::vector<cases::TensorSummary>& tensors) {
    w.beginArray();
    for (const cases::TensorSummary& t : tensors)
        w.beginObject().field("name", t.name).field("dtype", t.typeName).field("shape", t.shape).endObject();
    w.endArray();
}

void writeParamJson(JsonWriter& w, const ParamValue& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::vector<bool>> || std::is_same_v<T, std::vector<double>>) {
                w.beginArray();
                for (auto e : x) w.value(static_cast<typename T::value_type>(e));
                w.endArray();
            } else {
                w.value(x);
            }
        },
        v);
}

struct ExecutorSummary {
    std::string path, op, product;
    int64_t threads = 0, steps = 0;
    double durationUs = 0;
    bool completed = false;
    std::vector<cases::TensorSummary> inputs, outputs;
    bool replayable = false;
};

std::vector<cases::TensorSummary> recordedTensors(const std::vector<TensorRecord>& records) {
    std::vector<cases::TensorSummary> out;
    for (const TensorRecord& r : records) {
        cases::TensorSummary t;
        t.name = r.name;
        t.dtype = r.dtype;
        t.typeName = dtypeName(r.dtype);
        t.shape = r.shape;
        out.push_back(t);
    }
    return out;
}

std::vector<ExecutorSummary> traceExecutors(const h5::File& f) {
    std::vector<ExecutorSummary> out;
    std::string tornTail;
    const std::vector<ExecutorTrace> traces = readTrace(f, TraceValues::Skip, &tornTail);
    if (!tornTail.empty()) std::cerr << "opscope-cli: warning: " << tornTail << "\n";
    for (std::size_t i = 0; i < traces.size(); ++i) {
        const ExecutorTrace& t = traces[i];
        ExecutorSummary e;
        e.path = traceExecutorPath(i);
        e.op = t.op;
        e.product = t.product;
        e.threads = t.threads;
        e.steps = static_cast<int64_t>(t.steps.size());
        e.durationUs = t.durationUs;
        e.completed = t.completed;
        e.inputs = recordedTensors(t.inputs);
        e.outputs = recordedTensors(t.outputs);
        e.replayable = cases::whyNotReplayable(t).empty();
        out.push_back(std::move(e));
    }
    return out;
}

void printTree(const h5::File& f, const std::vector<h5::NodeInfo>& nodes, bool attrs) {
    std::size_t width = 0;
    for (const h5::NodeInfo& n : nodes) width = std::max(width, n.path.size());
    width = std::min<std::size_t>(width, 60);
    auto attributes = [&](const std::string& path) {
        if (!attrs) return;
        for (const std::string& a : f.attributeNames(path))
            std::cout << "    @" << a << " = " << h5::attributeText(f, path, a) << "\n";
    };
    attributes("/");
    for (const h5::NodeInfo& n : nodes) {
        std::string line = n.path + (n.kind == h5::ObjectKind::Group ? "/" : "");
        if (line.size() < width + 2)
            line += std::string(width + 2 - line.size(), ' ');
        else
            line += "  ";
        if (n.kind == h5::ObjectKind::Dataset) {
            const h5::DatasetInfo& d = n.dataset;
            line += d.nullSpace ? d.typeName + " (empty)" : tensorText(d.typeName, d.shape);
            line += "  " + formatBytes(d.storageBytes);
            if (d.compressed) {
                std::string filters;
                for (const std::string& fl : d.filters) filters += (filters.empty() ? "" : "+") + fl;
                line += "  " + filters;
            }
            if (d.dtype == DType::Undefined) line += "  (not a tensor)";
        } else {
            line += h5::kindName(n.kind);
        }
        if (!n.outside().empty()) line += "  " + n.outside();
        std::cout << line << "\n";
        attributes(n.path);
    }
}

// What info found in the file, from metadata only.
struct FileContents {
    bool trace = false;
    std::vector<cases::CaseSummary> cases;
    std::vector<std::string> caseErrors;  // per case: "" or why it cannot be read
    std::vector<ExecutorSummary> executors;
    bool tree = false;                  // list every group and dataset
    std::vector<h5::NodeInfo> nodes;    // the tree, when listed
    std::vector<h5::NodeInfo> outside;  // the whole file, whatever --depth says
    uint64_t bytes = 0;
    const char* kind = "HDF5 file";
    std::string importShard;  // "I/N" of a case file from a sharded import
    std::string product;      // the product its cases were recorded on, as the file says ("" = none)
};

int depthOf(const ParsedArgs& a) {
    if (!a.has("--depth")) return -1;
    const std::optional<long> levels = parseWholeNumber(a.value("--depth"), 1, std::numeric_limits<int>::max());
    if (!levels)
        throw CliError("--depth must be a whole number of levels, at least 1, got '" + a.value("--depth") + "'");
    return static_cast<int>(*levels);
}

// Every case, or what it is called and why it cannot be read.
void summarizeCases(const h5::File& f, FileContents& c) {
    for (const std::string& p : cases::findCases(f)) {
        try {
            c.cases.push_back(cases::inspectCase(f, p));
            c.caseErrors.emplace_back();
        } catch (const FileError& e) {
            cases::CaseSummary broken;
            broken.path = p;
            broken.op = f.readAttribute<std::string>(p, cases::kOpAttribute);
            c.cases.push_back(broken);
            c.caseErrors.emplace_back(e.what());
        }
    }
}

FileContents readContents(const h5::File& f, const std::string& file, bool treeAsked, int depth) {
    FileContents c;
    c.trace = cases::isTraceFile(f);
    if (c.trace)
        c.executors = traceExecutors(f);
    else
        summarizeCases(f, c);
    if (!c.trace) c.importShard = cases::importShardOf(f);
    if (!c.trace) c.product = h5::readStringAttributeIfPresent(f, "/", cases::kProductAttribute).value_or("");
    c.tree = treeAsked || (!c.trace && c.cases.empty());
    if (c.tree) c.nodes = h5::listTree(f, "/", depth);
    c.outside = h5::listOutside(f);
    c.bytes = std::filesystem::file_size(file);
    c.kind = c.trace ? "trace" : !c.cases.empty() ? "case file" : "HDF5 file";
    return c;
}

void writeCaseJson(JsonWriter& w, const cases::CaseSummary& c, const std::string& error) {
    w.beginObject().field("path", c.path).field("op", c.op).field("description", c.description);
    if (!error.empty()) w.field("error", error);
    w.key("standard").valueOrNull(c.standard);
    w.key("params").beginObject();
    for (const Param& p : c.params) {
        w.key(p.name);
        writeParamJson(w, p.value);
    }
    w.endObject();
    w.key("inputs");
    writeTensorsJson(w, c.inputs);
    w.key("sources").beginArray();
    for (const cases::SourceSummary& s : c.sources) {
        w.beginObject().field("name", s.name).field("role", cases::sourceRoleName(s.role));
        w.key("tensors");
        writeTensorsJson(w, s.tensors);
        w.endObject();
    }
    w.endArray().endObject();
}

void writeExecutorJson(JsonWriter& w, const ExecutorSummary& e) {
    w.beginObject().field("path", e.path).field("op", e.op).field("product", e.product);
    w.field("threads", e.threads).field("steps", e.steps).field("duration_us", e.durationUs);
    w.field("completed", e.completed).field("replayable", e.replayable);
    w.key("inputs");
    writeTensorsJson(w, e.inputs);
    w.key("outputs");
    writeTensorsJson(w, e.outputs);
    w.endObject();
}

void writeNodeJson(JsonWriter& w, const h5::File& f, const h5::NodeInfo& n, bool attrs) {
    w.beginObject().field("path", n.path).field("kind", h5::kindName(n.kind));
    if (n.kind == h5::ObjectKind::Dataset) {
        w.field("dtype", n.dataset.typeName).field("shape", n.dataset.shape);
        w.field("tensor", n.dataset.dtype != DType::Undefined).field("storage_bytes", n.dataset.storageBytes);
        w.key("filters").value(n.dataset.filters);
    }
    if (!n.outside().empty()) w.field("outside", n.outside());
    if (attrs) {
        w.key("attributes").beginObject();
        for (const std::string& at : f.attributeNames(n.path)) w.field(at, h5::attributeText(f, n.path, at));
        w.endObject();
    }
    w.endObject();
}

void printJson(const h5::File& f, const std::string& file, const FileContents& c, bool attrs) {
    JsonWriter w(std::cout);
    w.beginObject().field("file", file).field("kind", c.kind).field("bytes", c.bytes);
    w.key("import_shard").valueOrNull(c.importShard);
    w.key("product").valueOrNull(c.product);
    w.key("cases").beginArray();
    for (std::size_t i = 0; i < c.cases.size(); ++i) writeCaseJson(w, c.cases[i], c.caseErrors[i]);
    w.endArray();
    w.key("executors").beginArray();
    for (const ExecutorSummary& e : c.executors) writeExecutorJson(w, e);
    w.endArray();
    w.key("tree").beginArray();
    for (const h5::NodeInfo& n : c.nodes) writeNodeJson(w, f, n, attrs);
    w.endArray();
    w.key("outside").beginArray();
    for (const h5::NodeInfo& n : c.outside)
        w.beginObject().field("path", n.path).field("points", n.outside()).endObject();
    w.endArray().endObject();
    w.finish();
}

void printCase(const cases::CaseSummary& c, const std::string& error) {
    std::cout << "\n" << c.path << "  " << c.op;
    if (!error.empty()) {
        std::cout << "\n    error    " << error << "\n";
        return;
    }
    if (!c.description.empty()) std::cout << "  \"" << c.description << "\"";
    std::cout << "\n    params   " << paramsText(c.params) << "\n    inputs   " << tensorsText(c.inputs) << "\n";
    if (!c.standard.empty()) std::cout << "    standard " << c.standard << "\n";
    for (const cases::SourceSummary& s : c.sources)
        std::cout << "    " << s.name << std::string(s.name.size() < 8 ? 9 - s.name.size() : 1, ' ')
                  << tensorsText(s.tensors) << "  (" << cases::sourceRoleName(s.role) << ")\n";
}

void printExecutor(const ExecutorSummary& e) {
    std::cout << "\n"
              << e.path << "  " << e.op << "  product " << e.product << ", " << e.threads << " thread"
              << (e.threads == 1 ? "" : "s") << ", " << e.steps << " steps, " << formatNumber(e.durationUs / 1000.0)
              << " ms" << (e.completed ? "" : ", did not complete")
              << (e.replayable ? ", replayable" : ", not replayable (no input values)") << "\n";
    std::cout << "    inputs   " << tensorsText(e.inputs) << "\n    outputs  " << tensorsText(e.outputs) << "\n";
}

void printText(const h5::File& f, const std::string& file, const FileContents& c, bool attrs) {
    std::cout << file << ": " << c.kind << ", " << formatBytes(c.bytes);
    if (c.trace)
        std::cout << ", " << c.executors.size() << " executor" << (c.executors.size() == 1 ? "" : "s");
    else if (!c.cases.empty())
        std::cout << ", " << c.cases.size() << " case" << (c.cases.size() == 1 ? "" : "s");
    if (!c.importShard.empty()) std::cout << ", import shard " << c.importShard;
    if (!c.product.empty()) std::cout << ", recorded on product " << c.product;
    std::cout << "\n";
    for (std::size_t i = 0; i < c.cases.size(); ++i) printCase(c.cases[i], c.caseErrors[i]);
    for (const ExecutorSummary& e : c.executors) printExecutor(e);
    if (!c.outside.empty()) {
        std::cout << "\noutside this file (not read unless --allow-external):\n";
        for (const h5::NodeInfo& n : c.outside) std::cout << "    " << n.path << "  " << n.outside() << "\n";
    }
    if (c.tree) {
        if (!c.cases.empty() || !c.executors.empty() || !c.outside.empty()) std::cout << "\n";
        printTree(f, c.nodes, attrs);
    } else if (!c.cases.empty()) {
        std::cout << "\n(run 'opscope-cli info " << file << " --tree' to list every group and dataset)\n";
    }
}

// A .npy/.npz/.pt/.safetensors file: its tensors and how to name each on the command line.
int infoOfTensorFile(const ParsedArgs& a, const std::string& file) {
    for (const char* o : {"--tree", "--attrs", "--depth"})
        if (a.has(o)) throw CliError(std::string(o) + " lists an HDF5 file's tree; '" + file + "' is a tensor file");
    std::vector<import::TensorEntry> tensors;
    try {
        tensors = import::describeTensorFile(file);
    } catch (const import::FormatError& e) {
        throw CliError(e.what());
    }
    const uint64_t bytes = std::filesystem::file_size(file);
    auto spec = [&](const import::TensorEntry& t) { return t.key.empty() ? file : file + ":" + t.key; };
    if (a.has("--json")) {
        JsonWriter w(std::cout);
        w.beginObject().field("file", file).field("kind", "tensor file").field("bytes", bytes);
        w.key("tensors").beginArray();
        for (const import::TensorEntry& t : tensors)
            w.beginObject()
                .field("key", t.key)
                .field("dtype", dtypeName(t.dtype))
                .field("shape", t.shape)
                .field("spec", spec(t))
                .endObject();
        w.endArray().endObject();
        w.finish();
        return kExitPass;
    }
    std::cout << file << ": tensor file, " << formatBytes(bytes) << ", " << tensors.size() << " tensor"
              << (tensors.size() == 1 ? "" : "s") << "\n";
    for (const import::TensorEntry& t : tensors)
        std::cout << "    " << tensorText(t.dtype, t.shape) << "  " << spec(t) << "\n";
    return kExitPass;
}

}  // namespace

int runInfo(const ParsedArgs& a) {
    const std::string file = a.positionals[0];
    if (import::isTensorFileSpec(file)) return infoOfTensorFile(a, file);
    requireSafeFile(file);
    const int depth = depthOf(a);
    const h5::File f = h5::File::openReadOnly(file);  // FileError: not HDF5, truncated, ... (exit 2 in main)
    const FileContents contents = readContents(f, file, a.has("--tree"), depth);
    if (a.has("--json"))
        printJson(f, file, contents, a.has("--attrs"));
    else
        printText(f, file, contents, a.has("--attrs"));
    return kExitPass;
}

}  // namespace opscope::cli
