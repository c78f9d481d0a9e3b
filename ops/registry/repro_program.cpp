// The text of a reproducer: a program of the official aclnn API alone (acl/acl.h and the
// operator's aclnnop header), written as CANN's own samples are, so it builds against CANN and
// against OpScope's SDK unchanged. Its data are .npy files: what numpy, PyTorch and OpScope read.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "opscope/ops/repro.h"

namespace opscope::ops {
namespace {

// Everything but main(): fixed, so that every reproducer reads the same way.
constexpr const char* kHelpers =
    R"program(namespace {

// Stops with the call, its status and the runtime's own message.
#define CHECK_ACL(call)                                                                                       \
    do {                                                                                                      \
        const int status_ = static_cast<int>(call);                                                           \
        if (status_ != 0) {                                                                                   \
            const char* message_ = aclGetRecentErrMsg();                                                      \
            std::fprintf(stderr, "%s failed with status %d: %s\n", #call, status_, message_ ? message_ : ""); \
            std::exit(1);                                                                                     \
        }                                                                                                     \
    } while (0)

[[noreturn]] void fail(const std::string& message) {
    std::fprintf(stderr, "repro: %s\n", message.c_str());
    std::exit(2);
}

// The .npy descr of each dtype as stored in inputs/ and outputs/; bfloat16 travels as float32
// (numpy has none), converted exactly.
const char* fileDescr(aclDataType t) {
    switch (t) {
        case ACL_FLOAT:
        case ACL_BF16: return "<f4";
        case ACL_FLOAT16: return "<f2";
        case ACL_DOUBLE: return "<f8";
        case ACL_INT8: return "|i1";
        case ACL_UINT8: return "|u1";
        case ACL_INT16: return "<i2";
        case ACL_INT32: return "<i4";
        case ACL_INT64: return "<i8";
        case ACL_BOOL: return "|b1";
        default: fail("dtype " + std::to_string(static_cast<int>(t)) + " has no .npy form here");
    }
}

size_t elementBytes(aclDataType t) { return t == ACL_BF16 ? 2 : std::stoul(fileDescr(t) + 2); }

// As numpy writes it: (), (5,), (2, 3).
std::string shapeText(const std::vector<int64_t>& shape) {
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
    return "(" + s + (shape.size() == 1 ? ",)" : ")");
}

std::string withoutSpaces(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
}

int64_t elementsOf(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

// An .npy file (version 1.0, little-endian, C order) of `descr` and `shape`.
void writeNpy(const std::string& path, const char* descr, const std::vector<int64_t>& shape, const void* data,
              size_t bytes) {
    std::string header = std::string("{'descr': '") + descr +
                         "', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
    header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
    std::ofstream out(path, std::ios::binary);
    const unsigned char preamble[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    out.write(reinterpret_cast<const char*>(preamble), 8);
    const unsigned char length[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                     static_cast<unsigned char>(header.size() >> 8)};
    out.write(reinterpret_cast<const char*>(length), 2);
    out << header;
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out.flush()) fail("cannot write " + path);
}

// The data of an .npy file that must hold `descr` in C order with exactly `shape`.
std::vector<uint8_t> readNpy(const std::string& path, const char* descr, const std::vector<int64_t>& shape) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot open " + path);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) fail(path + " is not an .npy file");
    const bool wide = bytes[6] != 1;  // versions 2 and 3 have a 4-byte header length
    size_t length = 0, start = wide ? 12 : 10;
    for (size_t i = 0; i < (wide ? 4u : 2u); ++i) length |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    if (bytes.size() < start + length) fail(path + " ends inside its header");
    const std::string header = withoutSpaces(bytes.substr(start, length)), want = withoutSpaces(shapeText(shape));
    const bool fits = header.find(std::string("'descr':'") + descr + "'") != std::string::npos &&
                      header.find("'fortran_order':False") != std::string::npos &&
                      header.find("'shape':" + want) != std::string::npos;
    if (!fits) fail(path + " should hold " + descr + " of shape " + shapeText(shape) + " in C order: " + header);
    const size_t need = size_t(elementsOf(shape)) * std::stoul(descr + 2);
    if (bytes.size() - start - length != need) fail(path + " does not hold " + std::to_string(need) + " bytes of data");
    return std::vector<uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(start + length), bytes.end());
}

uint16_t bfloat16Of(float f) {  // round to nearest even; the values came from bfloat16, so exact
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float floatOf(uint16_t b) {
    const uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// One tensor of the call: its bytes as the device holds them, their device copy and the aclTensor.
struct Tensor {
    aclDataType dtype = ACL_FLOAT;
    std::vector<int64_t> shape;
    std::vector<uint8_t> host;
    void* device = nullptr;
    aclTensor* tensor = nullptr;
};

void toDevice(Tensor& t, aclFormat format) {
    if (!t.host.empty()) {
        CHECK_ACL(aclrtMalloc(&t.device, t.host.size(), ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_ACL(aclrtMemcpy(t.device, t.host.size(), t.host.data(), t.host.size(), ACL_MEMCPY_HOST_TO_DEVICE));
    }
    std::vector<int64_t> strides(t.shape.size(), 1);
    for (size_t i = t.shape.size(); i-- > 1;) strides[i - 1] = strides[i] * t.shape[i];
    t.tensor = aclCreateTensor(t.shape.data(), t.shape.size(), t.dtype, strides.data(), 0, format,
                               t.shape.data(), t.shape.size(), t.device);
    if (!t.tensor) fail("aclCreateTensor failed");
}

// An input from FOLDER/inputs/NAME.npy.
Tensor loadInput(const std::string& folder, const char* name, aclDataType dtype, std::vector<int64_t> shape,
                 aclFormat format) {
    Tensor t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.host = readNpy(folder + "/inputs/" + name + ".npy", fileDescr(dtype), t.shape);
    if (dtype == ACL_BF16) {
        std::vector<uint8_t> half(t.host.size() / 2);
        for (size_t i = 0; i < half.size() / 2; ++i) {
            float f;
            std::memcpy(&f, &t.host[4 * i], 4);
            const uint16_t b = bfloat16Of(f);
            std::memcpy(&half[2 * i], &b, 2);
        }
        t.host.swap(half);
    }
    toDevice(t, format);
    return t;
}

// An output (zeros until the operator writes it).
Tensor makeOutput(aclDataType dtype, std::vector<int64_t> shape, aclFormat format) {
    Tensor t;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.host.assign(size_t(elementsOf(t.shape)) * elementBytes(dtype), 0);
    toDevice(t, format);
    return t;
}

float floatOfHalf(uint16_t h) {  // IEEE binary16, exactly
    const float magnitude = std::ldexp(static_cast<float>(h & 0x3ff) + ((h >> 10) & 0x1f ? 1024.0f : 0.0f),
                                       std::max((h >> 10) & 0x1f, 1) - 25);
    const float value = ((h >> 10) & 0x1f) == 0x1f ? ((h & 0x3ff) ? NAN : INFINITY) : magnitude;
    return (h & 0x8000) ? -value : value;
}

// Element i of data stored as `descr` (the .npy forms above), as a double.
double elementAt(const std::vector<uint8_t>& data, const char* descr, size_t i) {
    const std::string d = descr + 1;
    const uint8_t* at = data.data() + i * std::stoul(d.substr(1));
    float f;
    double x;
    uint16_t h;
    int64_t i64;
    int32_t i32;
    int16_t i16;
    if (d == "f4") return std::memcpy(&f, at, 4), f;
    if (d == "f8") return std::memcpy(&x, at, 8), x;
    if (d == "f2") return std::memcpy(&h, at, 2), floatOfHalf(h);
    if (d == "i8") return std::memcpy(&i64, at, 8), static_cast<double>(i64);
    if (d == "i4") return std::memcpy(&i32, at, 4), i32;
    if (d == "i2") return std::memcpy(&i16, at, 2), i16;
    if (d == "i1") return static_cast<int8_t>(*at);
    return *at;  // u1, b1
}

// One line for the device's owner: how far this output is from OpScope's (FOLDER/expected/), if
// that is there. The verdict by the accuracy standards is 'opscope-cli import repro' + 'run'.
void compareWithExpected(const std::string& folder, const char* name, const Tensor& t,
                         const std::vector<uint8_t>& stored) {
    const std::string path = folder + "/expected/" + name + ".npy";
    if (!std::ifstream(path)) {
        std::printf("\n");
        return;
    }
    const char* descr = fileDescr(t.dtype);
    const std::vector<uint8_t> expected = readNpy(path, descr, t.shape);
    const size_t n = size_t(elementsOf(t.shape));
    double worst = 0;
    size_t at = 0, beyond = 0, nanMismatch = 0;
    for (size_t i = 0; i < n; ++i) {
        const double got = elementAt(stored, descr, i), want = elementAt(expected, descr, i);
        if (std::isnan(got) != std::isnan(want)) ++nanMismatch;
        if (std::isnan(got) || std::isnan(want)) continue;
        const double diff = std::fabs(got - want);
        if (diff > 1e-3 * std::fabs(want) + 1e-7) ++beyond;
        if (diff > worst) worst = diff, at = i;
    }
    std::printf(": against OpScope's expected/, max |diff| %.6g at element %zu (here %.9g, OpScope %.9g); "
                "%zu of %zu elements off by more than 1e-3 relative, %zu NaN mismatches\n",
                worst, at, n ? elementAt(stored, descr, at) : 0.0, n ? elementAt(expected, descr, at) : 0.0, beyond,
                n, nanMismatch);
}

// The output's values, to FOLDER/outputs/NAME.npy.
void saveOutput(const std::string& folder, const char* name, Tensor& t) {
    if (!t.host.empty())
        CHECK_ACL(aclrtMemcpy(t.host.data(), t.host.size(), t.device, t.host.size(), ACL_MEMCPY_DEVICE_TO_HOST));
    std::vector<uint8_t> bytes = t.host;
    if (t.dtype == ACL_BF16) {
        bytes.resize(t.host.size() * 2);
        for (size_t i = 0; i < t.host.size() / 2; ++i) {
            uint16_t b;
            std::memcpy(&b, &t.host[2 * i], 2);
            const float f = floatOf(b);
            std::memcpy(&bytes[4 * i], &f, 4);
        }
    }
    writeNpy(folder + "/outputs/" + name + ".npy", fileDescr(t.dtype), t.shape, bytes.data(), bytes.size());
    std::printf("wrote outputs/%s.npy", name);
    compareWithExpected(folder, name, t, bytes);
}

void freeTensor(Tensor& t) {
    if (t.tensor) aclDestroyTensor(t.tensor);
    if (t.device) aclrtFree(t.device);
}

}  // namespace
)program";

const char* aclDtypeName(DType t) {
    switch (t) {
        case DType::Float32: return "ACL_FLOAT";
        case DType::Float16: return "ACL_FLOAT16";
        case DType::BFloat16: return "ACL_BF16";
        case DType::Float64: return "ACL_DOUBLE";
        case DType::Int8: return "ACL_INT8";
        case DType::UInt8: return "ACL_UINT8";
        case DType::Int16: return "ACL_INT16";
        case DType::Int32: return "ACL_INT32";
        case DType::Int64: return "ACL_INT64";
        case DType::Bool: return "ACL_BOOL";
        default: throw ArgumentError(std::string("a reproducer cannot hold a ") + dtypeName(t) + " tensor");
    }
}

const char* aclFormatName(TensorFormats formats, std::size_t rank) {
    if (formats == TensorFormats::ChannelsFirst) {
        if (rank == 3) return "ACL_FORMAT_NCL";
        if (rank == 4) return "ACL_FORMAT_NCHW";
        if (rank == 5) return "ACL_FORMAT_NCDHW";
    }
    return "ACL_FORMAT_ND";
}

std::string braced(const std::vector<int64_t>& values) {
    std::string s;
    for (int64_t v : values) s += (s.empty() ? "" : ", ") + std::to_string(v);
    return "{" + s + "}";
}

// The official header: aclnnop/aclnn_<short name>.h for each of ours.
std::string headerOf(const OpSchema& s) { return "aclnnop/aclnn_" + s.shortName + ".h"; }

std::string doubleLiteral(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    std::string s = text;
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
}

double floatAttribute(const OpArguments& a, const std::string& name) {
    const ParamValue& v = a.attributes.at(name);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return static_cast<double>(a.intAttr(name));
}

// One attribute as a named local of main(); returns the expression the call passes.
std::string attributeLocal(std::ostringstream& out, const ArgSpec& spec, const OpArguments& a) {
    const std::string& n = spec.name;
    switch (spec.kind) {
        case ArgKind::Int: out << "    const int64_t " << n << " = " << a.intAttr(n) << ";\n"; return n;
        case ArgKind::Enum: {
            const int64_t v = a.intAttr(n);
            const bool named = v >= 0 && v < static_cast<int64_t>(spec.enumNames.size());
            out << "    const int64_t " << n << " = " << v << ";"
                << (named ? "  // " + spec.enumNames[static_cast<std::size_t>(v)] : "") << "\n";
            return n;
        }
        case ArgKind::Bool:
            out << "    const bool " << n << " = " << (a.boolAttr(n) ? "true" : "false") << ";\n";
            return n;
        case ArgKind::Float:
            out << "    const double " << n << " = " << doubleLiteral(floatAttribute(a, n)) << ";\n";
            return n;
        case ArgKind::IntArray: {
            const std::vector<int64_t> v = a.intArrayAttr(n);
            if (spec.optional && v.empty()) return "nullptr";
            out << "    const std::vector<int64_t> " << n << "Values = " << braced(v) << ";\n"
                << "    aclIntArray* " << n << " = aclCreateIntArray(" << n << "Values.data(), " << n
                << "Values.size());\n";
            return n;
        }
        case ArgKind::BoolArray: {
            std::string values;
            for (bool b : a.boolArrayAttr(n))
                values += std::string(values.empty() ? "" : ", ") + (b ? "true" : "false");
            out << "    const bool " << n << "Values[] = {" << values << "};\n"
                << "    aclBoolArray* " << n << " = aclCreateBoolArray(" << n << "Values, " << a.boolArrayAttr(n).size()
                << ");\n";
            return n;
        }
        case ArgKind::Tensor: break;
    }
    throw ArgumentError("attribute '" + n + "' of kind " + argKindName(spec.kind) + " has no C form");
}

const HostTensor* findNamed(const std::vector<std::pair<std::string, HostTensor>>& list, const std::string& name) {
    for (const auto& [n, t] : list)
        if (n == name) return &t;
    return nullptr;
}

void writeTensorLocal(std::ostringstream& out, const std::string& name, const HostTensor& t, TensorFormats formats,
                      bool isInput) {
    const std::string shape = braced(t.shape());
    const char* format = aclFormatName(formats, t.shape().size());
    if (isInput)
        out << "    Tensor " << name << " = loadInput(folder, \"" << name << "\", " << aclDtypeName(t.dtype()) << ", "
            << shape << ", " << format << ");\n";
    else
        out << "    Tensor " << name << " = makeOutput(" << aclDtypeName(t.dtype()) << ", " << shape << ", " << format
            << ");\n";
}

// main()'s locals for the call's arguments, the arguments in prototype order, and what to save
// and release afterwards.
struct CallText {
    std::ostringstream locals;
    std::vector<std::string> args, tensors, saved, arrays;
};

void describeCall(CallText& c, const OpSchema& s, const OpArguments& a, const PreparedCall& call) {
    c.locals << "    // Inputs, as the device takes them.\n";
    for (const ArgSpec& t : s.tensors) {
        const bool given = a.hasTensor(t.name);
        if (given) writeTensorLocal(c.locals, t.name, a.tensor(t.name), s.formats, true);
        c.args.push_back(given ? t.name + ".tensor" : "nullptr");
        if (given) c.tensors.push_back(t.name);
    }
    c.locals << "    // Attributes.\n";
    for (const ArgSpec& spec : s.attributes) {
        c.args.push_back(attributeLocal(c.locals, spec, a));
        if (c.args.back() == "nullptr") continue;
        if (spec.kind == ArgKind::IntArray) c.arrays.push_back("aclDestroyIntArray(" + spec.name + ")");
        if (spec.kind == ArgKind::BoolArray) c.arrays.push_back("aclDestroyBoolArray(" + spec.name + ")");
    }
    c.locals << "    // Outputs"
             << (call.unusedOutputs().empty() ? "" : " (the operator takes the unselected ones too)") << ".\n";
    for (const OutputSpec& o : s.outputs) {
        const HostTensor* selected = findNamed(call.outputs(), o.name);
        const HostTensor* unused = findNamed(call.unusedOutputs(), o.name);
        if (selected || unused) writeTensorLocal(c.locals, o.name, selected ? *selected : *unused, s.formats, false);
        c.args.push_back(selected || unused ? o.name + ".tensor" : "nullptr");
        if (selected || unused) c.tensors.push_back(o.name);
        if (selected) c.saved.push_back(o.name);
    }
}

}  // namespace

std::string reproProgram(const Operator& op, const OpArguments& a, const PreparedCall& call,
                         const std::string& origin) {
    const OpSchema& s = op.schema();
    CallText c;
    describeCall(c, s, a, call);
    std::string argumentLines, where = origin;
    for (const std::string& x : c.args) argumentLines += "\n        " + x + ",";
    std::replace(where.begin(), where.end(), '\n', ' ');
    std::ostringstream p;
    p << "// Reproduces one call of " << s.name << ", exported by OpScope from\n//   " << where << ".\n"
      << "// Builds unchanged against CANN (on an Ascend NPU) and against OpScope's SDK (on a CPU): see\n"
      << "// README.md. Reads FOLDER/inputs/*.npy, writes FOLDER/outputs/*.npy (FOLDER: the first\n"
      << "// argument, else the current folder).\n"
      << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n"
      << "#include <cstring>\n"
      << "#include <fstream>\n#include <iterator>\n#include <string>\n#include <vector>\n\n"
      << "#include \"acl/acl.h\"\n#include \"" << headerOf(s) << "\"\n\n"
      << kHelpers << "\nint main(int argc, char** argv) {\n"
      << "    const std::string folder = argc > 1 ? argv[1] : \".\";\n"
      << "    const int32_t deviceId = std::getenv(\"REPRO_DEVICE\") ? std::atoi(std::getenv(\"REPRO_DEVICE\")) : 0;\n"
      << "    CHECK_ACL(aclInit(nullptr));\n    CHECK_ACL(aclrtSetDevice(deviceId));\n"
      << "    aclrtStream stream = nullptr;\n    CHECK_ACL(aclrtCreateStream(&stream));\n\n"
      << c.locals.str() << "\n    uint64_t workspaceSize = 0;\n    aclOpExecutor* executor = nullptr;\n"
      << "    CHECK_ACL(" << s.name << "GetWorkspaceSize(" << argumentLines
      << "\n        &workspaceSize, &executor));\n"
      << "    std::printf(\"" << s.name << "GetWorkspaceSize: workspace %llu bytes\\n\",\n"
      << "                static_cast<unsigned long long>(workspaceSize));\n"
      << "    void* workspace = nullptr;\n"
      << "    if (workspaceSize > 0) CHECK_ACL(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST));\n"
      << "    CHECK_ACL(" << s.name << "(workspace, workspaceSize, executor, stream));\n"
      << "    CHECK_ACL(aclrtSynchronizeStream(stream));\n\n";
    for (const std::string& o : c.saved) p << "    saveOutput(folder, \"" << o << "\", " << o << ");\n";
    p << "\n";
    for (const std::string& t : c.tensors) p << "    freeTensor(" << t << ");\n";
    for (const std::string& d : c.arrays) p << "    " << d << ";\n";
    p << "    if (workspace) aclrtFree(workspace);\n    aclrtDestroyStream(stream);\n"
      << "    aclrtResetDevice(deviceId);\n    aclFinalize();\n    return 0;\n}\n";
    return p.str();
}

}  // namespace opscope::ops
