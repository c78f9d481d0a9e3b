// opscope-cli run: runs the cases of case files and traces (or one call built from --op,
// --bind and --attr), judges every output, prints a table, writes a report.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "opscope/ops/case_runner.h"
#include "cli_common.h"
#include "device_verdicts.h"
#include "progress_line.h"
#include "commands.h"
#include "opscope/h5/h5_file.h"
#include "opscope/import/format_error.h"
#include "opscope/import/msprobe.h"
#include "opscope/import/tensor_file.h"
#include "opscope/parallel.h"
#include "opscope/product.h"
#include "opscope/trace.h"
#include "report.h"
#include "worker_processes.h"
#include "results_table.h"

namespace opscope::cli {

CommandSpec runSpec() {
    return {
        "run",
        "run FILE.h5... [--case PATH]... [options]\n       opscope-cli run --op NAME --bind ARG=FILE.h5:/path... "
        "[--attr NAME=VALUE]... [options]",
        "run cases (or a trace's executors) and judge every output by an accuracy standard",
        "Each case runs through the operator's public aclnn API. Every output is compared with OpScope's\n"
        "float64 golden reference computed from the same inputs (\"opscope vs golden\"), with the case's\n"
        "reference sources such as expected/ (\"opscope vs expected\"), and each of the case's actual\n"
        "sources such as npu/ is judged against the golden (\"npu vs golden\"). A trace file replays\n"
        "every executor recorded at level full and compares with the recorded outputs (\"trace\").\n\n"
        "--dtype casts the floating inputs before the run; the golden is recomputed from the cast\n"
        "inputs, and sources computed from the stored inputs are then shown for information only.\n"
        "A case imported from an msprobe dump ('opscope-cli import msprobe') also gets one line that says\n"
        "whether the device fails, the emulation and the device agree, or both fail (then the inputs are the\n"
        "problem); a failing device output makes the exit code 1.\n\n"
        "Thresholds follow each output's dtype. Default standard: dual-thousandth for\n"
        "aclnnConvolutionBackward, cann for every other operator (see 'opscope-cli standards').",
        {{"--case", "PATH", true, "run only this case, or the cases under this group"},
         {"--op", "NAME", false, "build one call of this operator instead of reading cases"},
         {"--bind", "ARG=FILE.h5:/path", true,
          "with --op: tensor argument ARG from a dataset of any HDF5 file, or FILE.npy, FILE.npz:KEY, FILE.pt, "
          "FILE.safetensors:KEY"},
         {"--attr", "NAME=VALUE", true, "with --op: an attribute (1, 2.5, true, 1,2,3 or [true,false])"},
         {"--expect", "OUT=FILE.h5:/path", true,
          "with --op: a reference for output OUT (source 'expected'); .npy/.npz/.pt/.safetensors too"},
         {"--dtype", "DTYPE", false, "cast floating inputs to float32, float16 or bfloat16 first"},
         {"--standard", "NAME", false, "cann, dual-thousandth, msprobe-legacy or rtol=X,atol=Y for every output"},
         {"--product", "ID", false,
          "emulated product: a2, a3, training, inference (default: the product the files were recorded on, else a2)"},
         {"--threads", "N", false, "CPU threads for the kernels (default: all cores; 1 in --jobs workers)"},
         {"--jobs", "N", false,
          "N worker processes (default: the cores, with at least 16 cases each); output order stays the same"},
         {"--shard", "I/N", false, "only the cases whose position % N == I (see 'report merge', docs/SCALE.md)"},
         {"--trace", "OUT.h5", false, "record every executor to this trace file"},
         {"--trace-level", "LEVEL", false, "metadata, stats or full (default full: replayable)"},
         {"--report", "OUT.json|OUT.csv", false, "write the results to a file (atomically; never over an input)"},
         {"--json", "", false, "print the results as JSON on stdout instead of a table"},
         kProgressOption,
         {"--brief", "", false, "one row per case (its worst comparison) instead of one per comparison"},
         {"--verbose", "", false,
          "print every comparison's reason and the notes, and every device verdict (past 20 calls, only the "
          "ones that are not agreements are listed)"},
         {"--worker", "SHARE", false, "internal, for --jobs: run the cases listed in SHARE, one JSON line each"}},
        /*minPositionals=*/0,
        /*maxPositionals=*/-1,
        "  opscope-cli run datasets/group_norm_backward.h5\n"
        "  opscope-cli run datasets/*.h5 --report results.json\n"
        "  opscope-cli run datasets/group_norm_backward.h5 --case /group_norm_backward/fp16 --dtype bf16\n"
        "  opscope-cli run trace.h5 --threads 1\n"
        "  opscope-cli run step0.h5 --jobs 2 --report step0.json      # an imported msprobe dump\n"
        "  opscope-cli run --op rms_norm_grad --bind dy=dy.npy --bind x=x.pt --bind rstd=s.npz:rstd --bind gamma=g.pt\n"
        "  opscope-cli run --op group_norm_backward --bind gradOut=d.h5:/dy --bind input=d.h5:/x \\\n"
        "      --bind mean=d.h5:/mean --bind rstd=d.h5:/rstd --attr N=2 --attr C=8 --attr HxW=16 --attr group=2\n"};
}

int runRun(const ParsedArgs& a);  // below

Command runCommand() { return {runSpec(), runRun}; }

namespace {

std::pair<std::string, std::string> splitAssignment(const std::string& text, const std::string& option) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw CliError(option + " expects NAME=VALUE, got '" + text + "'");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string trim(const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

std::optional<int64_t> asInt(const std::string& s) {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (end != s.c_str() + s.size()) return std::nullopt;
    return static_cast<int64_t>(v);
}

std::optional<double> asDouble(const std::string& s) {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return std::nullopt;
    return v;
}

// "2" -> int, "2.5" -> double, "true" -> bool, "1,2" or "[1, 2]" -> int[], "[true,false]" -> bool[].
ParamValue parseAttributeValue(const std::string& name, const std::string& text) {
    std::string t = trim(text);
    const bool bracketed = t.size() >= 2 && t.front() == '[' && t.back() == ']';
    if (bracketed) t = t.substr(1, t.size() - 2);
    if (!bracketed && t.find(',') == std::string::npos) {
        if (auto b = parseTrueFalse(t)) return *b;
        if (auto i = asInt(t)) return *i;
        if (auto d = asDouble(t)) return *d;
        return t;
    }
    std::vector<std::string> parts;
    std::size_t begin = 0;
    while (begin <= t.size()) {
        std::size_t end = t.find(',', begin);
        if (end == std::string::npos) end = t.size();
        const std::string part = trim(t.substr(begin, end - begin));
        if (!part.empty()) parts.push_back(part);
        begin = end + 1;
    }
    if (std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return parseTrueFalse(p).has_value(); })) {
        std::vector<bool> v;
        for (const auto& p : parts) v.push_back(*parseTrueFalse(p));
        return v;
    }
    if (std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return asInt(p).has_value(); })) {
        std::vector<int64_t> v;
        for (const auto& p : parts) v.push_back(*asInt(p));
        return v;
    }
    if (std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return asDouble(p).has_value(); })) {
        std::vector<double> v;
        for (const auto& p : parts) v.push_back(*asDouble(p));
        return v;
    }
    throw CliError("--attr " + name + "=" + text + ": a list must hold only numbers or only true/false");
}

// The one call --op/--bind/--attr/--expect describe, as a case.
cases::Case caseFromOptions(const ParsedArgs& a, std::vector<std::string>* inputFiles) {
    cases::Case c;
    c.op = a.value("--op");
    c.path = "--op " + c.op;
    c.origin = "command line";
    for (const std::string& b : a.values("--bind")) {
        const auto [name, target] = splitAssignment(b, "--bind");
        if (c.input(name)) throw CliError("--bind " + name + " is given twice");
        c.inputs.emplace_back(name, readTensorArgument(target, "--bind " + name, inputFiles));
    }
    for (const std::string& at : a.values("--attr")) {
        const auto [name, value] = splitAssignment(at, "--attr");
        c.params.push_back({name, parseAttributeValue(name, value)});
    }
    if (a.has("--expect")) {
        cases::OutputSource expected;
        expected.name = cases::kExpectedSource;
        expected.role = cases::SourceRole::Reference;
        for (const std::string& e : a.values("--expect")) {
            const auto [name, target] = splitAssignment(e, "--expect");
            expected.tensors.emplace_back(name, readTensorArgument(target, "--expect " + name, inputFiles));
        }
        c.sources.push_back(std::move(expected));
    }
    return c;
}

// Where the cases of one file are, before any tensor is read.
struct FilePlan {
    std::string file;
    bool trace = false;
    std::string importShard;              // the case file's import shard "I/N", or ""
    std::optional<Product> product;       // the product its cases were recorded on, when it says
    std::string unknownProduct;           // what it says instead, when OpScope does not know it
    std::vector<std::string> casePaths;   // case files
    std::vector<cases::Case> traceCases;  // traces (read whole: traces hold their tensors per executor)
    bool dataVetted = false;              // the validator read every case's data with the metadata
};

// `wholeFile`: the run takes every case (no --case, no --shard), so one validator reads the
// metadata and all the data at once; otherwise vetCaseData has the cases it takes read.
FilePlan planFile(const std::string& file, const std::vector<std::string>& selections, bool wholeFile,
                  std::vector<std::string>* skipped, std::vector<std::string>* unmatched) {
    const bool readWhole = wholeFile && selections.empty();
    requireSafeFile(file, readWhole ? std::vector<std::string>{"/"} : std::vector<std::string>{});
    FilePlan plan;
    plan.file = file;
    plan.dataVetted = readWhole;
    try {
        const h5::File f = h5::File::openReadOnly(file);
        plan.trace = cases::isTraceFile(f);
        if (plan.trace) {
            if (!readWhole) requireSafeFile(file, {"/"});  // its executors are read whole, tensors and all
            std::vector<std::string> why;
            for (cases::Case& c : cases::casesFromTrace(file, &why)) plan.traceCases.push_back(std::move(c));
            for (const std::string& w : why) skipped->push_back(file + ": " + w);
            if (plan.traceCases.empty())
                throw CliError("trace '" + file + "' has no executor that can be replayed" +
                               (why.empty() ? std::string(": it is empty") : ": " + why.front()));
            plan.product = plan.traceCases.front().product;
            for (const cases::Case& c : plan.traceCases)
                if (c.product != plan.product) plan.product.reset();  // executors of several products
        } else {
            plan.casePaths = cases::findCases(f);
            plan.importShard = cases::importShardOf(f);
            plan.product = cases::recordedProductOf(f, &plan.unknownProduct);
        }
    } catch (const FileError& e) {
        throw CliError(e.what());
    }
    if (!plan.trace && plan.casePaths.empty())
        throw CliError("'" + file +
                       "' holds no cases (a case is a group with an 'op' attribute, see "
                       "datasets/FORMAT.md); to run an operator on datasets of any file use --op with --bind");
    if (selections.empty()) return plan;
    auto selected = [&](const std::string& path) {
        for (const std::string& s : selections) {
            const std::string n = h5::normalizePath(s);
            if (path == n ||
                (path.size() > n.size() && path.compare(0, n.size(), n) == 0 && (n == "/" || path[n.size()] == '/')))
                return true;
        }
        return false;
    };
    for (const std::string& s : selections) {
        const std::string n = h5::normalizePath(s);
        bool any = false;
        for (const std::string& p : plan.casePaths) any = any || p == n || p.rfind(n + "/", 0) == 0 || n == "/";
        for (const cases::Case& c : plan.traceCases)
            any = any || c.path == n || c.path.rfind(n + "/", 0) == 0 || n == "/";
        if (!any) unmatched->push_back(s);
    }
    plan.casePaths.erase(std::remove_if(plan.casePaths.begin(), plan.casePaths.end(),
                                        [&](const std::string& p) { return !selected(p); }),
                         plan.casePaths.end());
    plan.traceCases.erase(std::remove_if(plan.traceCases.begin(), plan.traceCases.end(),
                                         [&](const cases::Case& c) { return !selected(c.path); }),
                          plan.traceCases.end());
    return plan;
}

ops::CaseResult errorResult(const std::string& file, const std::string& path, const std::string& error) {
    ops::CaseResult r;
    r.file = file;
    r.path = path;
    r.error = error;
    return r;
}

// One case to run: a case file's path, a replayed trace executor, or the --op call; `order` is
// its position among all the cases of the command (before --shard), which report merge uses.
struct WorkItem {
    const FilePlan* plan = nullptr;
    const cases::Case* ready = nullptr;  // a trace executor or the --op call
    std::string path;
    std::size_t order = 0;
};

std::vector<WorkItem> workItems(const std::vector<FilePlan>& plans, const cases::Case* adHoc, int shardIndex,
                                int shardCount) {
    std::vector<WorkItem> all;
    if (adHoc) all.push_back({nullptr, adHoc, adHoc->path, 0});
    for (const FilePlan& plan : plans) {
        for (const cases::Case& c : plan.traceCases) all.push_back({&plan, &c, c.path, 0});
        for (const std::string& p : plan.casePaths) all.push_back({&plan, nullptr, p, 0});
    }
    std::vector<WorkItem> kept;
    for (std::size_t i = 0; i < all.size(); ++i) {
        all[i].order = i;
        if (static_cast<int>(i % static_cast<std::size_t>(shardCount)) == shardIndex) kept.push_back(all[i]);
    }
    return kept;
}

// Has the validator read the tensors of the cases this run takes before any is run, so that
// each of N shards reads its own share of a big file, not all of it (requireSafeCases).
void vetCaseData(const std::vector<FilePlan>& plans, const std::vector<WorkItem>& items) {
    for (const FilePlan& plan : plans) {
        if (plan.dataVetted) continue;
        std::vector<std::string> paths;
        for (const WorkItem& it : items)
            if (it.plan == &plan && !it.ready) paths.push_back(it.path);
        requireSafeCases(plan.file, paths);
    }
}

// Runs the items in order and hands each result to `record`; a case file stays open while its
// cases run.
template <class Record>
void runItems(const std::vector<WorkItem>& items, const ops::RunSettings& settings, Record record) {
    std::unique_ptr<h5::File> open;
    const FilePlan* openPlan = nullptr;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const WorkItem& it = items[i];
        if (it.ready) {
            record(i, ops::runCase(*it.ready, it.plan ? it.plan->file : "", settings));
            continue;
        }
        cases::Case c;
        try {
            if (openPlan != it.plan) {
                open = std::make_unique<h5::File>(h5::File::openReadOnly(it.plan->file));
                openPlan = it.plan;
            }
            c = cases::readCase(*open, it.path);
        } catch (const FileError& e) {
            record(i, errorResult(it.plan->file, it.path, e.what()));
            continue;
        }
        record(i, ops::runCase(c, it.plan->file, settings));
    }
}

}  // namespace

namespace {

// What the options say, checked before any work.
struct RunOptions {
    ops::RunSettings settings;
    std::optional<metrics::Standard> standard;  // settings.standard points here
    TraceLevel traceLevel = TraceLevel::Full;
    int shardIndex = 0, shardCount = 1;
    std::vector<std::string> inputFiles;  // refused as --report and --trace
    std::optional<cases::Case> adHoc;     // the --op call
    RunOptions() = default;
    RunOptions(const RunOptions&) = delete;
};

void checkCommandShape(const ParsedArgs& a) {
    const bool adHoc = a.has("--op");
    if (adHoc && !a.positionals.empty())
        throw CliError("give either case files or --op with --bind, not both (got '" + a.positionals[0] +
                       "' and --op)");
    if (!adHoc && a.positionals.empty())
        throw CliError(
            "'run' needs a case or trace file, or --op with --bind: usage: opscope-cli run FILE.h5... "
            "(see opscope-cli run --help)");
    if (!adHoc)
        for (const char* o : {"--bind", "--attr", "--expect"})
            if (a.has(o)) throw CliError(std::string(o) + " needs --op NAME (the operator to call)");
    if (adHoc && a.has("--case")) throw CliError("--case selects cases in files; it does not apply to --op");
}

// --dtype, --standard, --product, --threads, --trace-level, --shard.
void readSettings(const ParsedArgs& a, RunOptions* o, RunSummary* summary) {
    if (a.has("--dtype")) {
        o->settings.dtype = parseFloatDtype(a.value("--dtype"));
        summary->dtype = dtypeName(o->settings.dtype);
    }
    if (a.has("--standard")) {
        o->standard = metrics::parseStandard(a.value("--standard"));  // a UsageError names the spec
        o->settings.standard = &*o->standard;
        summary->standardOverride = o->standard->name;
    }
    if (a.has("--product")) setProduct(parseProductOption(a.value("--product")));
    if (a.has("--threads")) {
        const std::string& t = a.value("--threads");
        char* end = nullptr;
        const long n = std::strtol(t.c_str(), &end, 10);
        if (t.empty() || end != t.c_str() + t.size() || n < 1 || n > 1024)
            throw CliError("--threads must be a whole number from 1 to 1024, got '" + t + "'");
        setNumThreads(static_cast<int>(n));
    }
    if (a.has("--trace-level") && !parseTraceLevel(a.value("--trace-level"), &o->traceLevel))
        throw CliError("unknown --trace-level '" + a.value("--trace-level") + "': use metadata, stats or full");
    if (a.has("--trace-level") && !a.has("--trace")) throw CliError("--trace-level needs --trace OUT.h5");
    if (a.has("--shard")) {
        parseShard(a.value("--shard"), &o->shardIndex, &o->shardCount);
        summary->shard = a.value("--shard");
    }
}

// The --op call, then --report and --trace against every input.
void readInputsAndOutputs(const ParsedArgs& a, RunOptions* o) {
    if (a.has("--report")) checkReportPath(a.value("--report"));
    o->inputFiles = a.positionals;
    if (a.has("--op")) o->adHoc = caseFromOptions(a, &o->inputFiles);
    if (a.has("--report")) checkOutputPath(a.value("--report"), o->inputFiles, "--report");
    if (a.has("--trace")) {
        std::vector<std::string> taken = o->inputFiles;
        if (a.has("--report")) taken.push_back(a.value("--report"));
        checkOutputPath(a.value("--trace"), taken, "--trace");
    }
}

// Where the cases of every file are (metadata only); every --case must match somewhere.
std::vector<FilePlan> planFiles(const ParsedArgs& a, RunSummary* summary) {
    std::vector<FilePlan> plans;
    std::vector<std::string> unmatched;
    for (const std::string& file : a.positionals) {
        std::vector<std::string> fileUnmatched;
        plans.push_back(planFile(file, a.values("--case"), !a.has("--shard"), &summary->skipped, &fileUnmatched));
        summary->files.push_back({file, plans.back().importShard});
        for (const std::string& u : fileUnmatched)
            if (a.positionals.size() == 1) throw CliError("no case or group '" + u + "' in '" + file + "'");
        unmatched.insert(unmatched.end(), fileUnmatched.begin(), fileUnmatched.end());
    }
    for (const std::string& sel : a.values("--case"))
        if (std::count(unmatched.begin(), unmatched.end(), sel) == static_cast<long>(a.positionals.size()))
            throw CliError("no case or group '" + sel + "' in any of the files");
    return plans;
}

// The product to emulate, so that the golden and the device verdicts describe the device the
// cases came from: --product when given, else the one product the files were recorded on (an
// import's --product, a trace's executors), else OPSCOPE_PRODUCT or Atlas A2. Files recorded on
// two products cannot be judged in one run.
void chooseProduct(const ParsedArgs& a, const std::vector<FilePlan>& plans) {
    const FilePlan* first = nullptr;
    for (const FilePlan& p : plans) {
        if (!p.unknownProduct.empty() && !a.has("--product"))
            throw CliError("'" + p.file + "' says its cases ran on product '" + p.unknownProduct +
                           "' (root attribute " + cases::kProductAttribute +
                           "), which OpScope does not know: choose one with --product (a2, a3, training or inference)");
        if (!p.product) continue;
        if (a.has("--product") && *p.product != currentProduct())
            std::cerr << "note: '" << p.file << "' was recorded on the " << productName(*p.product)
                      << "; emulating the " << productName(currentProduct()) << " as --product asks\n";
        if (first && *first->product != *p.product)
            throw CliError("'" + first->file + "' was recorded on product " + productId(*first->product) + " and '" +
                           p.file + "' on " + productId(*p.product) +
                           ": run them separately, or choose one with --product");
        if (!first) first = &p;
    }
    if (first && !a.has("--product")) setProduct(*first->product);
}

constexpr std::size_t kCasesPerWorker = 16;  // fewer, and starting a process costs more than it saves

// Worker processes: --jobs N, or by default one per core with at least kCasesPerWorker cases
// each; 1 (this process) for the --op call and with --trace.
int workerCount(const ParsedArgs& a, std::size_t cases) {
    if (a.has("--jobs")) {
        const int jobs = parseJobs(a.value("--jobs"));
        if (jobs > 1 && a.has("--trace")) throw CliError("--trace records one call at a time: use it without --jobs");
        return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs), cases));
    }
    if (a.has("--trace") || a.has("--op")) return 1;
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<int>(std::max<std::size_t>(1, std::min(cores, cases / kCasesPerWorker)));
}

// The worker's command line: the files and every option that changes a result.
std::vector<std::string> workerArguments(const ParsedArgs& a) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), a.positionals.begin(), a.positionals.end());
    for (const char* o : {"--dtype", "--standard"})
        if (a.has(o)) args.insert(args.end(), {o, a.value(o)});
    args.insert(args.end(), {"--product", productId(currentProduct())});  // as chooseProduct chose
    args.insert(args.end(), {"--threads", a.valueOr("--threads", "1")});  // the cases share the cores
    return args;
}

// Item k of the user's shard goes to worker k % workers: a deterministic split.
std::vector<std::vector<WorkerItem>> workerShares(const std::vector<WorkItem>& items,
                                                  const std::vector<FilePlan>& plans, int workers) {
    std::vector<std::vector<WorkerItem>> shares(static_cast<std::size_t>(workers));
    for (std::size_t k = 0; k < items.size(); ++k) {
        const WorkItem& it = items[k];
        shares[k % shares.size()].push_back({it.order, static_cast<std::size_t>(it.plan - plans.data()), it.path});
    }
    return shares;
}

// The items in this process, with --trace when asked.
void runHere(const ParsedArgs& a, const RunOptions& o, const std::vector<WorkItem>& items, RunSummary* summary) {
    std::shared_ptr<TraceFileWriter> trace;
    if (a.has("--trace")) {
        try {
            trace = startTrace(a.value("--trace"), o.traceLevel);
        } catch (const std::exception& e) {
            throw CliError("cannot start the trace: " + std::string(e.what()));
        }
    }
    summary->product = productId(currentProduct());
    summary->threads = numThreads();
    ProgressLine progress(a, 1);
    runItems(items, o.settings, [&](std::size_t i, ops::CaseResult r) {
        progress.step(i + 1, items.size(), r.path + " ...");
        (!r.ok() ? summary->errors : r.passed() ? summary->passed : summary->failed) += 1;
        summary->results.push_back(std::move(r));
        summary->order.push_back(items[i].order);
    });
    progress.clear();
    if (!trace) return;
    stopTrace(trace);
    std::cerr << "trace: " << trace->executorsWritten() << " executor" << (trace->executorsWritten() == 1 ? "" : "s")
              << " written to " << trace->path() << "\n";
}

// The items in `workers` processes of opscope-cli run --worker; their results in order.
void runInWorkers(const ParsedArgs& a, const std::vector<FilePlan>& plans, const std::vector<WorkItem>& items,
                  int workers, RunSummary* summary) {
    WorkerPlan plan;
    plan.args = workerArguments(a);
    plan.shares = workerShares(items, plans, workers);
    ProgressLine progress(a, 1);
    plan.progress = [&](std::size_t done, const std::string& path) {
        progress.step(done, items.size(), path + " ...");
    };
    std::vector<OrderedResult> results = runInWorkerProcesses(plan);
    progress.clear();
    summary->product = productId(currentProduct());
    summary->threads = std::stoi(a.valueOr("--threads", "1"));
    summary->workers = workers;
    for (OrderedResult& o : results) {
        const ops::CaseResult& r = o.result;
        (!r.ok() ? summary->errors : r.passed() ? summary->passed : summary->failed) += 1;
        summary->order.push_back(o.order);
        summary->results.push_back(std::move(o.result));
    }
}

// A worker of --jobs: the cases of its share, each result a JSON line on stdout as it is done.
// The case files are not listed again (the share names the cases); traces are read whole.
int runAsWorker(const ParsedArgs& a, const RunOptions& o) {
    const std::vector<WorkerItem> share = readWorkerShare(a.value("--worker"));
    std::vector<FilePlan> plans;
    for (const std::string& file : a.positionals) {
        bool trace = false;
        try {
            trace = cases::isTraceFile(h5::File::openReadOnly(file));
        } catch (const FileError& e) {
            throw CliError(e.what());
        }
        std::vector<std::string> skipped, unmatched;
        plans.push_back(trace ? planFile(file, {}, true, &skipped, &unmatched)
                              : FilePlan{file, false, "", std::nullopt, "", {}, {}});
    }
    std::vector<WorkItem> items;
    for (const WorkerItem& w : share) {
        if (w.file >= plans.size()) throw CliError("a worker's case names file " + std::to_string(w.file));
        const FilePlan& plan = plans[w.file];
        const auto trace = std::find_if(plan.traceCases.begin(), plan.traceCases.end(),
                                        [&](const cases::Case& c) { return c.path == w.path; });
        items.push_back({&plan, trace == plan.traceCases.end() ? nullptr : &*trace, w.path, w.order});
    }
    ResultSender sender;
    runItems(items, o.settings, [&](std::size_t i, const ops::CaseResult& r) { sender.send(r, items[i].order); });
    sender.flush();
    return kExitPass;
}

void printResults(const ParsedArgs& a, const RunSummary& summary, const std::vector<std::string>& inputFiles) {
    if (a.has("--json"))
        writeRunJson(std::cout, summary);
    else if (a.has("--brief"))
        printBriefTable(std::cout, summary);
    else
        printRunTable(std::cout, summary, a.has("--verbose"));
    if (!a.has("--json")) {
        std::vector<DeviceVerdictRow> rows;
        for (const ops::CaseResult& r : summary.results)
            if (const ops::DeviceVerdict v = r.deviceVerdict(); v.kind != ops::DeviceVerdict::Kind::NoDevice)
                rows.push_back(
                    {verdictCallLabel(r.file, r.path), ops::deviceVerdictName(v.kind), v.line, r.file, r.path});
        printDeviceVerdicts(std::cout, rows, a.has("--verbose"));
    }
    if (a.has("--report")) writeReport(a.value("--report"), summary, inputFiles);
    for (const ops::CaseResult& r : summary.results)
        if (!r.ok())
            std::cerr << "opscope-cli: " << (r.file.empty() ? "" : r.file + ":") << r.path << ": " << r.error << "\n";
}

}  // namespace

int runRun(const ParsedArgs& a) {
    checkCommandShape(a);
    RunOptions o;
    RunSummary summary;
    readSettings(a, &o, &summary);
    readInputsAndOutputs(a, &o);
    if (a.has("--worker")) return runAsWorker(a, o);
    const std::vector<FilePlan> plans = planFiles(a, &summary);
    chooseProduct(a, plans);
    const std::vector<WorkItem> items = workItems(plans, o.adHoc ? &*o.adHoc : nullptr, o.shardIndex, o.shardCount);
    if (items.empty()) throw CliError(o.shardCount > 1 ? "no cases in shard " + a.value("--shard") : "no cases to run");
    vetCaseData(plans, items);
    const int workers = workerCount(a, items.size());
    if (workers > 1)
        runInWorkers(a, plans, items, workers, &summary);
    else
        runHere(a, o, items, &summary);
    printResults(a, summary, o.inputFiles);
    return summary.exitCode();
}

}  // namespace opscope::cli
