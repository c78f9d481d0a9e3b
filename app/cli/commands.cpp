// The command table: the order is the order of 'opscope-cli --help'.
#include "commands.h"

namespace opscope::cli {
namespace {

// Commands that open HDF5 files accept --allow-external (parseArgs applies it).
Command readsFiles(Command command) {
    command.spec.options.push_back({kAllowExternalOption, "", false,
                                    "let files read other files (external storage, virtual datasets, external "
                                    "links); only for files you trust"});
    return command;
}

}  // namespace

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        readsFiles(infoCommand()),
        readsFiles(runCommand()),
        readsFiles(compareCommand()),
        readsFiles(traceShowCommand()),
        readsFiles(traceExportCommand()),
        importMsprobeCommand(),
        readsFiles(exportReproCommand()),
        readsFiles(importReproCommand()),
        reportMergeCommand(),
        standardsCommand(),
        operatorsCommand(),
    };
    return list;
}

}  // namespace opscope::cli
