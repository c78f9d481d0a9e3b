#include "device_verdicts.h"

#include <map>

#include "opscope/import/msprobe.h"

namespace opscope::cli {
namespace {
constexpr std::size_t kListEveryVerdictUpTo = 20;
}  // namespace

std::string verdictCallLabel(const std::string& file, const std::string& path) {
    const std::string call = import::msprobe::callOfCasePath(path);
    if (call.empty()) return (file.empty() ? "" : file + ":") + path;
    return path.substr(std::string(import::msprobe::kCaseRoot).size() + 1);
}

void printDeviceVerdicts(std::ostream& os, const std::vector<DeviceVerdictRow>& rows, bool verbose) {
    using Kind = ops::DeviceVerdict::Kind;
    if (rows.empty()) return;
    os << "\ndevice verdicts (each device output and OpScope's against the float64 golden):\n";
    const std::string agree = ops::deviceVerdictName(Kind::Agree);
    const bool listAll = verbose || rows.size() <= kListEveryVerdictUpTo;
    std::map<std::string, std::size_t> tally;
    for (const DeviceVerdictRow& r : rows) {
        ++tally[r.verdict];
        if (listAll || r.verdict != agree) os << "  " << r.call << ": " << r.line << "\n";
    }
    if (!listAll && tally[agree])
        os << "  ... and " << tally[agree]
           << " more on which the emulation and the device agree (--verbose lists them)\n";
    if (rows.size() < 2) return;
    os << "  " << rows.size() << " calls:";
    const char* separator = " ";
    for (Kind k : {Kind::DeviceFails, Kind::BothFail, Kind::OtherSettings, Kind::EmulationFails, Kind::Agree})
        if (const std::size_t n = tally[ops::deviceVerdictName(k)]) {
            os << separator << n << " " << ops::deviceVerdictName(k);
            separator = ", ";
        }
    os << "\n";
}

}  // namespace opscope::cli
