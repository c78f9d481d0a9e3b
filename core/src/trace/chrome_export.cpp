// Chrome trace-event JSON ("X" complete events, microseconds), which Perfetto and
// chrome://tracing load. Executors and their steps nest on one track per executor thread.
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "opscope/error.h"
#include "opscope/h5/atomic_write.h"
#include "opscope/json_writer.h"
#include "opscope/trace.h"

namespace opscope {
namespace {

// Strings are quoted as every other JSON OpScope writes.
std::string jsonString(const std::string& s) { return JsonWriter::quote(s); }

std::string jsonNumber(double v) {
    if (!std::isfinite(v)) return "null";
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
}

void writeEvent(std::ostream& os, bool& first, const std::string& name, const char* cat, double ts, double dur,
                const std::string& args) {
    os << (first ? "\n" : ",\n") << "  {\"name\": " << jsonString(name) << ", \"cat\": \"" << cat
       << "\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": " << jsonNumber(ts) << ", \"dur\": " << jsonNumber(dur)
       << ", \"args\": {" << args << "}}";
    first = false;
}

std::string statsArgs(const std::vector<TensorRecord>& tensors) {
    std::ostringstream os;
    bool first = true;
    for (const TensorRecord& t : tensors) {
        os << (first ? "" : ", ") << jsonString(t.name) << ": ";
        first = false;
        std::ostringstream v;
        v << dtypeName(t.dtype) << shapeToString(t.shape);
        if (t.stats)
            v << " min " << t.stats->min << " max " << t.stats->max << " mean " << t.stats->mean << " nan "
              << t.stats->nanCount << " inf " << t.stats->infCount;
        os << jsonString(v.str());
    }
    return os.str();
}

}  // namespace

void exportChromeTrace(const std::vector<ExecutorTrace>& traces, const std::string& jsonPath) {
    std::ostringstream os;
    os << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
    bool first = true;
    for (const ExecutorTrace& t : traces) {
        std::ostringstream args;
        args << "\"product\": " << jsonString(t.product) << ", \"threads\": " << t.threads
             << ", \"workspace_bytes\": " << t.workspaceBytes;
        for (const Param& p : t.params)
            args << ", " << jsonString(p.name) << ": " << jsonString(paramToString(p.value));
        writeEvent(os, first, t.op, "executor", t.startUs, t.durationUs, args.str());
        for (const StepTrace& s : t.steps) {
            std::string a = "\"index\": " + std::to_string(s.index) + ", \"detail\": " + jsonString(s.detail);
            const std::string st = statsArgs(s.outputTensors);
            if (!st.empty()) a += ", " + st;
            writeEvent(os, first, s.name, "step", s.startUs, s.durationUs, a);
        }
    }
    os << "\n]}\n";
    h5::AtomicFileWriter out(jsonPath);
    {
        std::ofstream f(out.tempPath(), std::ios::binary);
        f << os.str();
        if (!f) throw IoError("cannot write '" + jsonPath + "'");
    }
    out.commit();
}

}  // namespace opscope
