// One msprobe call's entries in dump.json, and how its arguments read (private to import/).
// msprobe writes a tensor as {"type": "torch.Tensor", "dtype", "shape", statistics, "data_name"},
// a Python scalar or string as {"type": "int", "value": 3}, a tuple or list as a JSON array of
// those and None as null (msprobe core/dump/data_dump/data_processor/).
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "opscope/case_file.h"
#include "opscope/import/msprobe.h"

namespace opscope::import::msprobe::detail {

using json = nlohmann::ordered_json;  // keeps dump.json's order

// A supported call that cannot be replayed; the message is the reason.
class Unsupported : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Call {
    std::string name;     // "Functional.conv2d.0", "Module.conv1.Conv2d.0"
    std::string api;      // "conv2d", "conv_transpose1d", "group_norm", "npu_rms_norm", "grid_sample",
                          // an aten op without its overload "convolution_backward",
                          // or the module class "Conv2d", "GroupNorm"
    bool module = false;  // an L0 module call (hyper-parameters not in the dump)
    bool aten = false;    // an aten backward op: the call is the backward, its outputs the gradients
    const json* forward = nullptr;
    const json* backward = nullptr;
    const json* parametersGrad = nullptr;  // L0 only
    std::string folder;                    // the rank folder
    std::string description;
    mutable uint64_t bytesRead = 0;

    // Positional argument `pos`, else keyword `name`; nullptr when absent or None.
    const json* arg(std::size_t pos, const char* name) const;
    // An L0 module's parameter ("weight", "bias"); nullptr when absent or None.
    const json* parameter(const char* name) const;
    const json* forwardOutput(std::size_t i) const;
    const json* backwardInput(std::size_t i) const;
    // The gradient flowing into the backward call (backward input 0); Unsupported when it is
    // not a dumped tensor.
    const json& incomingGradient() const;
    // The device's gradient of positional argument `pos` (the backward output at the index of
    // that argument among the positional tensors), or of an L0 parameter; nullptr if not dumped.
    const json* gradientOfArg(std::size_t pos) const;
    const json* gradientOfParameter(const char* name) const;

    // The tensor's file, read and checked against its dump.json dtype and shape.
    HostTensor tensor(const json* t, const std::string& what) const;
};

bool isTensor(const json* v);
std::vector<int64_t> declaredShape(const json& t);
int64_t intValue(const json& v, const std::string& what);
double realValue(const json& v, const std::string& what);
bool boolValue(const json& v, const std::string& what);
std::string stringValue(const json& v, const std::string& what);
bool isString(const json& v);
// An int or a tuple/list of ints.
std::vector<int64_t> intList(const json& v, const std::string& what);

// The four mappings (msprobe_mappings.cpp). Throw Unsupported or FormatError.
cases::Case convolutionCase(const Call& call, const DeviceSettings& device);
cases::Case groupNormCase(const Call& call);
cases::Case rmsNormCase(const Call& call);
cases::Case gridSampleCase(const Call& call);
// The aten backward ops (msprobe_aten.cpp).
cases::Case atenConvolutionCase(const Call& call, const DeviceSettings& device);
cases::Case atenGroupNormCase(const Call& call);
cases::Case atenGridSamplerCase(const Call& call);

}  // namespace opscope::import::msprobe::detail
