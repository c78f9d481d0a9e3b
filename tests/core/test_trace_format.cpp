// Trace format version 2 (tables) from the outside and the inside: what the tables hold,
// that strings are stored once, that a live trace can be read by another process and is
// closed when idle, that damaged files give sentences, that version 1 files still read, and
// that parameters survive their text form exactly.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <thread>

#include "opscope/error.h"
#include "opscope/case_file.h"
#include "opscope/executor.h"
#include "opscope/h5/table.h"
#include "opscope/host_tensor.h"
#include "opscope/standard_steps.h"
#include "opscope/trace.h"
#include "scratch_dir.h"
#include "trace_tables.h"  // core/src/trace: the row layouts, for crafting damaged files

namespace opscope {
namespace {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
    return ::testing::TempDir() + "opscope_fmt_" + std::to_string(::getpid()) + "_" + name;
}

// in -> Cast -> "Toy.Double" -> out, with a float parameter that needs all 17 digits.
void runToyExecutor(double scale = 0.1) {
    HostTensor in = HostTensor::fromDoubles(DType::Float16, {2, 2}, {1, 2, 3, 4});
    HostTensor out{DType::Float32, {2, 2}};
    Executor e("ToyOp");
    e.addParam("scale", scale);
    e.addParam("dims", std::vector<int64_t>{-1, 3});
    e.addParam("name", std::string("a, [b]"));
    Plan& p = e.plan();
    const int sIn = p.addInput("x", in.view());
    const int sOut = p.addOutput("y", out.view());
    const int f = materializeInput(p, sIn, DType::Float32);
    p.addStep({"Toy.Double", "y = 2x", {f}, {sOut}, [=](const StepContext& c) {
                   for (int i = 0; i < 4; ++i) c.data<float>(sOut)[i] = 2 * c.data<float>(f)[i];
               }});
    std::vector<char> workspace(p.workspaceBytes());
    e.bindWorkspace(workspace.data(), workspace.size());
    e.runToEnd();
}

// Runs `body` in a child process forked now (before this process opens the trace, so the
// child shares no HDF5 state with it), once the parent writes to the pipe; returns its exit code.
class ChildReader {
public:
    // The exit code of a body that throws.
    static constexpr int kThrew = 99;

    template <class Body>
    explicit ChildReader(Body body) {
        if (pipe(fds_) != 0) throw std::runtime_error("pipe");
        pid_ = fork();
        if (pid_ == 0) {
            char go = 0;
            close(fds_[1]);
            if (read(fds_[0], &go, 1) != 1) _exit(100);
            try {
                _exit(body());
            } catch (...) {
                _exit(kThrew);
            }
        }
        close(fds_[0]);
    }
    int runAndWait() {
        const char go = 1;
        if (write(fds_[1], &go, 1) != 1) return -1;
        close(fds_[1]);
        int status = 0;
        waitpid(pid_, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

private:
    int fds_[2] = {-1, -1};
    pid_t pid_ = -1;
};

TEST(TraceFormat, TablesHoldOneRowPerRecord) {
    const std::string path = tempPath("tables.h5");
    auto trace = startTrace(path, TraceLevel::Full);
    runToyExecutor();
    runToyExecutor();
    stopTrace(trace);

    const h5::File f = h5::File::openReadOnly(path);
    EXPECT_EQ(f.readAttribute<int64_t>("/", "format_version"), 2);
    EXPECT_EQ(h5::Table::open(f, "/executors").size(), 2);
    EXPECT_EQ(h5::Table::open(f, "/params").size(), 6);   // 3 per executor
    EXPECT_EQ(h5::Table::open(f, "/steps").size(), 4);    // Cast, Toy.Double
    EXPECT_EQ(h5::Table::open(f, "/tensors").size(), 8);  // x, y, one per step
    std::vector<trace_v2::ExecutorRow> rows(2);
    h5::Table::open(f, "/executors").read(trace_v2::executorRowType(), 0, 2, rows.data());
    EXPECT_EQ(rows[1].firstStep, 2);
    EXPECT_EQ(rows[1].stepCount, 2);
    EXPECT_EQ(rows[1].firstTensor, 4);
    const std::vector<std::string> strings = h5::StringTable::open(f, "/strings").readAll();
    EXPECT_EQ(strings.at(0), "");
    EXPECT_EQ(strings.at(static_cast<std::size_t>(rows[0].op)), "ToyOp");
    EXPECT_TRUE(f.isDataset("/values/000001/inputs/x"));
    EXPECT_TRUE(f.isDataset("/values/000001/steps/001/y"));
    std::remove(path.c_str());
}

TEST(TraceFormat, RepeatedStringsAreStoredOnce) {
    const std::string path = tempPath("interned.h5");
    auto trace = startTrace(path, TraceLevel::Metadata, TraceWriteMode::Synchronous);
    runToyExecutor();
    const int64_t afterOne = h5::StringTable::open(h5::File::openReadOnly(path), "/strings").size();
    for (int i = 0; i < 20; ++i) runToyExecutor();
    stopTrace(trace);
    const h5::File f = h5::File::openReadOnly(path);
    EXPECT_EQ(h5::StringTable::open(f, "/strings").size(), afterOne);
    EXPECT_EQ(h5::Table::open(f, "/executors").size(), 21);
    std::remove(path.c_str());
}

TEST(TraceFormat, ReadsBackWhatWasRecorded) {
    const std::string path = tempPath("roundtrip.h5");
    auto trace = startTrace(path, TraceLevel::Full);
    runToyExecutor(0.1);
    runToyExecutor(1e-300);
    stopTrace(trace);
    const std::vector<ExecutorTrace> read = readTraceFile(path);
    ASSERT_EQ(read.size(), 2u);
    EXPECT_EQ(std::get<double>(read[0].params[0].value), 0.1);  // exactly, not to 6 digits
    EXPECT_EQ(std::get<double>(read[1].params[0].value), 1e-300);
    EXPECT_EQ(std::get<std::vector<int64_t>>(read[0].params[1].value), (std::vector<int64_t>{-1, 3}));
    EXPECT_EQ(std::get<std::string>(read[0].params[2].value), "a, [b]");
    ASSERT_EQ(read[0].inputs.size(), 1u);
    EXPECT_EQ(read[0].inputs[0].name, "x");
    EXPECT_EQ(read[0].inputs[0].valuesPath, "/values/000000/inputs/x");
    ASSERT_TRUE(read[0].outputs.at(0).values.has_value());
    EXPECT_EQ(read[0].outputs[0].values->getAsDouble(3), 8.0);
    ASSERT_EQ(read[0].steps.size(), 2u);
    EXPECT_EQ(read[0].steps[1].inputs, std::vector<std::string>{"x.float32"});
    EXPECT_EQ(read[0].steps[1].outputs, std::vector<std::string>{"y"});
    EXPECT_EQ(read[0].steps[1].outputTensors.at(0).stats->max, 8.0);

    const auto skipped = readTraceFile(path, TraceValues::Skip);
    EXPECT_FALSE(skipped[0].inputs[0].values.has_value());
    EXPECT_EQ(skipped[0].inputs[0].valuesPath, "/values/000000/inputs/x");
    const ExecutorTrace second = readTraceExecutor(h5::File::openReadOnly(path), 1);
    EXPECT_EQ(std::get<double>(second.params[0].value), 1e-300);
    EXPECT_THROW(readTraceExecutor(h5::File::openReadOnly(path), 2), FileError);

    const cases::Case c = cases::caseFromTrace(h5::File::openReadOnly(path), traceExecutorPath(1));
    EXPECT_EQ(c.path, "/executors/000001");
    EXPECT_EQ(c.inputs.size(), 1u);
    std::remove(path.c_str());
}

TEST(TraceFormat, ALiveTraceCanBeReadByAnotherProcess) {
    const std::string path = tempPath("live.h5");
    std::remove(path.c_str());
    ChildReader child([&] { return static_cast<int>(readTraceFile(path).size()); });
    auto trace = startTrace(path, TraceLevel::Stats, TraceWriteMode::Synchronous);
    for (int i = 0; i < 3; ++i) runToyExecutor();
    // The writer still has the file open (and locked); a reader takes no lock and sees every
    // executor written so far.
    EXPECT_EQ(child.runAndWait(), 3);
    stopTrace(trace);
    std::remove(path.c_str());
}

TEST(TraceFormat, BackgroundWriterClosesTheFileWhenIdle) {
    const std::string path = tempPath("idle.h5");
    std::remove(path.c_str());
    ChildReader child([&] {
        h5::File::openReadWrite(path).close();  // needs the writer's lock to be gone
        return 0;
    });
    auto trace = startTrace(path, TraceLevel::Metadata);
    runToyExecutor();
    runToyExecutor();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_EQ(child.runAndWait(), 0);
    runToyExecutor();  // the writer opens the file again
    stopTrace(trace);
    EXPECT_EQ(readTraceFile(path).size(), 3u);
    std::remove(path.c_str());
}

// A valid two-executor trace, then `damage` appends to it.
template <class Damage>
std::string damagedTrace(const std::string& name, Damage damage) {
    const std::string path = tempPath(name);
    auto trace = startTrace(path, TraceLevel::Stats, TraceWriteMode::Synchronous);
    runToyExecutor();
    runToyExecutor();
    stopTrace(trace);
    h5::File f = h5::File::openReadWrite(path);
    damage(f);
    f.close();
    return path;
}

std::string readError(const std::string& path) {
    try {
        readTraceFile(path);
    } catch (const FileError& e) {
        return e.what();
    }
    return "no error";
}

trace_v2::ExecutorRow firstExecutorRow(const h5::File& f) {
    trace_v2::ExecutorRow row{};
    h5::Table::open(f, "/executors").read(trace_v2::executorRowType(), 0, 1, &row);
    return row;
}

// damagedTrace whose damage is a third executor row: a copy of the first, changed by `edit`.
template <class Edit>
std::string traceWithCopiedExecutor(const std::string& name, Edit edit) {
    return damagedTrace(name, [&](h5::File& f) {
        trace_v2::ExecutorRow row = firstExecutorRow(f);
        edit(row);
        h5::Table::open(f, "/executors").append(trace_v2::executorRowType(), &row, 1);
    });
}

// The FileError of reading executor 2 alone.
std::string executor2Error(const std::string& path) {
    return test::errorOf<FileError>([&] { readTraceExecutor(h5::File::openReadOnly(path), 2); });
}

TEST(TraceFormat, DamagedFilesGiveSentences) {
    // Rows past the end of a table are what a kill leaves (TornTailIsIgnored); asked for by
    // itself, such an executor is damage.
    std::string path =
        traceWithCopiedExecutor("bad_range.h5", [](trace_v2::ExecutorRow& row) { row.firstStep = 1000; });
    const std::string rangeError = executor2Error(path);
    EXPECT_NE(rangeError.find("is damaged: executor 2 points at rows 1000 + 2 of table '/steps'"), std::string::npos)
        << rangeError;
    std::remove(path.c_str());

    path = traceWithCopiedExecutor("bad_string.h5", [](trace_v2::ExecutorRow& row) { row.product = 99999; });
    const std::string stringError = executor2Error(path);
    EXPECT_NE(stringError.find("/executors row 2 refers to string 99999, outside /strings"), std::string::npos)
        << stringError;
    EXPECT_EQ(readTraceFile(path).size(), 2u);  // past the end of /strings: a torn tail
    std::remove(path.c_str());

    path = damagedTrace("bad_rank.h5", [](h5::File& f) {
        h5::Table tensors = h5::Table::open(f, "/tensors");
        trace_v2::TensorRow t{};
        tensors.read(trace_v2::tensorRowType(), 0, 1, &t);
        t.executor = 2;
        t.rank = 9;
        trace_v2::ExecutorRow row = firstExecutorRow(f);
        row.firstParam = row.firstStep = 0;
        row.paramCount = row.stepCount = 0;
        row.firstTensor = tensors.size();
        row.tensorCount = 1;
        tensors.append(trace_v2::tensorRowType(), &t, 1);
        h5::Table::open(f, "/executors").append(trace_v2::executorRowType(), &row, 1);
    });
    EXPECT_NE(readError(path).find("has rank 9 (0 to 8 allowed)"), std::string::npos) << readError(path);
    std::remove(path.c_str());

    // Executor 2 claiming executor 0's rows.
    path = traceWithCopiedExecutor("bad_owner.h5", [](trace_v2::ExecutorRow&) {});
    EXPECT_NE(readError(path).find("belongs to executor 0, but executor 2 points at it"), std::string::npos)
        << readError(path);
    std::remove(path.c_str());

    path = damagedTrace("bad_version.h5", [](h5::File& f) { f.writeAttribute("/", "format_version", int64_t{3}); });
    EXPECT_NE(readError(path).find("format version 3; this build reads versions 1 and 2"), std::string::npos)
        << readError(path);
    std::remove(path.c_str());
}

// A kill while a batch is written leaves the tables' sizes on disk out of step: the trace is
// read up to its last complete executor, with a note, and nothing else is lost.
TEST(TraceFormat, TornTailIsIgnored) {
    // The executor row reached the disk, its tensor rows did not (the size of /tensors was not).
    std::string path = damagedTrace("torn_tensors.h5", [](h5::File& f) {
        const int64_t tensors = h5::Table::open(f, "/tensors").size();
        const hid_t d = H5Dopen2(f.id(), "/tensors", H5P_DEFAULT);
        const hsize_t shorter[1] = {static_cast<hsize_t>(tensors - 1)};
        ASSERT_GE(H5Dset_extent(d, shorter), 0);
        H5Dclose(d);
    });
    std::string torn;
    std::vector<ExecutorTrace> traces = readTraceFile(path, TraceValues::Load, &torn);
    EXPECT_EQ(traces.size(), 1u);
    EXPECT_NE(torn.find("ends in a torn tail (the recording was cut off): 1 incomplete executor was ignored, the 1 "
                        "complete one is read"),
              std::string::npos)
        << torn;
    EXPECT_EQ(readTraceFile(path).size(), 1u);
    std::vector<std::string> skipped;
    EXPECT_TRUE(cases::casesFromTrace(path, &skipped).empty());  // stats level: nothing to replay
    ASSERT_EQ(skipped.size(), 2u);  // the torn tail, then the complete executor without values
    EXPECT_NE(skipped[0].find("torn tail"), std::string::npos);
    std::remove(path.c_str());

    // Executor rows declared but never written (the size of /executors reached the disk).
    path = damagedTrace("torn_executors.h5", [](h5::File& f) {
        const hid_t d = H5Dopen2(f.id(), "/executors", H5P_DEFAULT);
        const hsize_t longer[1] = {5};
        ASSERT_GE(H5Dset_extent(d, longer), 0);
        H5Dclose(d);
    });
    torn.clear();
    traces = readTraceFile(path, TraceValues::Load, &torn);
    EXPECT_EQ(traces.size(), 2u);
    EXPECT_NE(torn.find("3 incomplete executors were ignored, the 2 complete ones are read"), std::string::npos)
        << torn;
    std::remove(path.c_str());

    // A complete trace has no note.
    path = damagedTrace("whole.h5", [](h5::File&) {});
    torn = "unset";
    EXPECT_EQ(readTraceFile(path, TraceValues::Load, &torn).size(), 2u);
    EXPECT_EQ(torn, "");
    std::remove(path.c_str());
}

fs::path sourceDir() { return fs::path(OPSCOPE_SOURCE_DIR) / "tests"; }

TEST(TraceFormat, Version1TracesStillRead) {
    // Recorded by OpScope before format version 2 (opscope-cli run ... --trace-level full):
    // a bfloat16 GroupNormBackward and a bfloat16 bicubic GridSampler2DBackward.
    const std::string path = (sourceDir() / "data" / "trace_v1.h5").string();
    const std::vector<ExecutorTrace> read = readTraceFile(path);
    ASSERT_EQ(read.size(), 2u);
    EXPECT_EQ(read[0].op, "aclnnGroupNormBackward");
    EXPECT_EQ(read[1].op, "aclnnGridSampler2DBackward");
    EXPECT_EQ(read[0].steps.size(), 7u);
    EXPECT_EQ(read[0].steps[3].name, "GroupNormGrad.ReduceAndInputGrad");
    ASSERT_EQ(read[0].inputs.size(), 5u);
    EXPECT_TRUE(read[0].inputs[0].values.has_value());
    EXPECT_EQ(paramToString(read[0].params[4].value), "[true, true, true]");
    std::vector<std::string> skipped;
    EXPECT_EQ(cases::casesFromTrace(path, &skipped).size(), 2u);
    EXPECT_TRUE(skipped.empty());
    EXPECT_EQ(readTraceExecutor(h5::File::openReadOnly(path), 1).op, "aclnnGridSampler2DBackward");
}

TEST(ParamText, RoundTripsEveryTypeExactly) {
    const std::vector<ParamValue> values = {true,
                                            false,
                                            int64_t{0},
                                            int64_t{-7},
                                            std::numeric_limits<int64_t>::max(),
                                            0.1,
                                            1e-300,
                                            -2.5,
                                            std::numeric_limits<double>::infinity(),
                                            1.0 / 3.0,
                                            std::string(""),
                                            std::string("x, [y]"),
                                            std::vector<int64_t>{},
                                            std::vector<int64_t>{1, -2, 3},
                                            std::vector<double>{0.1, 1e22},
                                            std::vector<bool>{true, false, true}};
    for (const ParamValue& v : values) {
        const std::string text = paramToString(v);
        EXPECT_EQ(paramFromString(paramTypeName(v), text), v) << paramTypeName(v) << " " << text;
    }
    EXPECT_EQ(paramToString(0.1), "0.1");                       // shortest form, not 0.10000000000000001
    EXPECT_EQ(paramToString(1.0 / 3.0), "0.3333333333333333");  // 16 digits suffice
    EXPECT_TRUE(std::isnan(std::get<double>(paramFromString("float", paramToString(std::nan(""))))));
    EXPECT_THROW(paramFromString("int", "1.5"), UsageError);
    EXPECT_THROW(paramFromString("bool[]", "[true, maybe]"), UsageError);
    EXPECT_THROW(paramFromString("complex", "1"), UsageError);
}

}  // namespace
}  // namespace opscope
