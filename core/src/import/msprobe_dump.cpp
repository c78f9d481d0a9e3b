// msprobe dump folders, dump.json and stack.json, and the import driver (see msprobe.h).
//   L1:  "Functional.conv2d.0.forward", "Functional.conv2d.0.backward"
//   L0:  "Module.conv1.Conv2d.forward.0", "Module.conv1.Conv2d.backward.0",
//        "Module.conv1.Conv2d.parameters_grad.0"
//   mix: both. stack.json maps "0": [[names...], [frames...]] (or a name to its frames).
#include "opscope/import/msprobe.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <string_view>
#include <unordered_map>

#include "json_outline.h"
#include "msprobe_call.h"
#include "opscope/file_text.h"
#include "opscope/import/format_error.h"
#include "opscope/ordered_work.h"

namespace opscope::import::msprobe {

using detail::json;
namespace fs = std::filesystem;

std::string DumpFolder::label() const {
    if (step.empty() && rank.empty()) return fs::path(path).filename().string();
    return step.empty() ? rank : rank.empty() ? step : step + "/" + rank;
}

namespace {

bool numbered(const std::string& name, const char* prefix, int64_t* number) {
    const std::string p = prefix;
    if (name.size() <= p.size() || name.compare(0, p.size(), p) != 0) return false;
    const std::string digits = name.substr(p.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 15)
        return false;
    *number = std::stoll(digits);
    return true;
}

bool matchesFilter(const std::string& name, const std::string& filter, const char* prefix) {
    return filter.empty() || name == filter || name == prefix + filter;
}

DumpFolder describeFolder(const fs::path& dir) {
    DumpFolder f;
    f.path = dir.string();
    int64_t n = 0;
    const std::string name = dir.filename().string();
    if (numbered(name, "rank", &n) || numbered(name, "proc", &n) || name == "rank") f.rank = name;
    const std::string parent = dir.parent_path().filename().string();
    if (numbered(parent, "step", &n))
        f.step = parent;
    else if (numbered(name, "step", &n))
        f.step = name, f.rank.clear();
    return f;
}

// (step number, rank number, path): numeric, so rank10 follows rank9.
std::tuple<int64_t, int, int64_t, std::string> orderKey(const DumpFolder& f) {
    int64_t s = -1, r = -1;
    numbered(f.step, "step", &s);
    const bool proc = numbered(f.rank, "proc", &r);
    if (!proc) numbered(f.rank, "rank", &r);
    return {s, proc ? 1 : 0, r, f.path};
}

}  // namespace

std::vector<DumpFolder> findDumpFolders(const std::string& dir, const std::string& step, const std::string& rank) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw FormatError(fs::exists(dir, ec)
                              ? "'" + dir + "' is not a folder (give the msprobe dump_path, a step or a rank folder)"
                              : "no folder '" + dir + "'");
    std::vector<DumpFolder> found;
    if (fs::is_regular_file(fs::path(dir) / "dump.json", ec))
        found.push_back(describeFolder(fs::absolute(dir).lexically_normal()));
    else {
        // dump_path/step*/rank*/dump.json at most: depth 2 below the folder given.
        for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (ec) break;
            if (it.depth() > 2) {
                it.disable_recursion_pending();
                continue;
            }
            if (it->is_directory(ec) && it->path().filename() == "dump_tensor_data")
                it.disable_recursion_pending();
            else if (it->is_directory(ec) && fs::is_regular_file(it->path() / "dump.json", ec))
                found.push_back(describeFolder(fs::absolute(it->path()).lexically_normal()));
        }
    }
    if (found.empty())
        throw FormatError("no dump.json in or under '" + dir +
                          "': an msprobe dump has <dump_path>/step<S>/rank<R>/dump.json");
    const auto byOrder = [](const DumpFolder& a, const DumpFolder& b) { return orderKey(a) < orderKey(b); };
    std::sort(found.begin(), found.end(), byOrder);
    std::vector<DumpFolder> kept;
    for (const DumpFolder& f : found)
        if (matchesFilter(f.step, step, "step") && matchesFilter(f.rank, rank, "rank")) kept.push_back(f);
    if (kept.empty()) {
        std::string all;
        for (const DumpFolder& f : found) all += (all.empty() ? "" : ", ") + f.label();
        throw FormatError("no dump folder of " + (step.empty() ? "" : "step " + step + " ") +
                          (rank.empty() ? "" : "rank " + rank + " ") + "under '" + dir + "' (there are: " + all + ")");
    }
    return kept;
}

// A call's entries in dump.json, parsed when the call is replayed (json_outline.h).
using import::detail::documentSpan;
using import::detail::JsonMember;
using import::detail::JsonSpan;
using import::detail::outlineObject;

struct CallEntries {
    JsonSpan forward, backward, parametersGrad;  // an empty span: not in the dump
};

struct CallKeys {
    std::string forward, backward, parametersGrad;  // "" for none
};

struct Dump::Impl {
    DumpFolder folder;
    std::string dumpText;  // dump.json, whose entries are parsed call by call
    std::string level;
    std::map<std::string, CallEntries> entries;
    std::vector<std::string> names;
    std::map<std::string, detail::Call> calls;
    std::map<std::string, std::string> stacks;  // forward key -> frames, read at the first stack()
    std::once_flag stacksRead;                  // stack() runs on the import's worker threads
    std::map<std::string, std::string> forwardKeyOf;
    std::vector<std::pair<std::string, std::string>> folded;  // module call, the call it ran

    // The supported calls among dump.json's "data" members, in the dump's order.
    void findCalls(const std::vector<JsonMember>& data);
    // mix level: drops each module call that is one computation with the call it ran.
    void foldModulesIntoTheirCalls();
    void readStacks() {
        const fs::path p = fs::path(folder.path) / "stack.json";
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) return;
        std::ifstream in(p);
        const json s = json::parse(in, nullptr, false);
        if (s.is_discarded() || !s.is_object()) return;  // the stack is for people; a damaged one is not fatal
        auto frames = [](const json& v) {
            std::string text;
            if (v.is_array())
                for (const json& f : v)
                    if (f.is_string()) text += (text.empty() ? "" : "\n") + f.get<std::string>();
            return text;
        };
        for (auto it = s.begin(); it != s.end(); ++it) {
            const json& v = it.value();
            if (v.is_array() && v.size() == 2 && v[0].is_array()) {
                for (const json& n : v[0])
                    if (n.is_string()) stacks[n.get<std::string>()] = frames(v[1]);
            } else {
                stacks[it.key()] = frames(v);
            }
        }
    }
};

namespace {

const std::vector<std::string> kConvApis = {"conv1d",           "conv2d",           "conv3d",
                                            "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
const std::vector<std::string> kConvModules = {"Conv1d",          "Conv2d",          "Conv3d",
                                               "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"};
// torch_npu's own convolutions ("NPU.npu_conv2d.0"): F.conv2d's arguments, or for the transposed
// ones (padding, output_padding, stride, dilation, groups) in that order (msprobe_mappings.cpp).
const std::vector<std::string> kNpuConvApis = {"npu_conv2d", "npu_conv3d", "npu_convolution", "npu_conv_transpose2d",
                                               "npu_convolution_transpose"};
// "Aten.<op>.<overload>.<n>": the backward ops OpScope emulates, in their default overload (or
// msprobe's name for an op packet, which has none).
const std::vector<std::string> kAtenBackwardOps = {"convolution_backward", "native_group_norm_backward",
                                                   "grid_sampler_2d_backward"};

// One entry of dump.json; null for an empty span (the entry is not in the dump).
json parseEntry(const std::string& text, JsonSpan span, const std::string& source) {
    if (span.end <= span.begin) return nullptr;
    try {
        return json::parse(std::string_view(text).substr(span.begin, span.end - span.begin));
    } catch (const json::exception& e) {
        throw FormatError(source + " is not valid JSON (" + e.what() + ")");
    }
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// "Module.conv1.Conv2d.forward.3": the module's path prefix, its class and its call number.
const std::regex& moduleForwardKey() {
    static const std::regex key(R"(^(Module\..*\.)([A-Za-z0-9_]+)\.forward\.(\d+)$)");
    return key;
}

// "Module.conv1.Conv2d.backward.3" (or forward, parameters_grad): prefix, class, entry, number.
const std::regex& moduleEntryKey() {
    static const std::regex key(R"(^(Module\..*\.)([A-Za-z0-9_]+)\.(forward|backward|parameters_grad)\.(\d+)$)");
    return key;
}

bool isConvolution(const std::string& api) {
    return contains(kConvApis, api) || contains(kConvModules, api) || contains(kNpuConvApis, api);
}

// The operator a call or module class runs: "conv" (every convolution), "group_norm", or the api.
std::string operatorKind(const std::string& api) {
    if (isConvolution(api)) return "conv";
    return api == "GroupNorm" ? "group_norm" : api;
}

bool supportedApi(const std::string& prefix, const std::string& api) {
    if (prefix == "Functional" || prefix == "Torch")
        return contains(kConvApis, api) || api == "group_norm" || api == "grid_sample";
    if (prefix == "Aten") return contains(kAtenBackwardOps, api);
    return prefix == "NPU" && (api == "npu_rms_norm" || contains(kNpuConvApis, api));
}

// An aten call's op without its default overload: "convolution_backward.default" -> "convolution_backward".
std::string withoutDefaultOverload(const std::string& api) {
    const std::string suffix = ".default";
    const bool has = api.size() > suffix.size() && api.compare(api.size() - suffix.size(), suffix.size(), suffix) == 0;
    return has ? api.substr(0, api.size() - suffix.size()) : api;
}

// A supported call's entries in dump.json, from the key of either its forward or its backward:
// "Functional.conv2d.0.forward" / ".backward", "Module.conv1.Conv2d.forward.0" / "backward.0" /
// "parameters_grad.0". Sets the call's name and kind; nullopt for any other key or API.
std::optional<CallKeys> callKeys(const std::string& key, detail::Call* call) {
    std::smatch match;
    if (key.rfind("Module.", 0) == 0 && std::regex_match(key, match, moduleEntryKey())) {
        const std::string module = match[1].str() + match[2].str();
        if (!contains(kConvModules, match[2].str()) && match[2].str() != "GroupNorm") return std::nullopt;
        call->module = true;
        call->api = match[2].str();
        call->name = module + "." + match[4].str();
        return CallKeys{module + ".forward." + match[4].str(), module + ".backward." + match[4].str(),
                        module + ".parameters_grad." + match[4].str()};
    }
    const char* ends[] = {".forward", ".backward"};
    for (const char* end : ends) {
        const std::size_t n = std::strlen(end);
        if (key.size() <= n || key.compare(key.size() - n, n, end) != 0) continue;
        const std::string base = key.substr(0, key.size() - n);
        const std::size_t first = base.find('.'), last = base.rfind('.');
        if (first == std::string::npos || last <= first) return std::nullopt;
        const std::string prefix = base.substr(0, first);
        call->aten = prefix == "Aten";
        call->api = base.substr(first + 1, last - first - 1);
        if (call->aten) call->api = withoutDefaultOverload(call->api);
        if (!supportedApi(prefix, call->api)) return std::nullopt;
        call->name = base;
        return CallKeys{base + ".forward", base + ".backward", ""};
    }
    return std::nullopt;
}

}  // namespace

void Dump::Impl::findCalls(const std::vector<JsonMember>& data) {
    std::unordered_map<std::string_view, JsonSpan> byName;
    byName.reserve(data.size());
    for (const JsonMember& m : data) byName.emplace(m.name, m.value);
    const auto span = [&](const std::string& key) {
        const auto found = byName.find(key);
        return found == byName.end() ? JsonSpan{} : found->second;
    };
    for (const JsonMember& m : data) {
        detail::Call call;
        const std::optional<CallKeys> keys = callKeys(m.name, &call);
        if (!keys || calls.count(call.name)) continue;  // a key the file repeats: the first one counts
        CallEntries e{span(keys->forward), span(keys->backward), span(keys->parametersGrad)};
        // A call is found at its forward entry; at its backward only when the forward was not
        // dumped (msprobe's data_mode "backward"), so that it is listed with why, not lost.
        const bool hasForward = e.forward.end > e.forward.begin;
        if (m.name != keys->forward && (hasForward || m.name != keys->backward)) continue;
        call.folder = folder.path;
        call.description =
            "msprobe " + call.name + " (" + folder.label() + (level.empty() ? "" : ", level " + level) + ")";
        if (call.aten) call.description += "; the call is the device's backward, its outputs the gradients";
        forwardKeyOf[call.name] = keys->forward;
        names.push_back(call.name);
        entries.emplace(call.name, e);
        calls.emplace(call.name, std::move(call));
    }
}

// At the mix level msprobe dumps a Conv2d module and the F.conv2d its forward runs, one
// computation twice; construct.json names the module's forward ("Module.conv1.Conv2d.forward.0")
// as the parent of the call's ("Functional.conv2d.0.forward"; with Megatron, [parent, micro
// step]). The call is imported: the dump has its arguments as passed, where the module's stride
// and padding would be inferred from shapes. A module is dropped only when it ran exactly one
// supported call of its own operator; a missing or damaged construct.json drops none.
void Dump::Impl::foldModulesIntoTheirCalls() {
    const std::optional<std::string> text = readFileText(fs::path(folder.path) / "construct.json");
    if (!text) return;
    const json construct = json::parse(*text, nullptr, false);
    if (construct.is_discarded() || !construct.is_object()) return;
    std::map<std::string, std::vector<std::string>> ran;  // module call -> the calls it ran
    for (const std::string& name : names) {
        const detail::Call& call = calls.at(name);
        const auto entry = construct.find(forwardKeyOf.at(name));
        if (call.module || entry == construct.end()) continue;
        const json& parent = entry->is_array() && !entry->empty() ? entry->front() : *entry;
        std::smatch m;
        const std::string parentName = parent.is_string() ? parent.get<std::string>() : "";
        if (!std::regex_match(parentName, m, moduleForwardKey())) continue;
        const auto module = calls.find(m[1].str() + m[2].str() + "." + m[3].str());
        if (module != calls.end() && module->second.module &&
            operatorKind(module->second.api) == operatorKind(call.api))
            ran[module->first].push_back(name);
    }
    std::vector<std::string> kept;
    for (const std::string& name : names) {
        const auto r = ran.find(name);
        if (r == ran.end() || r->second.size() != 1) {
            kept.push_back(name);
            continue;
        }
        folded.emplace_back(name, r->second.front());
        calls.erase(name);
        entries.erase(name);
        forwardKeyOf.erase(name);
    }
    names = std::move(kept);
}

Dump::Dump(DumpFolder folder) : impl_(std::make_unique<Impl>()) {
    impl_->folder = std::move(folder);
    const fs::path file = fs::path(impl_->folder.path) / "dump.json";
    std::optional<std::string> read = readFileText(file);
    if (!read) throw FormatError("cannot read '" + file.string() + "'");
    impl_->dumpText = std::move(*read);
    const std::string source = "'" + file.string() + "'";
    const std::string_view text = impl_->dumpText;
    const JsonSpan document = documentSpan(text, source);
    const auto notDump = [&] {
        return FormatError(source + " has no \"data\" object: it is not an msprobe dump.json");
    };
    if (text[document.begin] != '{') throw notDump();
    std::vector<JsonMember> data;
    bool hasData = false;
    std::string framework;
    for (const JsonMember& m : outlineObject(text, document, source)) {
        if (m.name == "data" && text[m.value.begin] != '{') throw notDump();
        if (m.name == "data") data = outlineObject(text, m.value, source);
        hasData = hasData || m.name == "data";
        if (m.name == "level" && text[m.value.begin] == '"')
            impl_->level = json::parse(text.substr(m.value.begin, m.value.end - m.value.begin)).get<std::string>();
        if (m.name == "framework" && text[m.value.begin] == '"')
            framework = json::parse(text.substr(m.value.begin, m.value.end - m.value.begin)).get<std::string>();
    }
    if (!hasData) throw notDump();
    // The calls are mapped by PyTorch's signatures: a MindSpore dump's "Functional.conv2d" is
    // mindspore.ops.conv2d, whose fifth argument is pad_mode. Older dumps do not say: PyTorch.
    if (!framework.empty() && framework != "pytorch")
        throw FormatError(source + " is a dump of framework \"" + framework +
                          "\": OpScope replays PyTorch (torch_npu) dumps, whose APIs' arguments it knows; a " +
                          "MindSpore API of the same name takes others (ops.conv2d's pad_mode)");
    impl_->findCalls(data);
    impl_->foldModulesIntoTheirCalls();
}

Dump::~Dump() = default;
Dump::Dump(Dump&&) noexcept = default;
const DumpFolder& Dump::folder() const { return impl_->folder; }
const std::string& Dump::level() const { return impl_->level; }
const std::vector<std::string>& Dump::supportedCalls() const { return impl_->names; }
const std::vector<std::pair<std::string, std::string>>& Dump::foldedModules() const { return impl_->folded; }

std::string Dump::stack(const std::string& call) const {
    auto key = impl_->forwardKeyOf.find(call);
    if (key == impl_->forwardKeyOf.end()) return "";
    std::call_once(impl_->stacksRead, [this] { impl_->readStacks(); });
    auto it = impl_->stacks.find(key->second);
    return it == impl_->stacks.end() ? "" : it->second;
}

std::string Dump::casePath(const std::string& call) const {
    std::string p = kCaseRoot;
    if (!impl_->folder.step.empty()) p += "/" + impl_->folder.step;
    if (!impl_->folder.rank.empty()) p += "/" + impl_->folder.rank;
    if (impl_->folder.step.empty() && impl_->folder.rank.empty()) p += "/" + impl_->folder.label();
    return p + "/" + call;
}

cases::Case Dump::makeCase(const std::string& name, const DeviceSettings& device, uint64_t* bytesRead) const {
    auto it = impl_->calls.find(name);
    if (it == impl_->calls.end()) throw FormatError("no supported call '" + name + "' in " + impl_->folder.path);
    // This call's entries, parsed here (on the replaying thread) into the call's own copy.
    detail::Call call = it->second;
    const CallEntries& e = impl_->entries.at(name);
    const std::string source = "'" + (fs::path(impl_->folder.path) / "dump.json").string() + "' entry of " + name;
    const json forward = parseEntry(impl_->dumpText, e.forward, source);
    const json backward = parseEntry(impl_->dumpText, e.backward, source);
    const json parametersGrad = parseEntry(impl_->dumpText, e.parametersGrad, source);
    call.forward = &forward;
    call.backward = e.backward.end > e.backward.begin ? &backward : nullptr;
    call.parametersGrad = e.parametersGrad.end > e.parametersGrad.begin ? &parametersGrad : nullptr;
    call.bytesRead = 0;
    struct Count {
        const detail::Call& call;
        uint64_t* out;
        ~Count() {
            if (out) *out = call.bytesRead;
        }
    } count{call, bytesRead};
    if (e.forward.end <= e.forward.begin)
        throw detail::Unsupported(
            "no forward entry: the call's arguments were not dumped (msprobe data_mode \"backward\"); dump with "
            "data_mode \"all\" to replay it");
    if (!call.backward && !call.aten)
        throw detail::Unsupported(
            "no backward entry: the device's gradients of this call were not dumped "
            "(data_mode, or no gradient flowed through it)");
    cases::Case c;
    if (call.aten)
        c = call.api == "convolution_backward"         ? detail::atenConvolutionCase(call, device)
            : call.api == "native_group_norm_backward" ? detail::atenGroupNormCase(call)
                                                       : detail::atenGridSamplerCase(call);
    else if (isConvolution(call.api))
        c = detail::convolutionCase(call, device);
    else if (call.api == "group_norm" || call.api == "GroupNorm")
        c = detail::groupNormCase(call);
    else if (call.api == "npu_rms_norm")
        c = detail::rmsNormCase(call);
    else
        c = detail::gridSampleCase(call);
    c.path = casePath(name);
    c.product = device.product;  // in a file: its root attribute (importDump)
    c.notes = {{kCallAttribute, name}};
    const std::string frames = stack(name);
    if (!frames.empty()) c.notes.emplace_back(kStackAttribute, frames);
    return c;
}

namespace {

struct Job {
    const Dump* dump;
    std::string call;
    const DeviceSettings* device;
};

struct Built {
    bool ok = false;
    cases::PreparedCase c;  // compressed here, on the worker, when it is going into a file
    std::string error;
    uint64_t bytes = 0;
};

Built build(const Job& job, bool forFile) {
    Built b;
    try {
        cases::Case c = job.dump->makeCase(job.call, *job.device, &b.bytes);
        if (forFile)
            b.c = cases::prepareCase(std::move(c));
        else
            b.c.c = std::move(c);
        b.ok = true;
    } catch (const std::bad_alloc&) {
        b.error = "out of memory while reading its tensors";
    } catch (const std::exception& e) {
        b.error = e.what();
    }
    return b;
}

struct Cancelled {};  // unwinds runOrdered, which stops its workers

// What importWith carries from folder to folder.
struct Progress {
    const ImportOptions& o;
    std::size_t position = 0;  // of the next supported call among all folders' (the shard's rule)
    std::size_t done = 0, total = 0;
    bool mine() { return static_cast<int>(position++ % static_cast<std::size_t>(o.shardCount)) == o.shardIndex; }
};

// The shard's calls of one folder, in order: worker threads read their tensor files while this
// thread hands the finished cases, in order, to the sink (the HDF5 writer, which is serial).
template <class Sink>
void importFolder(const Dump& dump, Progress& p, bool forFile, ImportSummary& summary, Sink& sink) {
    std::vector<Job> jobs;
    for (const std::string& call : dump.supportedCalls())
        if (p.mine()) jobs.push_back({&dump, call, &p.o.device});
    runOrdered(
        jobs.size(), p.o.jobs, [&](std::size_t i) { return &jobs[i]; }, [&](Job*& job) { return build(*job, forFile); },
        [&](std::size_t i, Built& b) {
            if (p.o.cancelled && p.o.cancelled()) throw Cancelled{};
            summary.tensorBytes += b.bytes;
            if (b.ok) {
                summary.imported.push_back(b.c.c.path);
                if (b.c.c.op == "aclnnConvolutionBackward") ++summary.convolutions;
                const auto& inputs = b.c.c.inputs;
                if (std::any_of(inputs.begin(), inputs.end(),
                                [](const auto& in) { return in.second.dtype() == DType::BFloat16; }))
                    ++summary.bfloat16Calls;
                sink(std::move(b.c));
            } else {
                summary.skipped.push_back({dump.folder().label() + "/" + jobs[i].call, b.error});
            }
            if (p.o.progress) p.o.progress(++p.done, p.total);
        });
}

// Imports the shard's calls in order; `sink` receives each case (on this thread), compressed
// for writing when `forFile`. A folder's dump.json is held whole while its calls import (their
// entries are parsed from it), so only one folder's is in memory at a time: with several
// folders (ranks), each dump.json is read once to count its calls and again to import them
// (stack.json once, at the first stack asked of it).
template <class Sink>
ImportSummary importWith(std::vector<DumpFolder> folders, const ImportOptions& o, bool forFile, Sink sink) {
    if (o.shardCount < 1 || o.shardIndex < 0 || o.shardIndex >= o.shardCount)
        throw FormatError("shard " + std::to_string(o.shardIndex) + "/" + std::to_string(o.shardCount) +
                          " does not exist");
    ImportSummary summary;
    summary.folders = std::move(folders);
    std::vector<std::size_t> counts;
    std::optional<Dump> only;  // one folder: read once
    Progress p{o};
    for (const DumpFolder& f : summary.folders) {
        Dump d(f);
        for (const auto& [module, call] : d.foldedModules()) summary.folded.push_back({f.label() + "/" + module, call});
        counts.push_back(d.supportedCalls().size());
        for (std::size_t i = 0; i < counts.back(); ++i) p.total += p.mine();
        if (summary.folders.size() == 1) only.emplace(std::move(d));
    }
    summary.supported = p.total;
    p.position = 0;
    try {
        for (std::size_t k = 0; k < summary.folders.size(); ++k) {
            std::optional<Dump> again;
            const Dump& d = only ? *only : again.emplace(summary.folders[k]);
            if (d.supportedCalls().size() != counts[k])
                throw FormatError("'" + (fs::path(summary.folders[k].path) / "dump.json").string() +
                                  "' changed during the import");
            importFolder(d, p, forFile, summary, sink);
        }
    } catch (const Cancelled&) {
        summary.cancelled = true;
    }
    return summary;
}

}  // namespace

ImportSummary importDump(const std::string& dir, const std::string& output, const ImportOptions& options) {
    // Every file of the dump is an input the output must not replace.
    std::vector<DumpFolder> folders = findDumpFolders(dir, options.step, options.rank);
    std::vector<std::string> inputs;
    std::error_code ec;
    for (const DumpFolder& f : folders)
        for (const char* name : {"dump.json", "stack.json", "construct.json"})
            inputs.push_back((fs::path(f.path) / name).string());
    const fs::path out = fs::absolute(output, ec);
    for (const DumpFolder& f : folders)
        if (out.parent_path() == fs::path(f.path) / "dump_tensor_data")
            throw FormatError("the output '" + output + "' would be written among the dump's tensor files");
    cases::CaseFileWriter writer(output, inputs);
    writer.setRootAttribute(cases::kProductAttribute, productId(options.device.product));
    if (options.shardCount > 1)
        writer.setRootAttribute(cases::kImportShardAttribute,
                                std::to_string(options.shardIndex) + "/" + std::to_string(options.shardCount));

    ImportSummary summary =
        importWith(std::move(folders), options, true, [&](cases::PreparedCase c) { writer.add(c); });
    if (!summary.imported.empty() && !summary.cancelled) {
        writer.commit();
        summary.written = true;
    }
    return summary;
}

std::string callOfCasePath(const std::string& casePath) {
    const std::string root = std::string(kCaseRoot) + "/";
    if (casePath.rfind(root, 0) != 0) return "";
    return casePath.substr(casePath.rfind('/') + 1);
}

std::vector<cases::Case> importCases(const std::string& dir, const ImportOptions& options, ImportSummary* summary) {
    std::vector<cases::Case> out;
    ImportSummary s = importWith(findDumpFolders(dir, options.step, options.rank), options, false,
                                 [&](cases::PreparedCase c) { out.push_back(std::move(c.c)); });
    if (summary) *summary = std::move(s);
    return out;
}

}  // namespace opscope::import::msprobe
