// libFuzzer target: the case reader (findCases, inspectCase, readCase) and the vetting walk
// (every object, attribute and string, as opscope-vet reads them) over case files built from
// the input. The file itself is written by libhdf5, so it is well-formed HDF5; what the input
// decides is everything our code interprets: where the case groups are, the op attribute,
// parameters of every attribute type (strings, vectors, odd HDF5 types), the reserved
// attributes, input and output datasets of any dtype and shape, and non-tensor datasets.
// (Raw HDF5 bytes are fuzz_h5_raw's job: those reach libhdf5's own parser, which crashes on
// its own; see tests/fuzz/README.md.)
#include <hdf5.h>

#include <cstdio>

#include "fuzz_support.h"
#include "opscope/case_file.h"
#include "opscope/h5/h5_file.h"
#include "opscope/h5/tensor_io.h"
#include "opscope/h5/vetting.h"

namespace opscope::fuzz {
namespace {

const std::vector<std::string> kGroups = {"/c", "/op/fp32/basic", "/a/b", "/c/inputs", "/c/expected", "/", "/c/npu"};
const std::vector<std::string> kNames = {"op",
                                         "description",
                                         "standard",
                                         "role",
                                         "N",
                                         "C",
                                         "HxW",
                                         "group",
                                         "eps",
                                         "inputs",
                                         "expected",
                                         "npu",
                                         "gradOut",
                                         "input",
                                         "mean",
                                         "rstd",
                                         "gamma",
                                         "dy",
                                         "x",
                                         "outputMask",
                                         "opscope_dtype",
                                         "interpolationMode"};
const std::vector<std::string> kValues = {"aclnnGroupNormBackward",
                                          "aclnnRmsNormGrad",
                                          "group_norm_backward",
                                          "aclnnConvolutionBackward",
                                          "aclnnGridSampler2DBackward",
                                          "reference",
                                          "actual",
                                          "cann",
                                          "bfloat16",
                                          "rtol=1e-3,atol=1e-3",
                                          ""};

std::string childPath(FuzzedDataProvider& in) {
    const std::string g = word(in, kGroups);
    const std::string n = word(in, kNames);
    return (g == "/" ? "" : g) + "/" + n;
}

// An attribute of a type File::writeAttribute does not write: float32, uint8, a fixed-length
// string, a 2-D int array.
void oddAttribute(h5::File& f, const std::string& object, const std::string& name, FuzzedDataProvider& in) {
    const hid_t obj = H5Oopen(f.id(), object.c_str(), H5P_DEFAULT);
    if (obj < 0) return;
    hid_t type = -1, space = -1;
    const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(32);
    std::vector<uint8_t> buf(64, 0);
    std::copy(bytes.begin(), bytes.end(), buf.begin());
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0:
            type = H5Tcopy(H5T_NATIVE_FLOAT);
            space = H5Screate(H5S_SCALAR);
            break;
        case 1:
            type = H5Tcopy(H5T_NATIVE_UINT8);
            space = H5Screate(H5S_SCALAR);
            break;
        case 2:
            type = H5Tcopy(H5T_C_S1);
            H5Tset_size(type, 1 + in.ConsumeIntegralInRange<std::size_t>(0, 31));
            space = H5Screate(H5S_SCALAR);
            break;
        default: {
            type = H5Tcopy(H5T_NATIVE_INT64);
            const hsize_t dims[2] = {2, 2};
            space = H5Screate_simple(2, dims, nullptr);
        }
    }
    const hid_t attr = H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
        H5Awrite(attr, type, buf.data());
        H5Aclose(attr);
    }
    H5Sclose(space);
    H5Tclose(type);
    H5Oclose(obj);
}

void addAttribute(h5::File& f, const std::string& object, FuzzedDataProvider& in) {
    const std::string name = word(in, kNames);
    read("writeAttribute", [&] {
        switch (in.ConsumeIntegralInRange<int>(0, 7)) {
            case 0: f.writeAttribute(object, name, word(in, kValues)); break;
            case 1: f.writeAttribute(object, name, in.ConsumeIntegral<int64_t>()); break;
            case 2: f.writeAttribute(object, name, in.ConsumeFloatingPoint<double>()); break;
            case 3: f.writeAttribute(object, name, in.ConsumeBool()); break;
            case 4: {
                std::vector<int64_t> v(in.ConsumeIntegralInRange<std::size_t>(0, 5));
                for (int64_t& x : v) x = in.ConsumeIntegralInRange<int64_t>(-3, 9);
                f.writeAttribute(object, name, v);
                break;
            }
            case 5: {
                std::vector<double> v(in.ConsumeIntegralInRange<std::size_t>(0, 5));
                for (double& x : v) x = in.ConsumeFloatingPoint<double>();
                f.writeAttribute(object, name, v);
                break;
            }
            case 6: {
                std::vector<std::string> v(in.ConsumeIntegralInRange<std::size_t>(0, 3));
                for (std::string& x : v) x = word(in, kValues);
                f.writeAttribute(object, name, v);
                break;
            }
            default: oddAttribute(f, object, name, in);
        }
    });
}

void build(FuzzedDataProvider& in) {
    h5::File f = h5::File::create(scratchFile());
    for (int i = in.ConsumeIntegralInRange<int>(0, 12); i > 0 && in.remaining_bytes() > 0; --i) {
        const int what = in.ConsumeIntegralInRange<int>(0, 3);
        if (what == 0) {
            read("createGroup", [&] { f.createGroup(word(in, kGroups)); });
        } else if (what == 1) {
            const std::string g = word(in, kGroups);
            read("createGroup", [&] { f.createGroup(g); });
            addAttribute(f, g, in);
        } else if (what == 2) {
            const std::string path = childPath(in);
            const HostTensor t = smallTensor(in);
            read("writeTensor", [&] { h5::writeTensor(f, path, t, {in.ConsumeBool(), false}); });
            if (in.ConsumeBool()) addAttribute(f, path, in);
        } else {
            // A dataset that is not a tensor: strings.
            const std::string path = childPath(in);
            read("createGroup", [&] { f.createGroup(h5::parentPath(h5::normalizePath(path))); });
            const hid_t type = H5Tcopy(H5T_C_S1);
            H5Tset_size(type, H5T_VARIABLE);
            const hsize_t n = 2;
            const hid_t space = H5Screate_simple(1, &n, nullptr);
            const hid_t d = H5Dcreate2(f.id(), path.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (d >= 0) {
                const std::string a = word(in, kValues), b = word(in, kValues);
                const char* s[2] = {a.c_str(), b.c_str()};
                H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
                H5Dclose(d);
            }
            H5Sclose(space);
            H5Tclose(type);
        }
    }
    f.close();
}

// Every case of the file, listed and read.
void readEveryCase(const h5::File& f) {
    for (const std::string& c : cases::findCases(f)) {
        read("inspectCase", [&] { cases::inspectCase(f, c); });
        read("readCase", [&] { cases::readCase(f, c); });
    }
}

void noReaderByPath(const std::string&) {}

}  // namespace
}  // namespace opscope::fuzz

OPSCOPE_FILE_READER_TARGET(opscope::fuzz::build, opscope::fuzz::readEveryCase, opscope::fuzz::noReaderByPath)
