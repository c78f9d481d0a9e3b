// Executors step by step, observers, the NaN/Inf watch, and HDF5 traces (write, read back,
// crash safety, Chrome export), on a toy plan so no operator is involved.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "opscope/error.h"
#include "opscope/executor.h"
#include "opscope/h5/h5_file.h"
#include "opscope/standard_steps.h"
#include "opscope/trace.h"

namespace opscope {
namespace {

// in (float16, strided) -> Contiguous/Cast -> "Toy.Square" -> "Toy.Log" -> out (float32)
struct ToyExecutor {
    HostTensor in = HostTensor::fromDoubles(DType::Float16, {2, 3}, {1, -2, 3, 0, 5, 6});
    HostTensor out{DType::Float32, {3, 2}};
    std::unique_ptr<Executor> e = std::make_unique<Executor>("ToyOp");
    std::vector<char> workspace;

    ToyExecutor() {
        TensorView inT = in.view();
        inT.shape = {3, 2};
        inT.strides = {1, 3};
        Plan& p = e->plan();
        e->addParam("alpha", int64_t{2});
        e->addParam("mask", std::vector<bool>{true, false});
        const int sIn = p.addInput("x", inT);
        const int sOut = p.addOutput("y", out.view());
        const int f = materializeInput(p, sIn, DType::Float32);
        const int sq = p.addScratch("squared", DType::Float32, {3, 2});
        p.addStep({"Toy.Square", "x*x - 1", {f}, {sq}, [=](const StepContext& c) {
                       for (int i = 0; i < 6; ++i) c.data<float>(sq)[i] = c.data<float>(f)[i] * c.data<float>(f)[i] - 1;
                   }});
        p.addStep({"Toy.Log", "log", {sq}, {sOut}, [=](const StepContext& c) {
                       for (int i = 0; i < 6; ++i) c.data<float>(sOut)[i] = std::log(c.data<float>(sq)[i]);
                   }});
        workspace.resize(p.workspaceBytes());
        e->bindWorkspace(workspace.data(), workspace.size());
    }
};

struct CountingObserver : ExecutorObserver {
    int begins = 0, steps = 0, ends = 0, completedEnds = 0;
    std::vector<std::string> names;
    void onRunBegin(const Executor&) override { ++begins; }
    void onStepEnd(const Executor& e, const StepRecord& r) override {
        ++steps;
        names.push_back(e.plan().steps()[r.index].name);
    }
    void onRunEnd(const Executor&, bool completed) override {
        ++ends;
        completedEnds += completed;
    }
};

TEST(Executor, PlanHasNamedStepsAndRealWorkspace) {
    ToyExecutor t;
    const auto& steps = t.e->plan().steps();
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_EQ(steps[0].name, "Contiguous");
    EXPECT_EQ(steps[1].name, "Cast");
    EXPECT_EQ(steps[2].name, "Toy.Square");
    // float16 copy (12 B) + float32 cast (24 B) + squared (24 B), each 64-byte aligned.
    EXPECT_EQ(t.e->plan().workspaceBytes(), 64u + 64u + 24u);
    std::vector<char> small(10);
    EXPECT_THROW(t.e->bindWorkspace(small.data(), small.size()), StatusError);
    EXPECT_THROW(t.e->bindWorkspace(nullptr, 1000), StatusError);
}

TEST(Executor, StepsOneAtATimeWithObserver) {
    ToyExecutor t;
    CountingObserver obs;
    t.e->addObserver(&obs);
    EXPECT_EQ(t.e->nextStep(), 0u);
    t.e->runNext();
    EXPECT_EQ(obs.begins, 1);
    EXPECT_EQ(t.e->nextStep(), 1u);
    EXPECT_EQ(t.e->runUntil(3), StopReason::Breakpoint);
    EXPECT_EQ(t.e->nextStep(), 3u);
    const TensorView sq = t.e->slotView(t.e->plan().findSlot("squared"));
    EXPECT_FLOAT_EQ(static_cast<const float*>(sq.first())[2], 3.0f);  // x^T[1,0] = x[0,1] = -2 -> 4 - 1
    EXPECT_EQ(t.e->runToEnd(), StopReason::End);
    EXPECT_EQ(obs.steps, 4);
    EXPECT_EQ(obs.completedEnds, 1);
    EXPECT_EQ(t.e->completedRuns(), 1);
    EXPECT_EQ(obs.names, (std::vector<std::string>{"Contiguous", "Cast", "Toy.Square", "Toy.Log"}));
    t.e->reset();
    t.e->runNext();
    t.e->reset();  // abandoning a run mid-way is reported as incomplete
    EXPECT_EQ(obs.ends, 2);
    EXPECT_EQ(obs.completedEnds, 1);
    t.e->removeObserver(&obs);
}

TEST(Executor, WatchStopsAtFirstStepProducingNaNOrInf) {
    ToyExecutor t;  // x = 0 -> squared - 1 = -1 -> log(-1) = NaN; x = 1 -> log(0) = -inf
    EXPECT_EQ(t.e->runToEnd(/*stopOnNonFinite=*/true), StopReason::NonFinite);
    EXPECT_EQ(t.e->nextStep(), 4u);
    EXPECT_TRUE(t.e->stepOutputsNonFinite(3));
    EXPECT_FALSE(t.e->stepOutputsNonFinite(2));
}

std::string tempPath(const std::string& name) {
    return ::testing::TempDir() + "opscope_" + std::to_string(::getpid()) + "_" + name;
}

TEST(Trace, RecordsEveryStepWithStatisticsAndValues) {
    const std::string path = tempPath("trace_full.h5");
    auto trace = startTrace(path, TraceLevel::Full);
    {
        ToyExecutor a;
        a.e->runToEnd();
        ToyExecutor b;
        b.e->runToEnd();
    }
    stopTrace(trace);
    EXPECT_EQ(trace->executorsWritten(), 2u);
    const std::vector<ExecutorTrace> read = readTraceFile(path);
    ASSERT_EQ(read.size(), 2u);
    const ExecutorTrace& t = read[0];
    EXPECT_EQ(t.op, "ToyOp");
    EXPECT_EQ(t.product, "a2");
    EXPECT_TRUE(t.completed);
    ASSERT_EQ(t.params.size(), 2u);
    EXPECT_EQ(paramToString(t.params[1].value), "[true, false]");
    ASSERT_EQ(t.steps.size(), 4u);
    EXPECT_EQ(t.steps[2].name, "Toy.Square");
    EXPECT_EQ(t.steps[2].inputs, std::vector<std::string>{"x.float32"});
    ASSERT_EQ(t.steps[3].outputTensors.size(), 1u);
    const TensorRecord& y = t.steps[3].outputTensors[0];
    ASSERT_TRUE(y.stats.has_value());
    EXPECT_EQ(y.stats->nanCount, 1);  // log(-1)
    EXPECT_EQ(y.stats->infCount, 1);  // log(0)
    ASSERT_TRUE(y.values.has_value());
    EXPECT_EQ(y.values->shape(), (std::vector<int64_t>{3, 2}));
    EXPECT_FLOAT_EQ(static_cast<float>(y.values->getAsDouble(2)), std::log(3.0f));
    ASSERT_EQ(t.inputs.size(), 1u);
    EXPECT_FALSE(t.inputs[0].contiguous);
    EXPECT_GE(t.steps[1].startUs, t.steps[0].startUs);
    std::remove(path.c_str());
}

TEST(Trace, MetadataLevelHasNoStatisticsOrValues) {
    const std::string path = tempPath("trace_meta.h5");
    auto trace = startTrace(path, TraceLevel::Metadata);
    ToyExecutor a;
    a.e->runToEnd();
    stopTrace(trace);
    const auto read = readTraceFile(path);
    ASSERT_EQ(read.size(), 1u);
    EXPECT_TRUE(read[0].steps[0].outputTensors.empty());
    EXPECT_FALSE(read[0].inputs[0].stats.has_value());
    EXPECT_FALSE(read[0].inputs[0].values.has_value());
    std::remove(path.c_str());
}

// Runs `body` in a forked child, which ends by crashing or exiting; returns the child's wait
// status, or nothing when there is no child.
template <class Body>
std::optional<int> childStatus(Body body) {
    const pid_t child = fork();
    if (child < 0) return std::nullopt;
    if (child == 0) {
        body();
        std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return status;
}

// Runs `complete` toy executors to the end.
void runToyExecutors(int complete) {
    for (int i = 0; i < complete; ++i) {
        ToyExecutor t;
        t.e->runToEnd();
    }
}

TEST(Trace, CrashLeavesEveryCompletedExecutorReadable) {
    const std::string path = tempPath("trace_crash.h5");
    const std::optional<int> status = childStatus([&] {
        auto trace = startTrace(path, TraceLevel::Stats, TraceWriteMode::Synchronous);
        runToyExecutors(2);
        ToyExecutor t;
        t.e->runNext();
        std::abort();  // dies in the middle of the third executor
    });
    ASSERT_TRUE(status && WIFSIGNALED(*status));
    const auto read = readTraceFile(path);
    EXPECT_EQ(read.size(), 2u);
    std::remove(path.c_str());
}

TEST(Trace, CrashWithBackgroundWriterStillKeepsCompletedExecutors) {
    const std::string path = tempPath("trace_crash_bg.h5");
    const std::optional<int> status = childStatus([&] {
        startTrace(path, TraceLevel::Full);  // background writer
        runToyExecutors(3);
        ToyExecutor t;
        t.e->runNext();
        std::abort();  // the crash handler lets the writer finish the three queued executors
    });
    ASSERT_TRUE(status && WIFSIGNALED(*status));
    EXPECT_EQ(WTERMSIG(*status), SIGABRT);
    EXPECT_EQ(readTraceFile(path).size(), 3u);
    std::remove(path.c_str());
}

TEST(Trace, BackgroundWriterDrainsAtExit) {
    const std::string path = tempPath("trace_exit.h5");
    const std::optional<int> status = childStatus([&] {
        startTrace(path, TraceLevel::Full);  // background; never stopped: exit must drain it
        runToyExecutors(5);
        std::exit(0);
    });
    ASSERT_TRUE(status && WIFEXITED(*status));
    EXPECT_EQ(readTraceFile(path).size(), 5u);
    std::remove(path.c_str());
}

TEST(Trace, NotATraceGivesASentence) {
    const std::string path = tempPath("not_trace.h5");
    { h5::File::create(path).close(); }
    try {
        readTraceFile(path);
        FAIL() << "expected an error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("not an OpScope trace"), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
}

TEST(Trace, ChromeExportIsTraceEventJson) {
    const std::string path = tempPath("trace_chrome.h5"), json = tempPath("trace.json");
    auto trace = startTrace(path, TraceLevel::Stats);
    ToyExecutor a;
    a.e->runToEnd();
    stopTrace(trace);
    exportChromeTrace(readTraceFile(path), json);
    std::ifstream f(json);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    EXPECT_EQ(text.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0), 0u);
    EXPECT_NE(text.find("\"name\": \"ToyOp\", \"cat\": \"executor\", \"ph\": \"X\""), std::string::npos);
    EXPECT_NE(text.find("\"name\": \"Toy.Log\""), std::string::npos);
    std::size_t events = 0;
    for (std::size_t p = text.find("\"ph\": \"X\""); p != std::string::npos; p = text.find("\"ph\": \"X\"", p + 1))
        ++events;
    EXPECT_EQ(events, 5u);
    std::remove(path.c_str());
    std::remove(json.c_str());
}

}  // namespace
}  // namespace opscope
