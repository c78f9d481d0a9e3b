// Reads traces back: format version 2 (tables, trace_tables.h) and, for files recorded by
// earlier builds, version 1 (trace_read_v1.cpp). Every index read from the file is checked,
// so a damaged trace is a sentence, never a crash.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>

#include "opscope/h5/file_safety.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/trace.h"
#include "trace_read_v1.h"
#include "trace_tables.h"

namespace opscope {
namespace {

using namespace trace_v2;

int64_t formatVersion(const h5::File& f) {
    if (!f.hasAttribute("/", "opscope_format") || f.readAttribute<std::string>("/", "opscope_format") != "trace")
        throw ContentError("'" + f.path() +
                           "' is an HDF5 file but not an OpScope trace (no opscope_format=\"trace\" on /)");
    if (!f.hasAttribute("/", "format_version")) return 1;  // the first traces did not all say
    const int64_t v = f.readAttribute<int64_t>("/", "format_version");
    if (v != 1 && v != kFormatVersion)
        throw ContentError("'" + f.path() + "' is an OpScope trace of format version " + std::to_string(v) +
                           "; this build reads versions 1 and 2");
    return v;
}

// A reference past the end of a table whose last rows a kill kept from the disk.
struct TornReference {
    int64_t id;  // negative: not a torn tail but damage
    std::string why;
};

// The tables of a version 2 file, with the checks every reference into them gets.
class TablesReader {
public:
    TablesReader(const h5::File& f, TraceValues values)
        : file_(f),
          values_(values),
          strings_(h5::StringTable::open(f, kStrings).readReadable()),
          executors_(h5::Table::open(f, kExecutors)),
          params_(h5::Table::open(f, kParams)),
          steps_(h5::Table::open(f, kSteps)),
          tensors_(h5::Table::open(f, kTensors)) {}

    std::size_t executorCount() const { return static_cast<std::size_t>(executors_.size()); }

    // Executors [first, first + n), reading each table's rows once for all of them. With
    // `tornTail`, a recording cut off by a kill is read up to its last complete executor and
    // *tornTail says what was ignored; without it, an incomplete executor is an error.
    std::vector<ExecutorTrace> read(std::size_t first, std::size_t n, std::string* tornTail = nullptr) const {
        const std::size_t declared = n;
        Batch batch = readBatch(first, n, tornTail);
        std::vector<ExecutorTrace> out;
        std::string why;  // what ended the complete executors, when the file says
        for (std::size_t i = 0; i < batch.n; ++i) {
            try {
                out.push_back(assemble(batch, i));
            } catch (const TornReference& past) {
                // Strings the kill kept from the disk: this executor and the rest are the torn tail.
                if (!tornTail || past.id < 0) damaged(past.why);
                why = past.why;
                batch.n = i;
                break;
            }
        }
        if (tornTail && batch.n < declared) *tornTail = tornTailText(first, declared, batch.n, why);
        return out;
    }

private:
    struct Span {
        int64_t first = 0;
        std::size_t count = 0;
    };

    // The rows of executors [first, first + n) and of the three tables they refer to.
    struct Batch {
        std::size_t first = 0, n = 0;
        std::vector<ExecutorRow> rows;
        Span p, s, t;
        std::vector<ParamRow> params;
        std::vector<StepRow> steps;
        std::vector<TensorRow> tensors;
    };

    Batch readBatch(std::size_t first, std::size_t n, std::string* tornTail) const {
        Batch b;
        b.first = first;
        b.rows.resize(n);
        n = readRows(executors_, executorRowType(), static_cast<int64_t>(first), n, b.rows.data(), tornTail);
        b.n = completePrefix(b.rows, n, first, tornTail);
        b.p = span(b.rows, b.n, &ExecutorRow::firstParam, &ExecutorRow::paramCount);
        b.s = span(b.rows, b.n, &ExecutorRow::firstStep, &ExecutorRow::stepCount);
        b.t = span(b.rows, b.n, &ExecutorRow::firstTensor, &ExecutorRow::tensorCount);
        b.params.resize(b.p.count);
        b.steps.resize(b.s.count);
        b.tensors.resize(b.t.count);
        // A table whose last rows cannot be read (a chunk the kill left unwritten) ends the
        // executors at the first one that needs them.
        const auto readable = [&](const h5::Table& table, const h5::RowType& type, const Span& sp, void* out,
                                  int64_t ExecutorRow::*firstField, int32_t ExecutorRow::*countField) {
            const std::size_t got = readRows(table, type, sp.first, sp.count, out, tornTail);
            for (std::size_t i = 0; i < b.n && got < sp.count; ++i)
                if (b.rows[i].*countField > 0 &&
                    b.rows[i].*firstField + b.rows[i].*countField > sp.first + int64_t(got))
                    b.n = i;
        };
        readable(params_, paramRowType(), b.p, b.params.data(), &ExecutorRow::firstParam, &ExecutorRow::paramCount);
        readable(steps_, stepRowType(), b.s, b.steps.data(), &ExecutorRow::firstStep, &ExecutorRow::stepCount);
        readable(tensors_, tensorRowType(), b.t, b.tensors.data(), &ExecutorRow::firstTensor,
                 &ExecutorRow::tensorCount);
        return b;
    }

    // Executor i of the batch with its parameters, steps and tensors.
    ExecutorTrace assemble(const Batch& b, std::size_t i) const {
        const ExecutorRow& x = b.rows[i];
        const int64_t e = static_cast<int64_t>(b.first + i);
        ExecutorTrace trace;
        trace.executorId = static_cast<uint64_t>(x.executorId);
        trace.op = str(x.op, kExecutors, e);
        trace.product = str(x.product, kExecutors, e);
        trace.threads = x.threads;
        trace.completed = x.completed != 0;
        trace.workspaceBytes = static_cast<uint64_t>(x.workspaceBytes);
        trace.startUs = x.startUs;
        trace.durationUs = x.durationUs;
        addParams(trace, b, x, e);
        const std::map<int32_t, std::size_t> stepByIndex = addSteps(trace, b, x, e);
        addTensors(trace, b, x, e, stepByIndex);
        return trace;
    }

    void addParams(ExecutorTrace& trace, const Batch& b, const ExecutorRow& x, int64_t e) const {
        for (int32_t k = 0; k < x.paramCount; ++k) {
            const int64_t r = x.firstParam + k;
            const ParamRow& row = b.params[static_cast<std::size_t>(r - b.p.first)];
            checkOwner(row.executor, e, kParams, r);
            const std::string type = str(row.type, kParams, r), text = str(row.value, kParams, r);
            try {
                trace.params.push_back({str(row.name, kParams, r), paramFromString(type, text)});
            } catch (const UsageError& ex) {
                damaged(std::string(kParams) + " row " + std::to_string(r) + ": " + ex.what());
            }
        }
    }

    // Returns where each recorded step index landed in trace.steps.
    std::map<int32_t, std::size_t> addSteps(ExecutorTrace& trace, const Batch& b, const ExecutorRow& x,
                                            int64_t e) const {
        std::map<int32_t, std::size_t> stepByIndex;
        for (int32_t k = 0; k < x.stepCount; ++k) {
            const int64_t r = x.firstStep + k;
            const StepRow& row = b.steps[static_cast<std::size_t>(r - b.s.first)];
            checkOwner(row.executor, e, kSteps, r);
            StepTrace step;
            step.index = static_cast<std::size_t>(std::max(row.index, 0));
            step.name = str(row.name, kSteps, r);
            step.detail = str(row.detail, kSteps, r);
            step.inputs = splitNames(str(row.inputs, kSteps, r));
            step.outputs = splitNames(str(row.outputs, kSteps, r));
            step.startUs = row.startUs;
            step.durationUs = row.durationUs;
            stepByIndex[row.index] = trace.steps.size();
            trace.steps.push_back(std::move(step));
        }
        return stepByIndex;
    }

    void addTensors(ExecutorTrace& trace, const Batch& b, const ExecutorRow& x, int64_t e,
                    const std::map<int32_t, std::size_t>& stepByIndex) const {
        for (int32_t k = 0; k < x.tensorCount; ++k) {
            const int64_t r = x.firstTensor + k;
            const TensorRow& row = b.tensors[static_cast<std::size_t>(r - b.t.first)];
            checkOwner(row.executor, e, kTensors, r);
            TensorRecord record = tensor(row, r);
            if (row.step < 0) {
                (record.kind == "output" ? trace.outputs : trace.inputs).push_back(std::move(record));
                continue;
            }
            const auto it = stepByIndex.find(row.step);
            if (it == stepByIndex.end())
                damaged(std::string(kTensors) + " row " + std::to_string(r) + " belongs to step " +
                        std::to_string(row.step) + ", which executor " + std::to_string(e) + " does not have");
            trace.steps[it->second].outputTensors.push_back(std::move(record));
        }
    }

    std::string tornTailText(std::size_t first, std::size_t declared, std::size_t n, const std::string& why) const {
        return "trace '" + file_.path() +
               "' ends in a torn tail (the recording was cut off): " + std::to_string(declared - n) +
               " incomplete executor" + (declared - n == 1 ? " was" : "s were") + " ignored, the " + std::to_string(n) +
               " complete one" + (n == 1 ? " is" : "s are") + " read" +
               (why.empty() ? "" : " (executor " + std::to_string(first + n) + ": " + why + ")");
    }

    [[noreturn]] void damaged(const std::string& why) const {
        throw ContentError("trace '" + file_.path() + "' is damaged: " + why);
    }

    // The rows a table's span of the first n executors covers (checked by completePrefix).
    template <class FirstField, class CountField>
    static Span span(const std::vector<ExecutorRow>& rows, std::size_t n, FirstField firstField,
                     CountField countField) {
        int64_t lo = std::numeric_limits<int64_t>::max(), hi = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const int64_t first = rows[i].*firstField, count = rows[i].*countField;
            if (count == 0) continue;
            lo = std::min(lo, first);
            hi = std::max(hi, first + count);
        }
        if (hi == 0) return {};
        return {lo, static_cast<std::size_t>(hi - lo)};
    }

    // Executors write their rows to the other tables first and their own row last, but a kill
    // can leave any table's size on disk behind. The first executor that points past the end
    // of a table, or was never written (no operator), ends the complete ones when a torn tail
    // is acceptable; otherwise it is damage.
    std::size_t completePrefix(const std::vector<ExecutorRow>& rows, std::size_t n, std::size_t firstExecutor,
                               const std::string* tornTail) const {
        for (std::size_t i = 0; i < n; ++i) {
            const ExecutorRow& x = rows[i];
            const int64_t e = static_cast<int64_t>(firstExecutor + i);
            std::string past;
            const auto check = [&](int64_t first, int64_t count, const h5::Table& table) {
                if (first < 0 || count < 0)
                    damaged("executor " + std::to_string(e) + " points at rows " + std::to_string(first) + " + " +
                            std::to_string(count) + " of " + table.where());
                if (past.empty() && (first > table.size() || count > table.size() - first))
                    past = "executor " + std::to_string(e) + " points at rows " + std::to_string(first) + " + " +
                           std::to_string(count) + " of " + table.where() + ", which has " +
                           std::to_string(table.size());
            };
            check(x.firstParam, x.paramCount, params_);
            check(x.firstStep, x.stepCount, steps_);
            check(x.firstTensor, x.tensorCount, tensors_);
            if (past.empty() && (x.op <= 0 || static_cast<std::size_t>(x.op) >= strings_.size()))
                past = "executor " + std::to_string(e) + " names no operator (string " + std::to_string(x.op) + ")";
            if (past.empty()) continue;
            if (!tornTail) damaged(past);
            return i;
        }
        return n;
    }

    // Reads rows [first, first + n); with a torn tail accepted, a read that fails is retried on
    // ever shorter prefixes (halving), and the number of rows read is returned.
    std::size_t readRows(const h5::Table& table, const h5::RowType& type, int64_t first, std::size_t n, void* out,
                         const std::string* tornTail) const {
        try {
            table.read(type, first, n, out);
            return n;
        } catch (const FileError&) {
            if (!tornTail) throw;
        }
        const std::size_t good = h5::readablePrefix(n, [&](std::size_t m) { table.read(type, first, m, out); });
        table.read(type, first, good, out);
        return good;
    }

    const std::string& str(StringId id, const char* table, int64_t row) const {
        if (id < 0 || static_cast<std::size_t>(id) >= strings_.size())
            throw TornReference{id, std::string(table) + " row " + std::to_string(row) + " refers to string " +
                                        std::to_string(id) + ", outside " + kStrings + " (" +
                                        std::to_string(strings_.size()) + " strings)"};
        return strings_[static_cast<std::size_t>(id)];
    }

    void checkOwner(int64_t owner, int64_t executor, const char* table, int64_t row) const {
        if (owner != executor)
            damaged(std::string(table) + " row " + std::to_string(row) + " belongs to executor " +
                    std::to_string(owner) + ", but executor " + std::to_string(executor) + " points at it");
    }

    static std::vector<std::string> splitNames(const std::string& joined) {
        std::vector<std::string> out;
        std::size_t start = 0;
        while (!joined.empty()) {
            const std::size_t comma = joined.find(',', start);
            out.push_back(joined.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return out;
    }

    TensorRecord tensor(const TensorRow& row, int64_t r) const {
        TensorRecord t;
        t.name = str(row.name, kTensors, r);
        t.kind = str(row.kind, kTensors, r);
        const std::string& dtype = str(row.dtype, kTensors, r);
        t.dtype = dtypeFromName(dtype);
        if (t.dtype == DType::Undefined && dtype != dtypeName(DType::Undefined))
            damaged(std::string(kTensors) + " row " + std::to_string(r) + " has dtype '" + dtype +
                    "', which OpScope does not know");
        if (row.rank < 0 || row.rank > kMaxRank)
            damaged(std::string(kTensors) + " row " + std::to_string(r) + " has rank " + std::to_string(row.rank) +
                    " (0 to 8 allowed)");
        t.shape.assign(row.shape, row.shape + row.rank);
        t.strides.assign(row.strides, row.strides + row.rank);
        t.contiguous = row.contiguous != 0;
        if (row.hasStats) {
            TensorStats s;
            s.count = row.count;
            s.nanCount = row.nanCount;
            s.infCount = row.infCount;
            s.finiteCount = s.count - s.nanCount - s.infCount;
            s.min = row.min;
            s.max = row.max;
            s.mean = row.mean;
            s.meanAbs = row.meanAbs;
            t.stats = s;
        }
        t.valuesPath = str(row.values, kTensors, r);
        if (!t.valuesPath.empty() && values_ == TraceValues::Load) {
            try {
                t.values = h5::readTensor(file_, t.valuesPath);
            } catch (const h5::ExternalDataError&) {
                throw;  // the file is whole; reading it is not allowed
            } catch (const FileError& e) {
                throw TornReference{0, e.what()};  // values a kill kept from the disk
            }
        }
        return t;
    }

    const h5::File& file_;
    TraceValues values_;
    std::vector<std::string> strings_;
    h5::Table executors_, params_, steps_, tensors_;
};

}  // namespace

std::string traceExecutorPath(std::size_t index) {
    char name[40];
    std::snprintf(name, sizeof name, "/executors/%06zu", index);
    return name;
}

bool parseTraceExecutorPath(const std::string& path, std::size_t* index) {
    static const std::string prefix = "/executors/";
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return false;
    const std::string digits = path.substr(prefix.size());
    if (digits.size() > 12 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    *index = static_cast<std::size_t>(std::stoull(digits));
    return true;
}

namespace {

std::vector<ExecutorTrace> readTables(const h5::File& file, TraceValues values, std::string* tornTail) {
    if (formatVersion(file) == 1) {
        std::vector<ExecutorTrace> out;
        for (const std::string& g : trace_v1::executorGroups(file))
            out.push_back(trace_v1::readExecutor(file, g, values));
        return out;
    }
    const TablesReader tables(file, values);
    std::string torn;
    std::vector<ExecutorTrace> out = tables.read(0, tables.executorCount(), &torn);
    if (tornTail) *tornTail = torn;
    return out;
}

ExecutorTrace readOneExecutor(const h5::File& file, std::size_t index) {
    if (formatVersion(file) == 1) {
        const std::vector<std::string> groups = trace_v1::executorGroups(file);
        if (index >= groups.size())
            throw ContentError("trace '" + file.path() + "' has " + std::to_string(groups.size()) +
                               " executors; there is no executor " + std::to_string(index));
        return trace_v1::readExecutor(file, groups[index], TraceValues::Load);
    }
    const TablesReader tables(file, TraceValues::Load);
    if (index >= tables.executorCount())
        throw ContentError("trace '" + file.path() + "' has " + std::to_string(tables.executorCount()) +
                           " executors; there is no executor " + std::to_string(index));
    return std::move(tables.read(index, 1).front());
}

}  // namespace

std::vector<ExecutorTrace> readTrace(const h5::File& file, TraceValues values, std::string* tornTail) {
    return h5::readingFile(file.path(), [&] { return readTables(file, values, tornTail); });
}

ExecutorTrace readTraceExecutor(const h5::File& file, std::size_t index) {
    return h5::readingFile(file.path(), [&] { return readOneExecutor(file, index); });
}

std::vector<ExecutorTrace> readTraceFile(const std::string& path, TraceValues values, std::string* tornTail) {
    return readTrace(h5::File::openReadOnly(path), values, tornTail);
}

}  // namespace opscope
