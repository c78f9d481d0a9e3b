// opscope-cli export repro / import repro: cases as standalone aclnn programs to run on the NPU,
// and the outputs they wrote back as cases judged against the golden (docs/REPRO.md).
#include <filesystem>
#include <iostream>
#include <set>

#include "cli_common.h"
#include "commands.h"
#include "progress_line.h"
#include "report_merge.h"
#include "stop_signals.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/ops/repro.h"

namespace opscope::cli {

CommandSpec exportReproSpec() {
    return {"export repro",
            "export repro FILE.h5 [--case PATH]... [--device-fails REPORT.json] -o DIR [--product ID]",
            "write cases as standalone aclnn programs and their data, to run on an NPU",
            "A reproducer is a folder: repro.cpp, a program of the official aclnn API alone that builds\n"
            "unchanged against CANN on an Ascend NPU and against OpScope's SDK, its CMakeLists.txt and\n"
            "README.md, inputs/*.npy, expected/*.npy (OpScope's outputs of the call) and case.h5. It writes\n"
            "outputs/*.npy, which 'import repro' reads back. One case selected: DIR is its reproducer. Several\n"
            "(a --case naming a group, several --case, or --device-fails): DIR is a bundle, one folder a case\n"
            "and run_all.sh. FILE is a case file or a trace. The calls are emulated on --product, else the\n"
            "product the file records, else a2. DIR appears whole or not at all.",
            {{"--case", "PATH", true, "a case, or a group of cases ('info FILE' lists them)"},
             {"--device-fails", "REPORT.json", false, "the cases of FILE that a 'run --report' says the device fails"},
             {"-o", "DIR", false, "the folder to create (it must not exist)"},
             {"--product", "ID", false, "the product to reproduce on: a2, a3, training, inference"},
             kProgressOption},
            /*minPositionals=*/1,
            /*maxPositionals=*/1,
            "  opscope-cli export repro step0.h5 --case /msprobe/step0/rank0/Functional.conv2d.4 -o conv2d_4\n"
            "  opscope-cli run step0.h5 --report step0.json; opscope-cli export repro step0.h5 --device-fails "
            "step0.json -o failing\n"
            "  (on the NPU) bash failing/run_all.sh\n"
            "  opscope-cli import repro failing -o judged.h5 && opscope-cli run judged.h5\n"};
}

CommandSpec importReproSpec() {
    return {"import repro",
            "import repro DIR -o OUT.h5",
            "read back what reproducers wrote: their cases, with outputs/ as the source 'npu'",
            "DIR is a reproducer or a bundle 'export repro' wrote, after the programs ran (outputs/*.npy).\n"
            "OUT.h5 holds each case with those outputs as the source 'npu' (role actual), checked against the\n"
            "dtype and shape the call gives each; 'opscope-cli run OUT.h5' then judges them against the float64\n"
            "golden, as it judges an msprobe dump's gradients. A bundle's folder whose outputs are missing or\n"
            "wrong is listed with the reason and the others are imported.",
            {{"-o", "OUT.h5", false, "the case file to write (atomically; never over a file of DIR)"}},
            /*minPositionals=*/1,
            /*maxPositionals=*/1,
            "  opscope-cli import repro conv2d_4 -o judged.h5\n"
            "  opscope-cli run judged.h5\n"};
}

int runExportRepro(const ParsedArgs& a);  // below
int runImportRepro(const ParsedArgs& a);

Command exportReproCommand() { return {exportReproSpec(), runExportRepro}; }
Command importReproCommand() { return {importReproSpec(), runImportRepro}; }

namespace {

bool under(const std::string& path, const std::string& selection) {
    return path == selection || (path.size() > selection.size() && path.compare(0, selection.size(), selection) == 0 &&
                                 (selection == "/" || path[selection.size()] == '/'));
}

// A report names its files as 'run' was given them: relative to where it ran, which is most often
// where the report was written.
bool namesFile(const std::string& named, const std::string& reportPath, const std::string& file) {
    if (h5::sameFile(named, file)) return true;
    const std::filesystem::path p(named);
    return p.is_relative() && h5::sameFile(std::filesystem::path(reportPath).parent_path() / p, file);
}

// The cases of `file` that a run report says the device fails.
std::set<std::string> deviceFailsIn(const std::string& reportPath, const std::string& file) {
    const ReportJson report = readReportFile(reportPath);
    std::set<std::string> paths;
    bool fileSeen = false;
    for (const auto& c : report.value("cases", ReportJson::array())) {
        const std::string caseFile = c.is_object() ? c.value("file", std::string()) : std::string();
        if (caseFile.empty() || !namesFile(caseFile, reportPath, file)) continue;
        fileSeen = true;
        if (c.value("device_verdict", std::string()) == "device fails") paths.insert(c.value("path", std::string()));
    }
    if (!fileSeen) throw CliError("the report '" + reportPath + "' has no case of '" + file + "'");
    if (paths.empty()) throw CliError("the report '" + reportPath + "' has no case of '" + file + "' the device fails");
    return paths;
}

// The paths of the cases of `file` that --case and --device-fails select (every case when neither).
std::vector<std::string> selectedCases(const std::vector<std::string>& paths, const ParsedArgs& a,
                                       const std::string& file) {
    const std::vector<std::string> selections = a.values("--case");
    const std::set<std::string> failing =
        a.has("--device-fails") ? deviceFailsIn(a.value("--device-fails"), file) : std::set<std::string>();
    std::vector<std::string> out;
    for (const std::string& p : paths) {
        bool chosen =
            selections.empty() || std::any_of(selections.begin(), selections.end(),
                                              [&](const std::string& s) { return under(p, h5::normalizePath(s)); });
        if (a.has("--device-fails")) chosen = chosen && failing.count(p) > 0;
        if (chosen) out.push_back(p);
    }
    for (const std::string& s : selections)
        if (std::none_of(paths.begin(), paths.end(),
                         [&](const std::string& p) { return under(p, h5::normalizePath(s)); }))
            throw CliError("'" + file + "' has no case at '" + s + "' (opscope-cli info " + file + " lists them)");
    if (out.empty()) throw CliError("no case of '" + file + "' is both under --case and failed by the device");
    return out;
}

// Where the cases of a case file or a trace are, and how to read one.
struct CaseSource {
    std::string file;
    bool trace = false;
    h5::File f;
    std::vector<std::string> paths;
    cases::Case read(const std::string& path) const {
        return trace ? cases::caseFromTrace(f, path) : cases::readCase(f, path);
    }
};

CaseSource openCases(const std::string& file) {
    requireSafeFile(file);  // the metadata; a case file's cases exported: runExportRepro
    CaseSource s{file, false, h5::File::openReadOnly(file), {}};
    s.trace = cases::isTraceFile(s.f);
    if (s.trace) {
        requireSafeFile(file, {"/"});  // its executors are read whole, tensors and all
        std::vector<std::string> why;
        for (const cases::Case& c : cases::casesFromTrace(file, &why)) s.paths.push_back(c.path);
    } else {
        s.paths = cases::findCases(s.f);
    }
    if (s.paths.empty()) throw CliError("'" + file + "' holds no case to reproduce");
    return s;
}

void printNextSteps(const std::string& dir, bool bundle) {
    std::cout << (bundle ? "on the NPU: bash " + dir + "/run_all.sh  (README.md)\n"
                         : "on the NPU: cmake -S . -B build && cmake --build build && ./build/repro .  (README.md)\n")
              << "then: opscope-cli import repro " << dir << " -o judged.h5 && opscope-cli run judged.h5\n";
}

int exportBundle(const CaseSource& source, const std::vector<std::string>& paths, const ParsedArgs& a) {
    const std::string dir = a.value("-o");
    ProgressLine progress(a, 1);
    const StopSignals signals;
    ops::ReproBundleWork work;
    work.count = paths.size();
    work.caseAt = [&](std::size_t i) { return source.read(paths[i]); };
    work.progress = [&](std::size_t done, std::size_t total) { progress.step(done, total, "exporting"); };
    work.cancelled = [] { return StopSignals::received() != 0; };
    std::vector<ops::ReproBundleEntry> entries;
    try {
        entries = ops::exportReproBundle(work, dir, source.file);
    } catch (const ops::Cancelled&) {
        progress.clear();
        std::cerr << "interrupted: nothing written\n";
        StopSignals::dieOfReceived();
        throw CliError("interrupted");
    }
    progress.clear();
    const auto made = std::count_if(entries.begin(), entries.end(), [](const auto& e) { return e.skipped.empty(); });
    std::cout << "wrote " << dir << "/: " << made << " reproducer" << (made == 1 ? "" : "s") << " on the "
              << productName(currentProduct()) << "\n";
    for (const ops::ReproBundleEntry& e : entries)
        if (!e.skipped.empty()) std::cout << "  not exported: " << e.casePath << ": " << e.skipped << "\n";
    printNextSteps(dir, true);
    return kExitPass;
}

}  // namespace

int runExportRepro(const ParsedArgs& a) {
    requiredOutput(a, "export repro", "DIR (the folder to create)");
    const CaseSource source = openCases(a.positionals[0]);
    if (!a.has("--case") && !a.has("--device-fails") && source.paths.size() > 1)
        throw CliError("'" + source.file + "' holds " + std::to_string(source.paths.size()) +
                       " cases: name one or a group with --case (--case / for all), or take the ones the device "
                       "fails with --device-fails (opscope-cli info " +
                       source.file + " lists them)");
    const std::vector<std::string> paths = selectedCases(source.paths, a, source.file);
    if (!source.trace) requireSafeCases(source.file, paths);
    const bool bundle = paths.size() > 1 || a.has("--device-fails");
    const cases::Case first = source.read(paths.front());
    if (a.has("--product"))
        setProduct(parseProductOption(a.value("--product")));
    else if (first.product)
        setProduct(*first.product);
    if (bundle) return exportBundle(source, paths, a);
    ops::ReproExport r;
    try {
        r = ops::exportRepro(first, a.value("-o"), "case " + first.path + " of " + source.file);
    } catch (const StatusError& e) {
        throw CliError("nothing to reproduce: the emulated " + std::string(productName(currentProduct())) +
                       " rejects the call (" + e.what() + ")");
    }
    std::cout << "wrote " << a.value("-o") << "/: a reproducer of " << r.op << " on the "
              << productName(currentProduct()) << " (" << r.files.size() << " files)\n";
    printNextSteps(a.value("-o"), false);
    return kExitPass;
}

namespace {

// The case of one reproducer folder with its outputs attached; its product in `product`.
cases::Case judgedCase(const std::string& folder, std::optional<Product>* product) {
    const std::string casePath = folder + "/" + ops::kReproCase;
    requireSafeFile(casePath, {"/"});
    cases::Case c;
    {
        const h5::File f = h5::File::openReadOnly(casePath);
        const std::vector<std::string> paths = cases::findCases(f);
        if (paths.size() != 1)
            throw ContentError("'" + casePath + "' holds " + std::to_string(paths.size()) +
                               " cases; a reproducer's holds one (is this a folder 'export repro' wrote?)");
        c = cases::readCase(f, paths.front());
    }
    if (c.product) setProduct(*c.product);
    if (*product && c.product != *product)
        throw ContentError("'" + casePath + "' is for the " + productName(c.product.value_or(currentProduct())) +
                           ", the bundle's other reproducers for the " + productName(**product));
    *product = c.product;
    ops::attachReproOutputs(c, folder);
    return c;
}

}  // namespace

int runImportRepro(const ParsedArgs& a) {
    const std::string out = requiredOutput(a, "import repro", "OUT.h5 (the case file to write)", ".h5");
    const std::string& dir = a.positionals[0];
    const std::vector<std::string> folders = ops::reproFoldersOf(dir);
    if (folders.empty())
        throw CliError("'" + dir + "' is neither a reproducer nor a bundle of them: no " + ops::kReproCase +
                       " in it or in its folders (export repro writes them)");
    std::vector<std::string> inputs;
    for (const std::string& f : folders) inputs.push_back(f + "/" + ops::kReproCase);
    checkOutputPath(out, inputs, "-o");
    std::optional<Product> product;
    std::vector<std::string> skipped;
    cases::CaseFileWriter writer(out, inputs);
    std::size_t imported = 0;
    for (const std::string& folder : folders) {
        try {
            writer.add(judgedCase(folder, &product));
            ++imported;
        } catch (const FileError& e) {
            if (folders.size() == 1) throw;
            skipped.push_back(folder + ": " + e.what());
        }
    }
    if (imported == 0) throw CliError("no reproducer of '" + dir + "' could be imported: " + skipped.front());
    writer.setRootAttribute(cases::kProductAttribute, productId(currentProduct()));
    writer.commit();
    std::cout << "imported " << imported << " of " << folders.size() << " reproducer"
              << (folders.size() == 1 ? "" : "s") << " of " << dir << " (their outputs as the source npu) into " << out
              << "\n";
    if (!skipped.empty()) std::cout << "not imported:\n";
    for (const std::string& s : skipped) std::cout << "  " << s << "\n";
    std::cout << "next: opscope-cli run " << out << "\n";
    return kExitPass;
}

}  // namespace opscope::cli
