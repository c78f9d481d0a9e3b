// The device verdict of a case (see device_verdict.h).
#include "opscope/ops/device_verdict.h"

namespace opscope::ops {

const char* deviceVerdictName(DeviceVerdict::Kind k) {
    switch (k) {
        case DeviceVerdict::Kind::DeviceFails: return "device fails";
        case DeviceVerdict::Kind::Agree: return "emulation and device agree";
        case DeviceVerdict::Kind::BothFail: return "both fail";
        case DeviceVerdict::Kind::EmulationFails: return "emulation fails";
        case DeviceVerdict::Kind::NoDevice: break;
    }
    return "no device outputs";
}

DeviceVerdict deviceVerdict(const CaseResult& r) {
    DeviceVerdict v;
    if (!r.ok()) return v;
    std::string deviceFailures, emulationFailures;
    bool anyDevice = false;
    for (const Comparison& c : r.comparisons) {
        if (!c.judged || c.reference != "golden") continue;
        const bool device = c.actual != "opscope";
        anyDevice = anyDevice || device;
        if (c.judgement.passed()) continue;
        std::string& list = device ? deviceFailures : emulationFailures;
        list += (list.empty() ? "" : ", ") + c.actual + "/" + c.output + " (" + c.judgement.reason + ")";
    }
    if (!anyDevice) return v;
    using K = DeviceVerdict::Kind;
    if (!deviceFailures.empty() && emulationFailures.empty()) {
        v.kind = K::DeviceFails;
        v.line = "device fails: " + deviceFailures + "; the emulation passes on the same inputs";
    } else if (deviceFailures.empty() && emulationFailures.empty()) {
        v.kind = K::Agree;
        v.line = "emulation and device agree: every output passes";
    } else if (!deviceFailures.empty()) {
        v.kind = K::BothFail;
        v.line = "both fail: " + deviceFailures + "; opscope " + emulationFailures +
                 " too, so the inputs are the problem (non-finite values, cancellation or a damaged dump)";
    } else {
        v.kind = K::EmulationFails;
        v.line = "emulation fails: " + emulationFailures + "; the device passes";
    }
    return v;
}

}  // namespace opscope::ops
