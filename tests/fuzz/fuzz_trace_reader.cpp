// libFuzzer target: the trace reader (readTrace with and without values, casesFromTrace) and
// the vetting walk over format-2 traces built from the input. libhdf5 writes the file, so it is
// well-formed HDF5; the input decides what our reader must check: the interned strings, every
// field of every row of /executors, /params, /steps and /tensors (row spans, string ids,
// ranks, shapes, dtypes, parameter types and values), the value datasets of level full, and
// the root attributes. (Raw HDF5 bytes: fuzz_h5_raw, see tests/fuzz/README.md.)
#include <hdf5.h>

#include <limits>

#include "fuzz_support.h"
#include "opscope/case_file.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/table.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"
#include "opscope/trace.h"
#include "trace_tables.h"

namespace opscope::fuzz {
namespace {

using namespace trace_v2;

const std::vector<std::string> kStringsDictionary = {"aclnnGroupNormBackward",
                                                     "aclnnRmsNormGrad",
                                                     "a2",
                                                     "int",
                                                     "float",
                                                     "bool",
                                                     "string",
                                                     "int[]",
                                                     "float[]",
                                                     "bool[]",
                                                     "1",
                                                     "-1",
                                                     "0.5",
                                                     "true",
                                                     "1,0",
                                                     "1.5,2",
                                                     "input",
                                                     "output",
                                                     "float32",
                                                     "float16",
                                                     "bfloat16",
                                                     "int64",
                                                     "bool",
                                                     "gradOut",
                                                     "dx",
                                                     "N",
                                                     "group",
                                                     "x,y",
                                                     "/values/000000/input/gradOut",
                                                     "/values/000000/x"};

int64_t index(FuzzedDataProvider& in) {
    const uint8_t pick = in.ConsumeIntegral<uint8_t>();
    if (pick < 224) return pick % 8;
    constexpr int64_t edges[] = {-1,
                                 std::numeric_limits<int32_t>::max(),
                                 std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min(),
                                 int64_t{1} << 40};
    return in.PickValueInArray(edges);
}
int32_t index32(FuzzedDataProvider& in) {
    const int64_t v = index(in);
    return v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min() ? -1
                                                                                              : static_cast<int32_t>(v);
}
StringId stringId(FuzzedDataProvider& in, std::size_t strings) {
    return in.ConsumeIntegralInRange<int>(0, 15) == 0
               ? index32(in)
               : in.ConsumeIntegralInRange<StringId>(0, static_cast<StringId>(strings));
}

void build(FuzzedDataProvider& in) {
    h5::File f = h5::File::create(scratchFile());
    f.writeAttribute("/", "opscope_format", std::string(in.ConsumeIntegralInRange<int>(0, 15) ? "trace" : "case"));
    if (in.ConsumeIntegralInRange<int>(0, 15))
        f.writeAttribute("/", "format_version",
                         in.ConsumeIntegralInRange<int64_t>(1, 3) == 1 ? int64_t{1} : kFormatVersion);
    f.writeAttribute("/", "trace_level", std::string(in.ConsumeBool() ? "full" : "stats"));

    std::vector<std::string> strings{""};
    for (int n = in.ConsumeIntegralInRange<int>(0, 16); n > 0; --n) strings.push_back(word(in, kStringsDictionary));
    const std::size_t last = strings.size() - 1;

    std::vector<ExecutorRow> executors(in.ConsumeIntegralInRange<std::size_t>(0, 3));
    for (ExecutorRow& r : executors) {
        r = ExecutorRow{};
        r.executorId = index(in);
        r.op = stringId(in, last);
        r.product = stringId(in, last);
        r.threads = index32(in);
        r.completed = static_cast<int8_t>(in.ConsumeIntegralInRange<int>(0, 2));
        r.workspaceBytes = index(in);
        r.startUs = in.ConsumeFloatingPoint<double>();
        r.durationUs = in.ConsumeFloatingPoint<double>();
        r.firstParam = index(in);
        r.firstStep = index(in);
        r.firstTensor = index(in);
        r.paramCount = index32(in);
        r.stepCount = index32(in);
        r.tensorCount = index32(in);
    }
    std::vector<ParamRow> params(in.ConsumeIntegralInRange<std::size_t>(0, 6));
    for (ParamRow& r : params) r = ParamRow{index(in), stringId(in, last), stringId(in, last), stringId(in, last)};
    std::vector<StepRow> steps(in.ConsumeIntegralInRange<std::size_t>(0, 6));
    for (StepRow& r : steps) {
        r = StepRow{};
        r.executor = index(in);
        r.index = index32(in);
        r.name = stringId(in, last);
        r.detail = stringId(in, last);
        r.inputs = stringId(in, last);
        r.outputs = stringId(in, last);
        r.startUs = in.ConsumeFloatingPoint<double>();
        r.durationUs = in.ConsumeFloatingPoint<double>();
    }
    std::vector<TensorRow> tensors(in.ConsumeIntegralInRange<std::size_t>(0, 6));
    for (TensorRow& r : tensors) {
        r = TensorRow{};
        r.executor = index(in);
        const int32_t step = index32(in);
        r.step = step == std::numeric_limits<int32_t>::min() ? step : step - 1;  // -1: an executor's own tensor
        r.name = stringId(in, last);
        r.kind = stringId(in, last);
        r.dtype = stringId(in, last);
        r.rank = in.ConsumeIntegralInRange<int>(0, 15) ? in.ConsumeIntegralInRange<int32_t>(0, 4) : index32(in);
        for (int64_t& d : r.shape)
            d = in.ConsumeIntegralInRange<int>(0, 15) ? in.ConsumeIntegralInRange<int64_t>(0, 5) : index(in);
        for (int64_t& s : r.strides) s = index(in);
        r.contiguous = static_cast<int8_t>(in.ConsumeIntegralInRange<int>(0, 2));
        r.hasStats = static_cast<int8_t>(in.ConsumeIntegralInRange<int>(0, 2));
        r.count = index(in);
        r.nanCount = index(in);
        r.infCount = index(in);
        r.min = in.ConsumeFloatingPoint<double>();
        r.max = in.ConsumeFloatingPoint<double>();
        r.mean = in.ConsumeFloatingPoint<double>();
        r.meanAbs = in.ConsumeFloatingPoint<double>();
        r.values = stringId(in, last);
    }

    h5::StringTable::create(f, kStrings, 16).append(strings);
    h5::Table::create(f, kExecutors, executorRowType(), 16)
        .append(executorRowType(), executors.data(), executors.size());
    h5::Table::create(f, kParams, paramRowType(), 16).append(paramRowType(), params.data(), params.size());
    h5::Table::create(f, kSteps, stepRowType(), 16).append(stepRowType(), steps.data(), steps.size());
    h5::Table::create(f, kTensors, tensorRowType(), 16).append(tensorRowType(), tensors.data(), tensors.size());
    // Value datasets where the strings say, of any dtype and shape.
    for (int n = in.ConsumeIntegralInRange<int>(0, 2); n > 0; --n) {
        const std::string& path = strings[in.ConsumeIntegralInRange<std::size_t>(0, last)];
        const HostTensor t = smallTensor(in);
        read("writeTensor", [&] { h5::writeTensor(f, path, t); });
    }
    f.close();
}

// The trace with and without its values.
void readBothWays(const h5::File& f) {
    read("readTrace skip", [&] { readTrace(f, TraceValues::Skip); });
    read("readTrace load", [&] { readTrace(f, TraceValues::Load); });
}

void readAsCases(const std::string& path) {
    read("casesFromTrace", [&] { cases::casesFromTrace(path); });
}

}  // namespace
}  // namespace opscope::fuzz

OPSCOPE_FILE_READER_TARGET(opscope::fuzz::build, opscope::fuzz::readBothWays, opscope::fuzz::readAsCases)
