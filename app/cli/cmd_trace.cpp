// opscope-cli trace show / trace export: a trace's executors and steps, and Chrome JSON.
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "opscope/json_writer.h"
#include "opscope/trace.h"
#include "table.h"

namespace opscope::cli {

CommandSpec traceShowSpec() {
    return {"trace show",
            "trace show TRACE.h5 [--executor N] [--json]",
            "print a trace's executors, parameters, tensors and steps with timings and statistics",
            "",
            {{"--executor", "N", false, "only the executor with this index (0-based)"}, kJsonOption},
            /*minPositionals=*/1,
            /*maxPositionals=*/1,
            "  OPSCOPE_TRACE=t.h5 ./my_program && opscope-cli trace show t.h5\n"};
}

int runTraceShow(const ParsedArgs& a);  // below

Command traceShowCommand() { return {traceShowSpec(), runTraceShow}; }

CommandSpec traceExportSpec() {
    return {"trace export",
            "trace export TRACE.h5 --chrome OUT.json",
            "write a trace as Chrome trace-event JSON (Perfetto, chrome://tracing)",
            "",
            {{"--chrome", "OUT.json", false, "destination (written atomically; never the trace itself)"}},
            /*minPositionals=*/1,
            /*maxPositionals=*/1,
            "  opscope-cli trace export t.h5 --chrome t.json\n"};
}

int runTraceExport(const ParsedArgs& a);  // below

Command traceExportCommand() { return {traceExportSpec(), runTraceExport}; }

namespace {

std::vector<ExecutorTrace> loadTrace(const std::string& path) {
    requireSafeFile(path, {"/"});
    std::string tornTail;
    std::vector<ExecutorTrace> traces = readTraceFile(path, TraceValues::Load, &tornTail);  // FileError: exit 2
    if (!tornTail.empty()) std::cerr << "opscope-cli: warning: " << tornTail << "\n";
    return traces;
}

std::string statsText(const TensorRecord& t) {
    std::string s = tensorText(t.dtype, t.shape);
    if (!t.contiguous) s += " strided";
    if (t.stats)
        s += "  min " + formatNumber(t.stats->min) + " max " + formatNumber(t.stats->max) + " mean " +
             formatNumber(t.stats->mean) + (t.stats->nanCount ? " nan " + std::to_string(t.stats->nanCount) : "") +
             (t.stats->infCount ? " inf " + std::to_string(t.stats->infCount) : "");
    return s;
}

void writeRecordJson(JsonWriter& w, const TensorRecord& t) {
    w.beginObject().field("name", t.name).field("kind", t.kind).field("dtype", dtypeName(t.dtype));
    w.field("shape", t.shape).field("contiguous", t.contiguous).field("has_values", t.values.has_value());
    if (t.stats) {
        w.key("stats").beginObject().field("min", t.stats->min).field("max", t.stats->max);
        w.field("mean", t.stats->mean).field("mean_abs", t.stats->meanAbs).field("nan", t.stats->nanCount);
        w.field("inf", t.stats->infCount).endObject();
    }
    w.endObject();
}

}  // namespace

int runTraceShow(const ParsedArgs& a) {
    const std::vector<ExecutorTrace> traces = loadTrace(a.positionals[0]);
    long only = -1;
    if (a.has("--executor")) {
        const std::optional<long> index =
            parseWholeNumber(a.value("--executor"), 0, static_cast<long>(traces.size()) - 1);
        if (!index)
            throw CliError("--executor must be an index from 0 to " + std::to_string(traces.size()) +
                           " (exclusive), got '" + a.value("--executor") + "'");
        only = *index;
    }
    if (a.has("--json")) {
        JsonWriter w(std::cout);
        w.beginObject().field("trace", a.positionals[0]).key("executors").beginArray();
        for (std::size_t i = 0; i < traces.size(); ++i) {
            if (only >= 0 && static_cast<long>(i) != only) continue;
            const ExecutorTrace& t = traces[i];
            w.beginObject().field("index", static_cast<int64_t>(i)).field("op", t.op).field("product", t.product);
            w.field("threads", t.threads).field("workspace_bytes", t.workspaceBytes).field("start_us", t.startUs);
            w.field("duration_us", t.durationUs).field("completed", t.completed);
            w.key("params").beginObject();
            for (const Param& p : t.params) w.field(p.name, paramToString(p.value));
            w.endObject();
            w.key("inputs").beginArray();
            for (const TensorRecord& r : t.inputs) writeRecordJson(w, r);
            w.endArray().key("outputs").beginArray();
            for (const TensorRecord& r : t.outputs) writeRecordJson(w, r);
            w.endArray().key("steps").beginArray();
            for (const StepTrace& s : t.steps) {
                w.beginObject()
                    .field("index", static_cast<int64_t>(s.index))
                    .field("name", s.name)
                    .field("detail", s.detail);
                w.field("inputs", s.inputs).field("outputs", s.outputs).field("start_us", s.startUs);
                w.field("duration_us", s.durationUs).key("tensors").beginArray();
                for (const TensorRecord& r : s.outputTensors) writeRecordJson(w, r);
                w.endArray().endObject();
            }
            w.endArray().endObject();
        }
        w.endArray().endObject();
        w.finish();
        return kExitPass;
    }
    std::cout << a.positionals[0] << ": " << traces.size() << " executor" << (traces.size() == 1 ? "" : "s") << "\n";
    for (std::size_t i = 0; i < traces.size(); ++i) {
        if (only >= 0 && static_cast<long>(i) != only) continue;
        const ExecutorTrace& t = traces[i];
        std::cout << "\n#" << i << " " << t.op << "  product " << t.product << ", " << t.threads << " thread"
                  << (t.threads == 1 ? "" : "s") << ", workspace " << formatBytes(t.workspaceBytes) << ", "
                  << formatNumber(t.durationUs / 1000.0) << " ms" << (t.completed ? "" : ", did not complete") << "\n";
        std::string params;
        for (const Param& p : t.params) params += (params.empty() ? "" : " ") + p.name + "=" + paramToString(p.value);
        std::cout << "  params  " << params << "\n";
        for (const TensorRecord& r : t.inputs) std::cout << "  input   " << r.name << " " << statsText(r) << "\n";
        for (const TensorRecord& r : t.outputs) std::cout << "  output  " << r.name << " " << statsText(r) << "\n";
        Table steps;
        steps.addColumn("  step");
        steps.addColumn("name");
        steps.addColumn("us", Table::Align::Right);
        steps.addColumn("writes");
        for (const StepTrace& s : t.steps) {
            std::string writes;
            for (const TensorRecord& r : s.outputTensors)
                writes += (writes.empty() ? "" : "; ") + r.name + " " + statsText(r);
            if (writes.empty())
                for (const std::string& o : s.outputs) writes += (writes.empty() ? "" : ", ") + o;
            steps.addRow({"  " + std::to_string(s.index), s.name, formatNumber(s.durationUs, 4), writes});
        }
        if (!steps.empty()) steps.print(std::cout);
    }
    return kExitPass;
}

int runTraceExport(const ParsedArgs& a) {
    if (!a.has("--chrome")) throw CliError("'trace export' needs --chrome OUT.json (the only export format)");
    const std::string trace = a.positionals[0];
    const std::string out = a.value("--chrome");
    checkOutputPath(out, {trace}, "--chrome");
    const std::vector<ExecutorTrace> traces = loadTrace(trace);
    try {
        exportChromeTrace(traces, out);
    } catch (const std::exception& e) {
        throw CliError("cannot write '" + out + "': " + e.what());
    }
    std::size_t steps = 0;
    for (const ExecutorTrace& t : traces) steps += t.steps.size();
    std::cout << "wrote " << out << ": " << traces.size() << " executor" << (traces.size() == 1 ? "" : "s") << ", "
              << steps << " step" << (steps == 1 ? "" : "s") << "\n";
    return kExitPass;
}

}  // namespace opscope::cli
