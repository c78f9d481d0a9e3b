#include "trace_read_v1.h"

#include "opscope/h5/tensor_io.h"

namespace opscope::trace_v1 {
namespace {

TensorRecord readTensorRecord(const h5::File& f, const std::string& path, const std::string& name, TraceValues values) {
    TensorRecord r;
    r.name = name;
    r.kind = f.readAttribute<std::string>(path, "kind");
    r.dtype = dtypeFromName(f.readAttribute<std::string>(path, "dtype"));
    r.shape = f.readAttribute<std::vector<int64_t>>(path, "shape");
    r.strides = f.readAttribute<std::vector<int64_t>>(path, "strides");
    r.contiguous = f.readAttribute<bool>(path, "contiguous");
    if (f.hasAttribute(path, "count")) {
        TensorStats s;
        s.count = f.readAttribute<int64_t>(path, "count");
        s.min = f.readAttribute<double>(path, "min");
        s.max = f.readAttribute<double>(path, "max");
        s.mean = f.readAttribute<double>(path, "mean");
        s.meanAbs = f.readAttribute<double>(path, "mean_abs");
        s.nanCount = f.readAttribute<int64_t>(path, "nan_count");
        s.infCount = f.readAttribute<int64_t>(path, "inf_count");
        s.finiteCount = s.count - s.nanCount - s.infCount;
        r.stats = s;
    }
    if (f.isDataset(path + "/values")) {
        r.valuesPath = path + "/values";
        if (values == TraceValues::Load) r.values = h5::readTensor(f, r.valuesPath);
    }
    return r;
}

std::vector<Param> readParams(const h5::File& f, const std::string& path) {
    std::vector<Param> params;
    const auto order = f.readAttribute<std::vector<std::string>>(path, "_order");
    const auto types = f.readAttribute<std::vector<std::string>>(path, "_types");
    for (std::size_t i = 0; i < order.size() && i < types.size(); ++i) {
        const std::string& n = order[i];
        const std::string& ty = types[i];
        ParamValue v;
        if (ty == "bool")
            v = f.readAttribute<bool>(path, n);
        else if (ty == "int")
            v = f.readAttribute<int64_t>(path, n);
        else if (ty == "float")
            v = f.readAttribute<double>(path, n);
        else if (ty == "string")
            v = f.readAttribute<std::string>(path, n);
        else if (ty == "int[]")
            v = f.readAttribute<std::vector<int64_t>>(path, n);
        else if (ty == "float[]")
            v = f.readAttribute<std::vector<double>>(path, n);
        else {
            const auto ints = f.readAttribute<std::vector<int64_t>>(path, n);
            v = std::vector<bool>(ints.begin(), ints.end());
        }
        params.push_back({n, std::move(v)});
    }
    return params;
}

}  // namespace

std::vector<std::string> executorGroups(const h5::File& f) {
    std::vector<std::string> out;
    if (!f.isGroup("/executors")) return out;
    for (const std::string& name : f.children("/executors")) out.push_back("/executors/" + name);
    return out;
}

ExecutorTrace readExecutor(const h5::File& f, const std::string& g, TraceValues values) {
    ExecutorTrace t;
    t.op = f.readAttribute<std::string>(g, "op");
    t.product = f.readAttribute<std::string>(g, "product");
    t.executorId = static_cast<uint64_t>(f.readAttribute<int64_t>(g, "executor_id"));
    t.threads = static_cast<int>(f.readAttribute<int64_t>(g, "threads"));
    t.workspaceBytes = static_cast<uint64_t>(f.readAttribute<int64_t>(g, "workspace_bytes"));
    t.startUs = f.readAttribute<double>(g, "start_us");
    t.durationUs = f.readAttribute<double>(g, "duration_us");
    t.completed = f.readAttribute<bool>(g, "completed");
    t.params = readParams(f, g + "/params");
    for (const std::string& n : f.children(g + "/inputs"))
        t.inputs.push_back(readTensorRecord(f, g + "/inputs/" + n, n, values));
    for (const std::string& n : f.children(g + "/outputs"))
        t.outputs.push_back(readTensorRecord(f, g + "/outputs/" + n, n, values));
    for (const std::string& sn : f.children(g + "/steps")) {
        const std::string sp = g + "/steps/" + sn;
        StepTrace s;
        s.index = static_cast<std::size_t>(f.readAttribute<int64_t>(sp, "index"));
        s.name = f.readAttribute<std::string>(sp, "name");
        s.detail = f.readAttribute<std::string>(sp, "detail");
        s.inputs = f.readAttribute<std::vector<std::string>>(sp, "inputs");
        s.outputs = f.readAttribute<std::vector<std::string>>(sp, "outputs");
        s.startUs = f.readAttribute<double>(sp, "start_us");
        s.durationUs = f.readAttribute<double>(sp, "duration_us");
        for (const std::string& n : f.children(sp + "/tensors"))
            s.outputTensors.push_back(readTensorRecord(f, sp + "/tensors/" + n, n, values));
        t.steps.push_back(std::move(s));
    }
    return t;
}

}  // namespace opscope::trace_v1
