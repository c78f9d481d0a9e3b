// opscope-cli compare: every metric between two tensors of any HDF5 files, and a verdict.
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli_common.h"
#include "compare_tensor_sets.h"
#include "commands.h"
#include "opscope/json_writer.h"
#include "opscope/metric_fields.h"
#include "opscope/metrics.h"
#include "opscope/names.h"
#include "opscope/ops/evaluation.h"
#include "report.h"

namespace opscope::cli {

CommandSpec compareSpec() {
    return {"compare",
            "compare ACTUAL REFERENCE [--dtype DTYPE] [--standard NAME] [--json] [--progress]",
            "metrics and a verdict between two tensors (an output and its reference)",
            "Each tensor is FILE.h5:/path/to/dataset, or a numpy, PyTorch or safetensors file: FILE.npy,\n"
            "FILE.npz:KEY, FILE.pt (a tensor, or FILE.pt:KEY of a dict of tensors, as msprobe dumps them),\n"
            "FILE.safetensors:KEY (a Hugging Face checkpoint: only that tensor's bytes are read).\n"
            "The reference is rounded to the output dtype before comparing. The output dtype is --dtype,\n"
            "else the actual tensor's dtype (float32 for non-floating tensors); it picks the thresholds.\n"
            "The element counts must agree; shapes may differ ([C] against [1, C]). Two tensors over 64 MiB\n"
            "of the same shape are compared a band of each at a time, to the same metrics.\n"
            "Two sets of tensors (two files of several tensors, two checkpoints or state dicts, or two HDF5\n"
            "groups FILE.h5:/group) compare key by key, two tensors in memory at a time: one row per key,\n"
            "each in its own dtype; a key one set lacks fails the run. Two folders (an NPU run's msprobe\n"
            "dump_tensor_data against a GPU run's) compare their tensor files by relative path; a file\n"
            "that cannot be read is an error (exit 2) and the others go on. Progress ([done/total] key) goes to\n"
            "stderr on a terminal, or with --progress.",
            {{"--dtype", "DTYPE", false, "output dtype that picks the thresholds and the rounding"},
             {"--standard", "NAME", false, "cann (default), dual-thousandth, msprobe-legacy or rtol=X,atol=Y"},
             kJsonOption,
             kProgressOption},
            /*minPositionals=*/2,
            /*maxPositionals=*/2,
            "  opscope-cli compare npu_dump.h5:/gradInput expected.h5:/case/expected/gradInput --dtype fp16\n"
            "  opscope-cli compare Functional.conv2d.0.backward.output.0.pt golden_grad_input.npy\n"
            "  opscope-cli compare npu_step100.safetensors gpu_step100.safetensors\n"};
}

int runCompare(const ParsedArgs& a);  // below

Command compareCommand() { return {compareSpec(), runCompare}; }

namespace {

std::string at(const metrics::ElementRef& e) {
    if (e.index < 0) return "-";
    std::string c;
    for (std::size_t i = 0; i < e.coords.size(); ++i) c += (i ? ", " : "") + std::to_string(e.coords[i]);
    return "[" + c + "] (actual " + formatNumber(e.actual, 7) + ", reference " + formatNumber(e.reference, 7) + ")";
}

}  // namespace

int runCompare(const ParsedArgs& a) {
    const std::string& actualRef = a.positionals[0];
    const std::string& referenceRef = a.positionals[1];
    const metrics::Standard standard = metrics::parseStandard(a.valueOr("--standard", "cann"));  // UsageError: exit 2
    const DType forced = a.has("--dtype") ? parseFloatDtype(a.value("--dtype")) : DType::Undefined;
    std::error_code ec;
    const bool folderA = std::filesystem::is_directory(actualRef, ec),
               folderB = std::filesystem::is_directory(referenceRef, ec);
    if (folderA != folderB)
        throw CliError("'" + (folderA ? actualRef : referenceRef) +
                       "' is a folder: compare it with another folder of tensor files");
    const std::optional<ops::TensorSet> actualSet = tensorSetOf(actualRef);
    const std::optional<ops::TensorSet> referenceSet = actualSet ? tensorSetOf(referenceRef) : std::nullopt;
    if (actualSet && referenceSet) {
        if (forced != DType::Undefined)
            throw CliError("--dtype applies to one tensor; two sets of tensors compare each in its own");
        return compareTensorSets(a, *actualSet, *referenceSet, standard);
    }
    // Opened, not read: a pair over a band each (ops::kCompareBandBytes) is compared in bands.
    const ops::TensorHandle actual = openTensorArgument(actualRef, "the actual tensor");
    const ops::TensorHandle reference = openTensorArgument(referenceRef, "the reference tensor");
    const DType outputDtype = forced != DType::Undefined     ? forced
                              : isFloatingType(actual.dtype) ? actual.dtype
                                                             : DType::Float32;
    const ops::Comparison c =
        *ops::compareTensors("", actualRef, actual, referenceRef, reference, outputDtype, standard);
    if (!c.compared) throw CliError(c.note);
    const metrics::ComparisonMetrics& m = c.metrics;
    const metrics::Judgement& j = c.judgement;
    const int code = j.passed() ? kExitPass : kExitFail;

    if (a.has("--json")) {
        JsonWriter w(std::cout);
        w.beginObject().field("command", "compare");
        w.key("actual").beginObject().field("ref", actualRef).field("dtype", dtypeName(actual.dtype));
        w.field("shape", actual.shape).endObject();
        w.key("reference").beginObject().field("ref", referenceRef).field("dtype", dtypeName(reference.dtype));
        w.field("shape", reference.shape).endObject();
        w.key("comparison");
        ops::writeComparisonJson(w, c);
        w.field("exit_code", code).endObject();
        w.finish();
        return code;
    }
    auto row = [](const std::string& k, const std::string& v) {
        std::cout << k << std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') << v << "\n";
    };
    row("actual", actualRef + "  " + tensorText(actual.dtype, actual.shape));
    row("reference",
        referenceRef + "  " + tensorText(reference.dtype, reference.shape) +
            (reference.dtype != outputDtype ? "  (rounded to " + std::string(dtypeName(outputDtype)) + ")" : ""));
    for (const metrics::MetricField& f : metrics::metricFields())
        if (f.value(m) || f.format != metrics::FieldFormat::Count) row(lowerCase(f.label), formatMetric(f, m));
    for (const metrics::ElementField& f : metrics::elementFields()) row(lowerCase(f.label), at(f.element(m)));
    row("verdict", std::string(metrics::verdictName(j.verdict)) + " (" + j.standard + "): " + j.reason);
    return code;
}

}  // namespace opscope::cli
