// Binding cases to operators and judging their outputs (see case_runner.h).
#include "opscope/ops/case_runner.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

#include "opscope/error.h"

namespace opscope::ops {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool isJudgedDtype(DType d) { return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32; }

// The dtype a case "is": that of its first floating tensor argument in schema order.
DType caseDtypeOf(const Operator& op, const OpArguments& args) {
    for (const ArgSpec& a : op.schema().tensors) {
        auto it = args.tensors.find(a.name);
        if (it != args.tensors.end() && isFloatingType(it->second.dtype())) return it->second.dtype();
    }
    return DType::Undefined;
}

}  // namespace

bool CaseResult::passed() const { return ok() && overallOf(comparisons) == Overall::Pass; }

DeviceVerdict CaseResult::deviceVerdict() const {
    return ok() ? ops::deviceVerdict(comparisons, deviceArithmetic) : DeviceVerdict{};
}

std::string unknownOperatorMessage(const std::string& name) {
    std::string known;
    for (const Operator* op : allOperators())
        known += (known.empty() ? "" : ", ") + op->schema().name + " (" + op->schema().shortName + ")";
    return "unknown operator '" + name + "' (registered: " + (known.empty() ? "none" : known) + ")";
}

namespace {

// An enum attribute may be given by name ("bilinear"), as people write it.
ParamValue enumByName(const ArgSpec& spec, const ParamValue& v) {
    const auto* text = std::get_if<std::string>(&v);
    if (spec.kind != ArgKind::Enum || !text) return v;
    if (const std::optional<int64_t> value = enumValueByName(spec, *text)) return *value;
    throw ArgumentError("attribute '" + spec.name + "' is \"" + *text + "\", which is none of " + enumValuesText(spec));
}

}  // namespace

OpArguments bindArguments(const Operator& op, const cases::Case& c) {
    OpArguments args;
    for (const auto& [name, tensor] : c.inputs) args.tensors[name] = tensor;
    const auto& schemaAttrs = op.schema().attributes;
    for (const Param& p : c.params) {
        auto spec =
            std::find_if(schemaAttrs.begin(), schemaAttrs.end(), [&](const ArgSpec& a) { return a.name == p.name; });
        if (spec == schemaAttrs.end()) {
            if (c.origin == "trace") continue;  // recorded for information only (the run's dtype, ...)
            args.attributes[p.name] = p.value;  // withDefaults names the unknown attribute
            continue;
        }
        args.attributes[p.name] = enumByName(*spec, p.value);
    }
    return op.withDefaults(args);  // checks names, kinds and required tensors
}

cases::Case caseOfArguments(const Operator& op, const OpArguments& args, const std::string& path) {
    cases::Case c;
    c.path = path;
    c.op = op.schema().name;
    for (const auto& [name, tensor] : args.tensors) c.inputs.emplace_back(name, tensor);
    for (const auto& [name, value] : args.attributes) c.params.push_back({name, value});
    return c;
}

namespace {

// The case's stored outputs named `name`: a reference source against OpScope's output, any other
// source against the golden result. Informational only when the inputs were recast.
void judgeStoredSources(CaseResult& r, const cases::Case& c, const std::string& name, const HostTensor& out,
                        const HostTensor& golden, const metrics::Standard& standard, bool recast) {
    for (const cases::OutputSource& src : c.sources) {
        const HostTensor* t = src.find(name);
        if (!t) continue;
        const std::string informational = "inputs were cast from " + std::string(dtypeName(r.caseDtype)) + " to " +
                                          dtypeName(r.runDtype) + ", so " + src.name +
                                          "/ (from the stored inputs) is shown for information only";
        if (src.role == cases::SourceRole::Reference) {
            Comparison cmp = compareOutput(name, "opscope", out, src.name, *t, out.dtype(), standard);
            if (recast && cmp.compared) {
                cmp.judged = false;
                cmp.note = informational;
            }
            r.comparisons.push_back(std::move(cmp));
        } else {
            const DType d = isJudgedDtype(t->dtype()) ? t->dtype() : out.dtype();
            Comparison cmp = compareOutput(name, src.name, *t, kGolden, golden, d, standard);
            if (recast && cmp.compared) {
                cmp.judged = false;
                cmp.note = informational;
            }
            r.comparisons.push_back(std::move(cmp));
        }
    }
}

// Why a case could not run, worded by the kind of error.
std::string caseErrorText(const Error& e) {
    const std::string message = e.what();
    switch (e.kind()) {
        case ErrorKind::Status: {
            // aclGetRecentErrMsg() already starts with "[<code>] <api>: ".
            const int32_t code = static_cast<const StatusError&>(e).code();
            return "the operator rejected the case: " +
                   (message.rfind("[", 0) == 0 ? message : "[" + std::to_string(code) + "] " + message);
        }
        case ErrorKind::Usage:
            if (dynamic_cast<const ArgumentError*>(&e)) return "the case does not fit the operator: " + message;
            return message;
        case ErrorKind::Content:
        case ErrorKind::Io: return message;
    }
    return message;
}

}  // namespace

CaseResult runCase(const cases::Case& c, const std::string& file, const RunSettings& settings) {
    CaseResult r;
    r.file = file;
    r.path = c.path;
    r.op = c.op;
    r.origin = c.origin;
    r.description = c.description;
    try {
        const Operator* op = findOperator(c.op);
        if (!op) throw ContentError(unknownOperatorMessage(c.op));
        r.op = op->schema().name;
        const metrics::Standard standard =
            settings.standard ? *settings.standard : resolveStandard("", c.standard, op->schema().name);
        r.standard = standard.name;

        OpArguments args = bindArguments(*op, c);
        r.caseDtype = caseDtypeOf(*op, args);
        if (settings.dtype != DType::Undefined) args = op->castTo(args, settings.dtype);
        r.runDtype = caseDtypeOf(*op, args);
        const bool recast = settings.dtype != DType::Undefined && r.runDtype != r.caseDtype;

        auto start = Clock::now();
        std::unique_ptr<PreparedCall> call = op->prepare(args);
        call->runToEnd();
        r.runMs = msSince(start);
        start = Clock::now();
        const std::map<std::string, HostTensor> golden = op->reference(args, currentProduct());  // as prepare() ran
        r.goldenMs = msSince(start);

        for (const auto& [name, out] : call->outputs()) {
            r.outputs.push_back({name, out.dtype(), out.shape()});
            auto g = golden.find(name);
            if (g == golden.end()) {
                r.notes.push_back("the reference computed no '" + name + "'");
                continue;
            }
            r.comparisons.push_back(compareOutput(name, "opscope", out, kGolden, g->second, out.dtype(), standard));
            judgeStoredSources(r, c, name, out, g->second, standard, recast);
        }
        r.deviceArithmetic = deviceArithmetic(r.comparisons, *op, args, currentProduct(), c.sources, standard);
        // An output that could not be compared makes the case an error, as before (exit 2),
        // while every other comparison stays in the result.
        for (const Comparison& cmp : r.comparisons)
            if (!cmp.compared && r.error.empty()) r.error = cmp.note;
        for (const cases::OutputSource& src : c.sources)
            for (const auto& [name, t] : src.tensors)
                if (!call->output(name))
                    r.notes.push_back(src.name + "/" + name + " not compared: the run produced no output '" + name +
                                      "' (outputMask or the operator's outputs)");
    } catch (const Error& e) {
        r.error = caseErrorText(e);
    } catch (const std::bad_alloc&) {
        r.error = "out of memory while running the case";
    } catch (const std::exception& e) {
        r.error = std::string("internal error: ") + e.what();
    }
    return r;
}

}  // namespace opscope::ops
