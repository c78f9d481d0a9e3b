// opscope-cli: the headless face of OpScope. Runs case files and traces through the operators,
// judges the outputs by the Ascend accuracy standards, compares tensors, and shows traces.
// Exit codes: 0 all passed, 1 something failed its standard, 2 usage or input error.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "opscope/h5/h5_handle.h"
#include "opscope/process_memory.h"

namespace opscope::cli {
namespace {

std::string topHelp() {
    std::string s =
        "usage: opscope-cli COMMAND [options]\n\n"
        "Runs aclnn operator cases on the CPU emulation and judges their outputs by the Ascend\n"
        "accuracy standards (CANN single-benchmark, msprobe double-thousandth and per-dtype rules).\n\n"
        "commands:\n";
    for (const Command& c : commands()) {
        const std::string name = c.spec.name;
        s += "  " + name + std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') + c.spec.summary + "\n";
    }
    s += "\nRun 'opscope-cli COMMAND --help' for a command's options. Formats: datasets/FORMAT.md;\n"
         "guide with examples: docs/CLI.md.\n\n"
         "exit codes: 0 all passed, 1 something failed its standard, 2 usage or input error\n";
    return s;
}

int dispatch(std::vector<std::string> args) {
    if (args.empty()) {
        std::cerr << topHelp();
        return kExitError;
    }
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        if (args.size() > 1) {
            args.erase(args.begin());
            args.push_back("--help");
            return dispatch(args);
        }
        std::cout << topHelp();
        return kExitPass;
    }
    // Two-word commands ("trace show") first.
    for (const Command& c : commands()) {
        const std::string& name = c.spec.name;
        const std::size_t space = name.find(' ');
        std::size_t used = 0;
        if (space == std::string::npos && args[0] == name)
            used = 1;
        else if (space != std::string::npos && args.size() >= 2 && args[0] == name.substr(0, space) &&
                 args[1] == name.substr(space + 1))
            used = 2;
        if (used == 0) continue;
        const std::vector<std::string> rest(args.begin() + static_cast<long>(used), args.end());
        const ParsedArgs parsed = parseArgs(c.spec, rest);
        if (parsed.has("--help")) {
            std::cout << helpText(c.spec);
            return kExitPass;
        }
        return c.run(parsed);
    }
    if (args[0] == "trace") {
        if (args.size() == 1 || args[1] == "--help" || args[1] == "-h") {
            std::cout << "usage: opscope-cli trace show TRACE.h5 | trace export TRACE.h5 --chrome OUT.json\n\n"
                      << helpText(traceShowCommand().spec) << "\n"
                      << helpText(traceExportCommand().spec);
            return args.size() == 1 ? kExitError : kExitPass;
        }
        throw CliError("unknown trace command '" + args[1] + "': use 'trace show' or 'trace export'");
    }
    std::string names;
    for (const Command& c : commands()) names += (names.empty() ? "" : ", ") + c.spec.name;
    throw CliError("unknown command '" + args[0] +
                   (args.size() > 1 && names.find(args[0] + " ") != std::string::npos ? " " + args[1] : std::string()) +
                   "' (commands: " + names + "; see opscope-cli --help)");
}

}  // namespace
}  // namespace opscope::cli

int main(int argc, char** argv) {
    using namespace opscope::cli;
    opscope::returnLargeBlocksToTheSystem();
    try {
        return dispatch(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const opscope::Error& e) {  // usage, a file's content or I/O, a status: docs/CLI.md says exit 2
        std::cerr << "opscope-cli: " << e.what() << "\n";
        return kExitError;
    } catch (const std::exception& e) {
        std::cerr << "opscope-cli: internal error: " << e.what() << "\n";
        return kExitError;
    }
}
