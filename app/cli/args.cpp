#include "args.h"

#include <sstream>

#include "cli_common.h"
#include "opscope/h5/file_safety.h"

namespace opscope::cli {
namespace {

const OptionSpec* findOption(const CommandSpec& spec, const std::string& name) {
    for (const OptionSpec& o : spec.options)
        if (o.name == name) return &o;
    return nullptr;
}

}  // namespace

ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args) {
    ParsedArgs parsed;
    bool optionsEnded = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (optionsEnded || a.size() < 2 || a[0] != '-' || a == "-") {
            parsed.positionals.push_back(a);
            continue;
        }
        if (a == "--") {
            optionsEnded = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            parsed.add("--help", "");
            continue;
        }
        std::string name = a, value;
        bool inlineValue = false;
        if (const std::size_t eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
            name = a.substr(0, eq);
            value = a.substr(eq + 1);
            inlineValue = true;
        }
        const OptionSpec* o = findOption(spec, name);
        if (!o)
            throw CliError("unknown option '" + name + "' for '" + spec.name + "' (see opscope-cli " + spec.name +
                           " --help)");
        if (o->valueName.empty()) {
            if (inlineValue) throw CliError("option '" + name + "' takes no value");
        } else if (!inlineValue) {
            if (i + 1 >= args.size()) throw CliError("option '" + name + "' needs a value (" + o->valueName + ")");
            value = args[++i];
        }
        if (!o->repeatable && parsed.has(name)) throw CliError("option '" + name + "' is given twice");
        parsed.add(name, value);
    }
    if (parsed.has("--help")) return parsed;
    if (parsed.has(kAllowExternalOption)) h5::allowExternalData(true);  // process-wide, for this one command
    const int n = static_cast<int>(parsed.positionals.size());
    if (n < spec.minPositionals)
        throw CliError("'" + spec.name + "' needs " + std::to_string(spec.minPositionals) + " argument" +
                       (spec.minPositionals > 1 ? "s" : "") + ": usage: opscope-cli " + spec.usage);
    if (spec.maxPositionals >= 0 && n > spec.maxPositionals)
        throw CliError("'" + spec.name + "' takes at most " + std::to_string(spec.maxPositionals) + " argument" +
                       (spec.maxPositionals == 1 ? "" : "s") + ", got '" +
                       parsed.positionals[static_cast<std::size_t>(spec.maxPositionals)] +
                       "' too: usage: opscope-cli " + spec.usage);
    return parsed;
}

std::string helpText(const CommandSpec& spec) {
    std::ostringstream os;
    os << "usage: opscope-cli " << spec.usage << "\n\n" << spec.summary << "\n";
    if (!spec.description.empty()) os << "\n" << spec.description << "\n";
    if (!spec.options.empty()) {
        os << "\noptions:\n";
        std::size_t width = 0;
        for (const OptionSpec& o : spec.options)
            width = std::max(width, o.name.size() + (o.valueName.empty() ? 0 : o.valueName.size() + 1));
        for (const OptionSpec& o : spec.options) {
            std::string left = o.name + (o.valueName.empty() ? "" : " " + o.valueName);
            os << "  " << left << std::string(width - left.size() + 2, ' ') << o.help
               << (o.repeatable ? " (repeatable)" : "") << "\n";
        }
        os << "  --help" << std::string(width > 6 ? width - 6 + 2 : 2, ' ') << "show this help\n";
    }
    if (!spec.examples.empty()) os << "\nexamples:\n" << spec.examples;
    os << "\nexit codes: 0 all passed, 1 something failed its standard, 2 usage or input error\n";
    return os.str();
}

}  // namespace opscope::cli
