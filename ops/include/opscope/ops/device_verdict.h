// Which side is wrong, for a case that holds a device's outputs (an "actual" source such as
// msprobe's npu/): both the device and the emulation are judged against the same float64
// golden, so together they say whether the device fails, the two agree, or both fail (then the
// inputs are the problem: non-finite values, cancellation, a mismatch in the dump).
//
// One small function on CaseResult so it can move into the shared CLI/GUI evaluation.
#pragma once

#include <string>

#include "opscope/ops/case_runner.h"

namespace opscope::ops {

struct DeviceVerdict {
    enum class Kind {
        NoDevice,        // no actual source was judged (or the case did not run)
        DeviceFails,     // a device output fails its standard; the emulation passes
        Agree,           // the device and the emulation both pass
        BothFail,        // both fail: the inputs are the problem
        EmulationFails,  // the device passes but OpScope does not (an OpScope problem)
    };
    Kind kind = Kind::NoDevice;
    std::string line;  // "device fails: npu/gradWeight fails dual-thousandth (...); the emulation passes"
};

const char* deviceVerdictName(DeviceVerdict::Kind k);  // "device fails", "agree", ...
DeviceVerdict deviceVerdict(const CaseResult& r);

}  // namespace opscope::ops
