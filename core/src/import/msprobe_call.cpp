// Reading one call's arguments out of dump.json (see msprobe_call.h).
#include "msprobe_call.h"

#include <filesystem>

#include "opscope/import/format_error.h"
#include "opscope/import/tensor_file.h"

namespace opscope::import::msprobe::detail {
namespace {

const json* present(const json* v) { return v && !v->is_null() ? v : nullptr; }

const json* member(const json* obj, const char* key) {
    if (!obj || !obj->is_object()) return nullptr;
    auto it = obj->find(key);
    return it == obj->end() ? nullptr : present(&*it);
}

const json* element(const json* arr, std::size_t i) {
    if (!arr || !arr->is_array() || i >= arr->size()) return nullptr;
    return present(&(*arr)[i]);
}

// "torch.float32" -> Float32.
DType torchDtype(const std::string& name) {
    const std::string n = name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
    if (n == "float" || n == "float32") return DType::Float32;
    if (n == "half" || n == "float16") return DType::Float16;
    if (n == "bfloat16") return DType::BFloat16;
    if (n == "double" || n == "float64") return DType::Float64;
    if (n == "long" || n == "int64") return DType::Int64;
    if (n == "int" || n == "int32") return DType::Int32;
    if (n == "bool") return DType::Bool;
    return dtypeFromName(n);
}

// A scalar as msprobe writes it ({"type": "int", "value": 3}) or a bare JSON value.
const json& scalar(const json& v) {
    if (v.is_object() && v.contains("value")) return v["value"];
    return v;
}

}  // namespace

bool isTensor(const json* v) {
    return v && v->is_object() && v->contains("dtype") && v->contains("shape") && (*v)["shape"].is_array();
}

std::vector<int64_t> declaredShape(const json& t) {
    if (!isTensor(&t)) throw FormatError("a tensor in dump.json has no shape");
    std::vector<int64_t> shape;
    for (const json& d : t.at("shape")) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0)
            throw FormatError("a tensor shape in dump.json is not whole numbers");
        shape.push_back(d.get<int64_t>());
    }
    return shape;
}

int64_t intValue(const json& v, const std::string& what) {
    const json& s = scalar(v);
    if (s.is_number_integer()) return s.get<int64_t>();
    if (s.is_boolean()) return s.get<bool>() ? 1 : 0;
    throw Unsupported(what + " is " + v.dump() + ", not an integer");
}

double realValue(const json& v, const std::string& what) {
    const json& s = scalar(v);
    if (s.is_number()) return s.get<double>();
    throw Unsupported(what + " is " + v.dump() + ", not a number");
}

bool boolValue(const json& v, const std::string& what) {
    const json& s = scalar(v);
    if (s.is_boolean()) return s.get<bool>();
    if (s.is_number_integer()) return s.get<int64_t>() != 0;
    throw Unsupported(what + " is " + v.dump() + ", not true or false");
}

bool isString(const json& v) { return scalar(v).is_string(); }

std::string stringValue(const json& v, const std::string& what) {
    const json& s = scalar(v);
    if (s.is_string()) return s.get<std::string>();
    throw Unsupported(what + " is " + v.dump() + ", not a string");
}

std::vector<int64_t> intList(const json& v, const std::string& what) {
    const json& s = scalar(v);  // torch.Size keeps its list under "value"
    if (!s.is_array()) return {intValue(v, what)};
    std::vector<int64_t> out;
    for (const json& item : s) out.push_back(intValue(item, what));
    return out;
}

const json* Call::arg(std::size_t pos, const char* keyword) const {
    const json* args = member(forward, "input_args");
    if (args && args->is_array() && pos < args->size()) return present(&(*args)[pos]);
    return member(member(forward, "input_kwargs"), keyword);
}

const json* Call::parameter(const char* key) const { return member(member(forward, "parameters"), key); }
const json* Call::forwardOutput(std::size_t i) const { return element(member(forward, "output"), i); }
const json* Call::backwardInput(std::size_t i) const { return element(member(backward, "input"), i); }

const json& Call::incomingGradient() const {
    const json* g = backwardInput(0);
    if (!isTensor(g)) throw Unsupported("the backward call has no incoming gradient (backward input 0)");
    return *g;
}

const json* Call::gradientOfArg(std::size_t pos) const {
    const json* args = member(forward, "input_args");
    if (!args || !args->is_array() || pos >= args->size() || !isTensor(present(&(*args)[pos]))) return nullptr;
    std::size_t index = 0;
    for (std::size_t i = 0; i < pos; ++i) index += isTensor(present(&(*args)[i])) ? 1u : 0u;
    const json* g = element(member(backward, "output"), index);
    return isTensor(g) ? g : nullptr;
}

const json* Call::gradientOfParameter(const char* key) const {
    const json* g = member(parametersGrad, key);
    if (g && g->is_array()) g = element(g, 0);
    return isTensor(g) ? g : nullptr;
}

HostTensor Call::tensor(const json* t, const std::string& what) const {
    if (!isTensor(t)) throw Unsupported(what + " is not a tensor in dump.json");
    const json* dataName = member(t, "data_name");
    if (!dataName || !dataName->is_string() || dataName->get<std::string>() == "-1")
        throw Unsupported("statistics only: dump.json has no tensor file for " + what +
                          " (dump with task \"tensor\" to replay it)");
    namespace fs = std::filesystem;
    const std::string file = dataName->get<std::string>();
    if (file.find("..") != std::string::npos || fs::path(file).is_absolute())
        throw FormatError("dump.json in '" + folder + "' names tensor file '" + file + "' outside the dump");
    fs::path path = fs::path(folder) / "dump_tensor_data" / file;
    std::error_code ec;
    if (!fs::exists(path, ec) && fs::exists(fs::path(folder) / file, ec)) path = fs::path(folder) / file;
    if (!fs::exists(path, ec)) throw Unsupported("missing file: " + what + " should be in '" + path.string() + "'");
    HostTensor out = readTensorFile(path.string());
    bytesRead += static_cast<uint64_t>(fs::file_size(path, ec));
    const std::vector<int64_t> shape = declaredShape(*t);
    const DType dtype = (*t)["dtype"].is_string() ? torchDtype((*t)["dtype"].get<std::string>()) : DType::Undefined;
    if (out.shape() != shape || (dtype != DType::Undefined && out.dtype() != dtype))
        throw FormatError("'" + path.string() + "' holds " + dtypeName(out.dtype()) + shapeToString(out.shape()) +
                          " but dump.json declares " + (*t)["dtype"].dump() + shapeToString(shape) + " for " + what);
    return out;
}

}  // namespace opscope::import::msprobe::detail
