// opscope-cli import msprobe: an msprobe dump folder -> a case file of its supported calls.
#include <chrono>
#include <iostream>
#include <thread>

#include "cli_common.h"
#include "progress_line.h"
#include "commands.h"
#include "stop_signals.h"
#include "opscope/import/format_error.h"
#include "opscope/import/msprobe.h"

namespace opscope::cli {

CommandSpec importMsprobeSpec() {
    return {"import msprobe",
            "import msprobe DIR -o OUT.h5 [--step S] [--rank R] [--jobs N] [--shard I/N]",
            "turn an msprobe dump (dump.json + tensor files) into cases judged against the device",
            "DIR is msprobe's dump_path (step*/rank*/), a step folder, or a rank or proc folder. Every backward call\n"
            "whose forward runs one of OpScope's operators becomes one case at /msprobe/<step>/<rank>/<call>:\n"
            "conv1d/2d/3d and conv_transpose1d/2d/3d (Functional., Torch., L0 Conv*d modules), group_norm\n"
            "(and GroupNorm modules), torch_npu's npu_rms_norm and 4-D grid_sample. The device's gradients are\n"
            "the source 'npu' (role actual); 'opscope-cli run OUT.h5' then says, per call, whether the device fails.\n"
            "Other APIs are skipped silently; supported calls that cannot be replayed are listed with the reason.\n"
            "See docs/MSPROBE.md.",
            {{"-o", "OUT.h5", false, "the case file to write (atomically; never over a file of the dump)"},
             {"--step", "S", false, "only this step (0 or step0)"},
             {"--rank", "R", false, "only this rank (0, rank0 or proc123)"},
             {"--jobs", "N", false, "threads reading tensor files (default: the number of cores)"},
             {"--shard", "I/N", false, "only the calls whose position % N == I (for a Slurm array or GNU parallel)"},
             {"--product", "ID", false,
              "the device the dump comes from: a2 (default), a3, training or inference; recorded in OUT.h5 for 'run'"},
             {"--conv-allow-hf32", "BOOL", false,
              "torch_npu.npu.conv.allow_hf32 of the run: true (torch_npu's default) or false; sets the convolutions' "
              "cubeMathType"},
             kProgressOption,
             {"--quiet", "", false, "print only the summary line"}},
            /*minPositionals=*/1,
            /*maxPositionals=*/1,
            "  opscope-cli import msprobe ./dump_path -o step0.h5\n"
            "  opscope-cli import msprobe ./dump_path --step 0 --rank 3 -o step0_rank3.h5\n"
            "  opscope-cli run step0.h5 --report step0.json\n"};
}

int runImportMsprobe(const ParsedArgs& a);  // below

Command importMsprobeCommand() { return {importMsprobeSpec(), runImportMsprobe}; }

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The summary line, and unless --quiet the assumption made for convolutions, the calls not
// imported and the read rate.
void printSummary(const import::msprobe::ImportSummary& s, const import::msprobe::ImportOptions& o,
                  const std::string& out, double seconds, bool quiet) {
    std::string folders;
    for (const auto& f : s.folders) folders += (folders.empty() ? "" : ", ") + f.label();
    std::cout << "imported " << s.imported.size() << " of " << s.supported << " supported call"
              << (s.supported == 1 ? "" : "s") << " from " << s.folders.size() << " dump folder"
              << (s.folders.size() == 1 ? "" : "s") << " (" << folders << ")"
              << (o.shardCount > 1
                      ? " [shard " + std::to_string(o.shardIndex) + "/" + std::to_string(o.shardCount) + "]"
                      : "")
              << " into " << out << "\n";
    if (!quiet) {
        // The assumptions a dump cannot confirm, said where the user sees them.
        std::cout << "device: " << productName(o.device.product)
                  << (s.written ? ", recorded in the file: 'run' emulates it" : "")
                  << " (--product for a dump of another device)\n";
        const std::string mismatch = import::msprobe::deviceMismatch(s, o.device);
        if (!mismatch.empty()) std::cout << "warning: " << mismatch << "\n";
        if (s.convolutions > 0)
            std::cout << "convolutions: float32 ones replayed with " << import::msprobe::convolutionArithmetic(o.device)
                      << "; --conv-allow-hf32 names the run's torch_npu.npu.conv.allow_hf32\n";
        const std::string folded = import::msprobe::foldedModulesNote(s);
        if (!folded.empty()) std::cout << "note: " << folded << "\n";
        if (!s.skipped.empty()) std::cout << "not imported:\n";
        for (const auto& k : s.skipped) std::cout << "  " << k.call << ": " << k.reason << "\n";
        std::cout << "read " << formatBytes(s.tensorBytes) << " of tensor files in " << formatNumber(seconds, 3)
                  << " s (" << formatNumber(seconds > 0 ? static_cast<double>(s.tensorBytes) / 1e6 / seconds : 0, 3)
                  << " MB/s, " << o.jobs << " job" << (o.jobs == 1 ? "" : "s") << ")\n";
    }
}

}  // namespace

int runImportMsprobe(const ParsedArgs& a) {
    const std::string out = requiredOutput(a, "import msprobe", "OUT.h5 (the case file to write)", ".h5");
    import::msprobe::ImportOptions o;
    o.step = a.valueOr("--step", "");
    o.rank = a.valueOr("--rank", "");
    o.jobs = a.has("--jobs") ? parseJobs(a.value("--jobs"))
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (a.has("--shard")) parseShard(a.value("--shard"), &o.shardIndex, &o.shardCount);
    if (a.has("--product")) o.device.product = parseProductOption(a.value("--product"));
    if (a.has("--conv-allow-hf32")) {
        const std::optional<bool> allow = parseTrueFalse(a.value("--conv-allow-hf32"));
        if (!allow)
            throw CliError("--conv-allow-hf32 must be true or false, got '" + a.value("--conv-allow-hf32") + "'");
        o.device.convAllowHf32 = *allow;
    }
    checkOutputPath(out, {}, "-o");
    ProgressLine progress(a, 100);
    if (progress.enabled())
        o.progress = [&progress](std::size_t done, std::size_t total) { progress.step(done, total, "importing"); };
    // Ctrl-C stops the import within a few calls and leaves no half-written file behind.
    const StopSignals signals;
    o.cancelled = [] { return StopSignals::received() != 0; };
    const auto start = std::chrono::steady_clock::now();
    import::msprobe::ImportSummary s;
    try {
        s = import::msprobe::importDump(a.positionals[0], out, o);
    } catch (const import::FormatError& e) {
        progress.clear();
        throw CliError(e.what());
    } catch (const std::runtime_error& e) {
        progress.clear();
        throw CliError(std::string("cannot write '") + out + "': " + e.what());
    }
    const double seconds = secondsSince(start);
    progress.clear();
    if (s.cancelled) {
        std::cerr << "interrupted after " << s.imported.size() << " of " << s.supported << " calls: nothing written\n";
        StopSignals::dieOfReceived();
        throw CliError("interrupted");
    }

    printSummary(s, o, out, seconds, a.has("--quiet"));
    if (!s.written)
        throw CliError("none of the " + std::to_string(s.supported) + " supported calls could be imported" +
                       (s.skipped.empty()
                            ? std::string(" (the dump has no call of conv* (torch, torch_npu), group_norm, "
                                          "npu_rms_norm, grid_sample or their aten backward ops)")
                            : ""));
    return kExitPass;
}

}  // namespace opscope::cli
