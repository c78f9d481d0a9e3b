#include "device_verdicts.h"

#include <algorithm>
#include <map>

#include "opscope/import/msprobe.h"

namespace opscope::cli {
namespace {
constexpr std::size_t kListEveryVerdictUpTo = 20;

// `text` as one word of a POSIX shell command line.
std::string shellWord(const std::string& text) {
    const bool plain = !text.empty() && text.find_first_not_of(
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                            "0123456789/._-:+=,@") == std::string::npos;
    if (plain) return text;
    std::string quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// "1200 calls: 80 device fails, 1120 emulation and device agree", worst first.
void printTally(std::ostream& os, std::size_t calls, std::map<std::string, std::size_t>& tally) {
    using Kind = ops::DeviceVerdict::Kind;
    os << "  " << calls << " calls:";
    const char* separator = " ";
    for (Kind k : {Kind::DeviceFails, Kind::BothFail, Kind::OtherSettings, Kind::EmulationFails, Kind::Agree})
        if (const std::size_t n = tally[ops::deviceVerdictName(k)]) {
            os << separator << n << " " << ops::deviceVerdictName(k);
            separator = ", ";
        }
    os << "\n";
}

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
    const std::string fails = ops::deviceVerdictName(Kind::DeviceFails);
    const auto first = std::find_if(rows.begin(), rows.end(),
                                    [&](const DeviceVerdictRow& r) { return r.verdict == fails && !r.file.empty(); });
    if (rows.size() >= 2) printTally(os, rows.size(), tally);
    if (first != rows.end())
        os << "  the first the device fails, in the debugger: opscope " << shellWord(first->file) << " --case "
           << shellWord(first->path) << "\n";
}

}  // namespace opscope::cli
