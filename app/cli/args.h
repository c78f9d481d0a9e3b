// A small argument parser: each command declares its options (name, value, repeatable, help),
// and the same table prints its --help, so the two never disagree.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace opscope::cli {

struct OptionSpec {
    std::string name;       // "--dtype"
    std::string valueName;  // "DTYPE"; empty for a flag
    bool repeatable = false;
    std::string help;
};

// Each command writes its spec as one literal, fields in this order.
struct CommandSpec {
    std::string name;         // "run", "trace export"
    std::string usage;        // "run FILE... [options]"
    std::string summary;      // one line
    std::string description;  // paragraphs after the usage
    std::vector<OptionSpec> options;
    int minPositionals = 0;
    int maxPositionals = -1;  // -1: any number
    std::string examples;
};

class ParsedArgs {
public:
    std::vector<std::string> positionals;
    bool has(const std::string& option) const { return values_.count(option) > 0; }
    // The option's value ("" for a flag); throws when absent, so check has() first.
    const std::string& value(const std::string& option) const { return values_.at(option).back(); }
    std::string valueOr(const std::string& option, const std::string& fallback) const {
        return has(option) ? value(option) : fallback;
    }
    std::vector<std::string> values(const std::string& option) const {
        auto it = values_.find(option);
        return it == values_.end() ? std::vector<std::string>{} : it->second;
    }
    void add(const std::string& option, const std::string& value) { values_[option].push_back(value); }

private:
    std::map<std::string, std::vector<std::string>> values_;
};

// The --json flag of the commands that print JSON instead of text.
inline const OptionSpec kJsonOption{"--json", "", false, "print JSON on stdout"};
// The --progress flag of the commands that report progress on a terminal.
inline const OptionSpec kProgressOption{"--progress", "", false,
                                        "print progress on stderr even when it is not a terminal"};

// Given to a command that reads files, lets every file it opens read other files
// (h5::allowExternalData); without it such a file is refused with a sentence.
inline const char* const kAllowExternalOption = "--allow-external";

// --name value, --name=value, flags, "--" ending options, -h for --help. Throws CliError with
// a sentence for unknown options, missing values, repeated single options and the wrong number
// of positionals (unless --help was given, which the caller checks first).
ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args);
std::string helpText(const CommandSpec& spec);

}  // namespace opscope::cli
