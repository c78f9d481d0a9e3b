#include "session/argument_binding.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "opscope/import/tensor_file.h"

namespace opscope::gui {

ops::OpArguments ArgumentState::toOpArguments() const {
    ops::OpArguments a;
    for (const auto& [name, b] : tensors) a.tensors[name] = b.tensor;
    a.attributes = attributes;
    return a;
}

ArgumentState defaultArguments(const ops::OpSchema& schema) {
    ArgumentState s;
    for (const ops::ArgSpec& a : schema.attributes)
        if (!a.optional) s.attributes[a.name] = a.defaultValue;
    return s;
}

namespace {

const ops::ArgSpec* findSpec(const std::vector<ops::ArgSpec>& specs, const std::string& name) {
    for (const ops::ArgSpec& a : specs)
        if (a.name == name) return &a;
    return nullptr;
}

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Position of the first whole-word occurrence of `word` in `text`, or npos.
std::size_t findWord(const std::string& text, const std::string& word) {
    for (std::size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
        const bool startOk = pos == 0 || !isWordChar(text[pos - 1]);
        const std::size_t end = pos + word.size();
        const bool endOk = end >= text.size() || !isWordChar(text[end]);
        if (startOk && endOk) return pos;
    }
    return std::string::npos;
}

}  // namespace

ArgumentState argumentsFromCase(const ops::OpSchema& schema, const cases::Case& c, std::vector<std::string>* notes) {
    ArgumentState s = defaultArguments(schema);
    for (const auto& [name, t] : c.inputs) {
        if (findSpec(schema.tensors, name)) {
            s.tensors[name] = {c.path + "/" + cases::kInputsGroup + "/" + name, t};
        } else if (notes) {
            notes->push_back("input '" + name + "' is not an argument of " + schema.name + "; ignored");
        }
    }
    for (const Param& p : c.params) {
        const ops::ArgSpec* spec = findSpec(schema.attributes, p.name);
        if (!spec) {
            if (notes)
                notes->push_back("parameter '" + p.name + "' is not an attribute of " + schema.name + "; ignored");
            continue;
        }
        ParamValue v = p.value;
        if (spec->kind == ops::ArgKind::Enum) {
            if (const auto* text = std::get_if<std::string>(&v)) {
                const std::optional<int64_t> value = ops::enumValueByName(*spec, *text);
                if (!value) {
                    if (notes)
                        notes->push_back("parameter '" + p.name + "' = '" + *text + "' is none of " +
                                         ops::enumValuesText(*spec) + "; default kept");
                    continue;
                }
                v = *value;
            }
        }
        s.attributes[p.name] = std::move(v);
    }
    return s;
}

std::vector<std::string> changedArguments(const ArgumentState& loaded, const ArgumentState& now) {
    std::set<std::string> changed;
    for (const auto& [name, value] : now.attributes) {
        const auto was = loaded.attributes.find(name);
        if (was == loaded.attributes.end() || !(was->second == value)) changed.insert(name);
    }
    for (const auto& [name, value] : loaded.attributes)
        if (!now.attributes.count(name)) changed.insert(name);
    // A tensor is the same when it is the same data: a binding shares the loaded tensor's storage.
    for (const auto& [name, b] : now.tensors) {
        const auto was = loaded.tensors.find(name);
        if (was == loaded.tensors.end() || was->second.tensor.data() != b.tensor.data() ||
            was->second.tensor.shape() != b.tensor.shape() || was->second.tensor.dtype() != b.tensor.dtype())
            changed.insert(name);
    }
    for (const auto& [name, b] : loaded.tensors)
        if (!now.tensors.count(name)) changed.insert(name);
    return {changed.begin(), changed.end()};
}

TensorBinding bindingFromFileOnWorker(const std::string& spec) { return {spec, import::readTensorFile(spec)}; }

std::string faultyArgument(const ops::OpSchema& schema, const std::string& message) {
    // The API prefix never names an argument.
    const std::string text = stripMessagePrefix(message);
    std::string best;
    std::size_t bestPos = std::string::npos;
    auto consider = [&](const std::string& word, const std::string& argument) {
        const std::size_t pos = findWord(text, word);
        if (pos != std::string::npos && (pos < bestPos || (pos == bestPos && word.size() > best.size()))) {
            bestPos = pos;
            best = argument;
        }
    };
    for (const ops::ArgSpec& a : schema.tensors) consider(a.name, a.name);
    for (const ops::ArgSpec& a : schema.attributes) consider(a.name, a.name);
    if (!schema.maskArgument.empty())
        for (const ops::OutputSpec& o : schema.outputs)
            if (!findSpec(schema.tensors, o.name)) consider(o.name, schema.maskArgument);
    return best;
}

std::string stripMessagePrefix(const std::string& message) {
    std::string text = message;
    // "[161002] " as aclGetRecentErrMsg() prints the code.
    if (!text.empty() && text[0] == '[') {
        const std::size_t close = text.find("] ");
        if (close != std::string::npos && close > 1 &&
            std::all_of(text.begin() + 1, text.begin() + static_cast<std::ptrdiff_t>(close),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            text = text.substr(close + 2);
    }
    // "aclnnXxxGetWorkspaceSize: ".
    const std::size_t colon = text.find(": ");
    if (colon != std::string::npos && text.compare(0, 5, "aclnn") == 0 && text.find(' ') > colon)
        text = text.substr(colon + 2);
    return text;
}

}  // namespace opscope::gui
