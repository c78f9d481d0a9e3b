// opscope-cli standards / operators: what can judge, and what can run.
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "opscope/json_writer.h"
#include "opscope/metrics.h"
#include "opscope/ops/operator.h"

namespace opscope::cli {

namespace {

// A command that lists what is built in: no positionals, text or --json.
CommandSpec listingSpec(const std::string& name, const std::string& summary) {
    return {name, name + " [--json]", summary, "", {kJsonOption}, /*minPositionals=*/0, /*maxPositionals=*/0, ""};
}

}  // namespace

CommandSpec standardsSpec() {
    return listingSpec("standards",
                       "list the accuracy standards, their rules and thresholds, and each operator's default");
}

int runStandards(const ParsedArgs& a);  // below

Command standardsCommand() { return {standardsSpec(), runStandards}; }

CommandSpec operatorsSpec() {
    return listingSpec("operators",
                       "list the registered operators with their tensor arguments, attributes and outputs");
}

int runOperators(const ParsedArgs& a);  // below

Command operatorsCommand() { return {operatorsSpec(), runOperators}; }

int runStandards(const ParsedArgs& a) {
    const metrics::Standard tolerance = metrics::toleranceStandard(1e-3, 1e-5);
    std::vector<metrics::Standard> all = metrics::builtinStandards();
    all.push_back(tolerance);
    if (a.has("--json")) {
        JsonWriter w(std::cout);
        w.beginObject().key("standards").beginArray();
        for (const metrics::Standard& s : all)
            w.beginObject()
                .field("name", s.name)
                .field("title", s.title)
                .field("rule", s.formula)
                .field("thresholds", s.thresholds)
                .endObject();
        w.endArray().key("defaults").beginObject();
        for (const ops::Operator* op : ops::allOperators())
            w.field(op->schema().name, metrics::defaultStandardName(op->schema().name));
        w.endObject().endObject();
        w.finish();
        return kExitPass;
    }
    for (const metrics::Standard& s : all) {
        std::cout << (&s == &all.back() ? "rtol=X,atol=Y" : s.name) << "  (" << s.title << ")\n";
        std::cout << "    rule:       " << s.formula
                  << "\n    thresholds: " << (&s == &all.back() ? "given, e.g. rtol=1e-3,atol=1e-5" : s.thresholds)
                  << "\n\n";
    }
    std::cout << "Every metric compares with the reference rounded to the output dtype; rel = |a - r| / (|r| + 1e-7).\n"
                 "defaults:\n";
    for (const ops::Operator* op : ops::allOperators())
        std::cout << "    " << op->schema().name << ": " << metrics::defaultStandardName(op->schema().name) << "\n";
    std::cout << "    (aclnnConvolutionBackward: dual-thousandth; every other operator: cann)\n";
    return kExitPass;
}

int runOperators(const ParsedArgs& a) {
    if (a.has("--json")) {
        JsonWriter w(std::cout);
        w.beginObject().key("operators").beginArray();
        for (const ops::Operator* op : ops::allOperators()) {
            const ops::OpSchema& s = op->schema();
            w.beginObject().field("name", s.name).field("short_name", s.shortName).field("summary", s.summary);
            w.key("tensors").beginArray();
            for (const ops::ArgSpec& t : s.tensors)
                w.beginObject().field("name", t.name).field("optional", t.optional).field("help", t.help).endObject();
            w.endArray().key("attributes").beginArray();
            for (const ops::ArgSpec& t : s.attributes)
                w.beginObject()
                    .field("name", t.name)
                    .field("kind", ops::argKindName(t.kind))
                    .field("default", paramToString(t.defaultValue))
                    .field("help", t.help)
                    .endObject();
            w.endArray().key("outputs").beginArray();
            for (const ops::OutputSpec& o : s.outputs) w.value(o.name);
            w.endArray().endObject();
        }
        w.endArray().endObject();
        w.finish();
        return kExitPass;
    }
    for (const ops::Operator* op : ops::allOperators()) {
        const ops::OpSchema& s = op->schema();
        std::cout << s.name << " (" << s.shortName << "): " << s.summary << "\n";
        for (const ops::ArgSpec& t : s.tensors)
            std::cout << "    tensor " << t.name << (t.optional ? " (optional)" : "") << ": " << t.help << "\n";
        for (const ops::ArgSpec& t : s.attributes)
            std::cout << "    attr   " << t.name << " " << ops::argKindName(t.kind) << " = "
                      << paramToString(t.defaultValue) << ": " << t.help << "\n";
        std::string outs;
        for (const ops::OutputSpec& o : s.outputs) outs += (outs.empty() ? "" : ", ") + o.name;
        std::cout << "    outputs " << outs << "\n\n";
    }
    return kExitPass;
}

}  // namespace opscope::cli
