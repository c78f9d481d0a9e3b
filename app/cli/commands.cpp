// The command table: the order is the order of 'opscope-cli --help'.
#include "commands.h"

namespace opscope::cli {
namespace {

// Commands that open HDF5 files accept --allow-external (parseArgs applies it).
CommandSpec readsFiles(CommandSpec spec) {
    spec.options.push_back({kAllowExternalOption, "", false,
                            "let files read other files (external storage, virtual datasets, external links); "
                            "only for files you trust"});
    return spec;
}

}  // namespace

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {readsFiles(infoSpec()), runInfo},
        {readsFiles(runSpec()), runRun},
        {readsFiles(compareSpec()), runCompare},
        {readsFiles(traceShowSpec()), runTraceShow},
        {readsFiles(traceExportSpec()), runTraceExport},
        {importMsprobeSpec(), runImportMsprobe},
        {reportMergeSpec(), runReportMerge},
        {standardsSpec(), runStandards},
        {operatorsSpec(), runOperators},
    };
    return list;
}

}  // namespace opscope::cli
