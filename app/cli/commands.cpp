// The command table: the order is the order of 'opscope-cli --help'.
#include "commands.h"

namespace opscope::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {infoSpec(), runInfo},
        {runSpec(), runRun},
        {compareSpec(), runCompare},
        {traceShowSpec(), runTraceShow},
        {traceExportSpec(), runTraceExport},
        {importMsprobeSpec(), runImportMsprobe},
        {reportMergeSpec(), runReportMerge},
        {standardsSpec(), runStandards},
        {operatorsSpec(), runOperators},
    };
    return list;
}

}  // namespace opscope::cli
