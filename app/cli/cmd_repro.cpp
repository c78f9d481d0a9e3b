// opscope-cli export repro / import repro: one case as a standalone aclnn program to run on the
// NPU, and the outputs it wrote back as a case judged against the golden (docs/REPRO.md).
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "opscope/ops/repro.h"

namespace opscope::cli {

CommandSpec exportReproSpec() {
    return {"export repro",
            "export repro FILE.h5 [--case PATH] -o DIR [--product ID]",
            "write one case as a standalone aclnn program and its data, to run on an NPU",
            "DIR (a new folder) gets repro.cpp, a program of the official aclnn API alone that builds unchanged\n"
            "against CANN on an Ascend NPU and against OpScope's SDK, with its CMakeLists.txt and README.md;\n"
            "inputs/*.npy, which it reads; expected/*.npy, OpScope's outputs of the call; and case.h5, the case.\n"
            "Run it where the operator misbehaves; it writes outputs/*.npy, which 'import repro' reads back.\n"
            "FILE is a case file or a trace; --case picks the case when it holds several. The call is emulated\n"
            "on --product, else the product the file records, else a2. The folder appears whole or not at all.",
            {{"--case", "PATH", false, "the case (a path 'info FILE' lists); needed when FILE holds several"},
             {"-o", "DIR", false, "the folder to create (it must not exist)"},
             {"--product", "ID", false, "the product to reproduce on: a2, a3, training, inference"}},
            /*minPositionals=*/1,
            /*maxPositionals=*/1,
            "  opscope-cli export repro step0.h5 --case /msprobe/step0/rank0/Functional.conv2d.4 -o conv2d_4\n"
            "  (on the NPU) cd conv2d_4 && cmake -S . -B build && cmake --build build && ./build/repro .\n"
            "  opscope-cli import repro conv2d_4 -o judged.h5 && opscope-cli run judged.h5\n"};
}

CommandSpec importReproSpec() {
    return {"import repro",
            "import repro DIR -o OUT.h5",
            "read back what a reproducer wrote: its case, with outputs/ as the source 'npu'",
            "DIR is a folder 'export repro' wrote, after its program ran (outputs/*.npy). OUT.h5 holds the case\n"
            "with those outputs as the source 'npu' (role actual), checked against the dtype and shape the call\n"
            "gives each; 'opscope-cli run OUT.h5' then judges them against the float64 golden, as it judges an\n"
            "msprobe dump's gradients (device fails / agree).",
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

// The case at --case of a case file or a trace, or its one case.
cases::Case caseToExport(const std::string& file, const ParsedArgs& a) {
    requireSafeFile(file, {"/"});
    const h5::File f = h5::File::openReadOnly(file);
    const bool trace = cases::isTraceFile(f);
    std::vector<std::string> paths;
    if (trace) {
        std::vector<std::string> why;
        for (const cases::Case& c : cases::casesFromTrace(file, &why)) paths.push_back(c.path);
    } else {
        paths = cases::findCases(f);
    }
    std::string path = a.has("--case") ? h5::normalizePath(a.value("--case")) : "";
    if (path.empty()) {
        if (paths.size() != 1)
            throw CliError("'" + file + "' holds " + std::to_string(paths.size()) +
                           " cases: name one with --case (opscope-cli info " + file + " lists them)");
        path = paths.front();
    } else if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
        throw CliError("'" + file + "' has no case at '" + path + "' (opscope-cli info " + file + " lists them)");
    }
    return trace ? cases::caseFromTrace(f, path) : cases::readCase(f, path);
}

}  // namespace

int runExportRepro(const ParsedArgs& a) {
    if (!a.has("-o")) throw CliError("'export repro' needs -o DIR (the folder to create)");
    const std::string& file = a.positionals[0];
    const cases::Case c = caseToExport(file, a);
    if (a.has("--product"))
        setProduct(parseProductOption(a.value("--product")));
    else if (c.product)
        setProduct(*c.product);
    ops::ReproExport r;
    try {
        r = ops::exportRepro(c, a.value("-o"), "case " + c.path + " of " + file);
    } catch (const StatusError& e) {
        throw CliError("nothing to reproduce: the emulated " + std::string(productName(currentProduct())) +
                       " rejects the call (" + e.what() + ")");
    }
    std::cout << "wrote " << a.value("-o") << "/: a reproducer of " << r.op << " on the "
              << productName(currentProduct()) << " (" << r.files.size() << " files)\n"
              << "on the NPU: cmake -S . -B build && cmake --build build && ./build/repro .  (README.md)\n"
              << "then: opscope-cli import repro " << a.value("-o") << " -o judged.h5 && opscope-cli run judged.h5\n";
    return kExitPass;
}

int runImportRepro(const ParsedArgs& a) {
    if (!a.has("-o")) throw CliError("'import repro' needs -o OUT.h5 (the case file to write)");
    const std::string& folder = a.positionals[0];
    const std::string out = a.value("-o");
    const std::string casePath = folder + "/" + ops::kReproCase;
    requireSafeFile(casePath, {"/"});
    checkOutputPath(out, {casePath}, "-o");
    cases::Case c;
    {
        const h5::File f = h5::File::openReadOnly(casePath);
        const std::vector<std::string> paths = cases::findCases(f);
        if (paths.size() != 1)
            throw CliError("'" + casePath + "' holds " + std::to_string(paths.size()) +
                           " cases; a reproducer's holds one (is this a folder 'export repro' wrote?)");
        c = cases::readCase(f, paths.front());
    }
    if (c.product) setProduct(*c.product);
    ops::attachReproOutputs(c, folder);
    cases::CaseFileWriter writer(out, {casePath});
    writer.setRootAttribute(cases::kProductAttribute, productId(currentProduct()));
    writer.add(c);
    writer.commit();
    std::cout << "imported " << c.sources.back().tensors.size() << " output(s) of " << folder << "/"
              << ops::kReproOutputs << " as the source npu of " << c.path << " into " << out
              << "\nnext: opscope-cli run " << out << "\n";
    return kExitPass;
}

}  // namespace opscope::cli
