#!/usr/bin/python3
"""OpScope against PyTorch on the same machine, in the same run, with the same thread count.

Runs the Google Benchmark program (build/release/bench/opscope_bench) one workload at a time
(so each one's peak memory is its own), then the PyTorch peer of each workload, and prints
one table: OpScope ms, PyTorch ms, ratio (OpScope / PyTorch), achieved GB/s next to the
STREAM-like copy measured in this run, and peak memory next to inputs + outputs + workspace.

Needs Debian's python3-torch (run with /usr/bin/python3); exits cleanly without it.
Then it measures what OPSCOPE_TRACE at level metadata costs each workload.

Usage: bench/compare_torch.py [--threads 2] [--bench PATH] [--repeat 20] [--filter REGEX]
                              [--workload NAME]... [--runs 5] [--baseline PATH] [--skip-peer REGEX]
                              [--peer-allocations 3]
                              [--trace-rounds 7] [--trace-filter REGEX]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MB = 1e6


def conv_workload(name, x, out_channels, kernel, stride, pad, groups=1, transposed=False):
    return dict(name=name, x=x, out=out_channels, kernel=kernel, stride=stride, pad=pad, groups=groups,
                transposed=transposed)


# Issue 14's layer shapes: the same table as bench/conv_workloads.h (checked through each
# benchmark's GFLOP counter, see check_flops).
CONV_WORKLOADS = [
    conv_workload("today_3x3", [8, 64, 56, 56], 64, [3, 3], [1, 1], [1, 1]),
    conv_workload("resnet_1x1", [8, 256, 56, 56], 64, [1, 1], [1, 1], [0, 0]),
    conv_workload("resnet_3x3_s2", [8, 128, 56, 56], 128, [3, 3], [2, 2], [1, 1]),
    conv_workload("stem_7x7_s2", [8, 3, 224, 224], 64, [7, 7], [2, 2], [3, 3]),
    conv_workload("depthwise_3x3", [8, 128, 56, 56], 128, [3, 3], [1, 1], [1, 1], groups=128),
    conv_workload("conv1d_k3", [8, 256, 1024], 256, [3], [1], [1]),
    conv_workload("conv3d_k3", [2, 32, 16, 32, 32], 32, [3, 3, 3], [1, 1, 1], [1, 1, 1]),
    conv_workload("transposed_4x4_s2", [8, 128, 28, 28], 64, [4, 4], [2, 2], [1, 1], transposed=True),
]


def conv_shapes(wl):
    """(input, weight, gradOutput) shapes of a workload."""
    n, c = wl["x"][0], wl["x"][1]
    w = [c, wl["out"] // wl["groups"]] if wl["transposed"] else [wl["out"], c // wl["groups"]]
    dy = [n, wl["out"]]
    for i, k, s, p in zip(wl["x"][2:], wl["kernel"], wl["stride"], wl["pad"]):
        w.append(k)
        dy.append((i - 1) * s - 2 * p + k if wl["transposed"] else (i + 2 * p - k) // s + 1)
    return wl["x"], w, dy


def prod(v):
    out = 1
    for e in v:
        out *= e
    return out


def conv_gflop(wl):
    """The gradInput and gradWeight GEMMs' flops (as bench/conv_workloads.h gemmFlops)."""
    x, _, dy = conv_shapes(wl)
    small, big = (x, dy) if wl["transposed"] else (dy, x)
    return 2 * 2.0 * prod(small) * prod(wl["kernel"]) * (big[1] // wl["groups"]) / 1e9


def workload_of(name):
    parts = name.split("/")
    return next((wl for wl in CONV_WORKLOADS if len(parts) == 3 and wl["name"] == parts[1]), None)


def torch_peers(torch):
    """PyTorch calls for each OpScope benchmark, by benchmark name. Each entry returns a
    zero-argument callable (inputs built once, outside the timing)."""
    F = torch.nn.functional

    def group_norm(dtype):
        N, C, H, W, G = 8, 320, 64, 64, 32
        x = torch.randn(N, C, H, W, dtype=dtype)
        dy = torch.randn(N, C, H, W, dtype=dtype)
        mean = torch.randn(N, G, dtype=dtype)
        rstd = torch.rand(N, G, dtype=dtype) + 0.5
        gamma = torch.rand(C, dtype=dtype)
        return lambda: torch.ops.aten.native_group_norm_backward(dy, x, mean, rstd, gamma, N, C, H * W, G,
                                                                [True, True, True])

    def rms_norm(dtype):
        x = torch.randn(4096, 4096, dtype=dtype, requires_grad=True)
        g = torch.rand(4096, dtype=dtype, requires_grad=True)
        dy = torch.randn(4096, 4096, dtype=dtype)

        def run():
            y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * g
            torch.autograd.grad(y, (x, g), dy)
        return run

    def conv(wl, dtype):
        x_shape, w_shape, dy_shape = conv_shapes(wl)
        x = torch.randn(*x_shape, dtype=dtype)
        w = torch.randn(*w_shape, dtype=dtype) * 0.1
        dy = torch.randn(*dy_shape, dtype=dtype)
        spatial = len(wl["kernel"])
        return lambda: torch.ops.aten.convolution_backward(dy, x, w, [dy_shape[1]], wl["stride"], wl["pad"],
                                                           [1] * spatial, wl["transposed"], [0] * spatial,
                                                           wl["groups"], [True, True, True])

    def grid_sampler(dtype):
        inp = torch.randn(8, 32, 64, 64, dtype=dtype)
        grid = torch.rand(8, 64, 64, 2, dtype=dtype) * 2.2 - 1.1
        dy = torch.randn(8, 32, 64, 64, dtype=dtype)
        return lambda: torch.ops.aten.grid_sampler_2d_backward(dy, inp, grid, 0, 0, False, [True, True])

    f32, bf16 = torch.float32, torch.bfloat16
    peers = {}
    for wl in CONV_WORKLOADS:
        for code, dtype in (("0", f32), ("27", bf16)):
            # PyTorch 1.13's oneDNN refuses a bf16 transposed convolution here ("could not create a
            # descriptor") and its fallback has no bf16 kernel: its fp32 is the peer, as for grid_sampler.
            dtype = f32 if wl["transposed"] else dtype
            peers["BM_ConvolutionBackward/%s/%s" % (wl["name"], code)] = (lambda wl=wl, dtype=dtype: conv(wl, dtype))
    return dict(peers, **{
        "BM_GroupNormBackward/0": lambda: group_norm(f32),
        "BM_GroupNormBackward/27": lambda: group_norm(bf16),
        "BM_RmsNormGrad/0": lambda: rms_norm(f32),
        "BM_RmsNormGrad/27": lambda: rms_norm(bf16),
        # PyTorch's CPU grid sampler has no fp16/bf16 kernels: fp32 is the peer of all three.
        "BM_GridSampler2DBackward/0": lambda: grid_sampler(f32),
        "BM_GridSampler2DBackward/1": lambda: grid_sampler(f32),
        "BM_GridSampler2DBackward/27": lambda: grid_sampler(f32),
    })


def list_benchmarks(bench):
    out = subprocess.run([bench, "--benchmark_list_tests"], capture_output=True, text=True, check=True).stdout
    return [re.sub(r"/real_time$", "", line.strip()) for line in out.splitlines() if line.strip()]


def time_peer(make, repeat, allocations):
    """The PyTorch peer on `allocations` fresh sets of tensors (each built by make(), the previous
    one freed first): (wall ms, CPU ms) of the fastest set, and the slowest set's wall ms.
    oneDNN's convolution backward keeps one speed per set of buffers but that speed depends on
    where they land: today's 3x3 read 13.1-32 ms over 14 sets on one machine (bench/README.md,
    ninth session). The fastest of a few is the peer at its best, whatever the allocator did."""
    best, worst = None, None
    for _ in range(max(1, allocations)):
        fn = make()
        wall, cpu = time_torch(fn, repeat)
        del fn
        best = (wall, cpu) if best is None or wall < best[0] else best
        worst = wall if worst is None else max(worst, wall)
    return best[0], best[1], worst


def time_torch(fn, repeat):
    """(median wall ms, median process CPU ms) of `repeat` calls after 3 warm-ups."""
    for _ in range(3):
        fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return median(wall) * 1e3, median(cpu) * 1e3


def run_benchmark(args, name, extra_env=None, bench=None):
    """One benchmark in its own process (`bench`, else args.bench); returns (Google Benchmark's
    JSON record, rusage). Another build's program finds its libraries beside it."""
    env = dict(os.environ, OPSCOPE_NUM_THREADS=str(args.threads))
    env.pop("OPSCOPE_TRACE", None)
    env.update(extra_env or {})
    if bench:
        env["LD_LIBRARY_PATH"] = os.path.dirname(os.path.abspath(bench))
    cmd = [bench or args.bench, "--benchmark_filter=^" + re.escape(name) + "(/real_time)?$", "--benchmark_format=json",
           "--benchmark_min_time=%g" % args.min_time]
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)  # rusage of this child alone
        if status != 0:
            err.seek(0)
            print("%s: benchmark process failed (status %d): %s" % (name, status, err.read().decode()[-400:]),
                  file=sys.stderr)
            return None, None
    b = json.loads(out)["benchmarks"][0]
    if b.get("error_occurred"):
        print("%s: %s" % (name, b.get("error_message")), file=sys.stderr)
        return None, None
    return b, usage


def benchmark_ms(b):
    return b["real_time"] * {"ms": 1.0, "us": 1e-3, "ns": 1e-6, "s": 1e3}[b["time_unit"]]


def trace_cost(args, rows, per_executor):
    """The cost of OPSCOPE_TRACE at level metadata, two ways. Wall clock: each workload
    alternately without and with the trace, --trace-rounds times, in fresh processes; the cost
    is the median over the rounds of traced/plain - 1 within each round (a round's two runs are
    adjacent in time, so the machine's drift cancels, and the median drops the round that one
    burst of other load spoiled). CPU: what
    one traced executor costs in CPU time (BM_TraceCostPerExecutor: capture + background writer,
    every thread counted) over the workload's plain time: noise-free, and an upper bound on
    the slowdown even when the writer competes with the kernels for the cores."""
    cpu_us = None
    if "plain" in per_executor and "traced, background" in per_executor:
        cpu_us = per_executor["traced, background"] - per_executor["plain"]
        sync_us = per_executor.get("traced, synchronous", per_executor["plain"]) - per_executor["plain"]
        print("Tracing at level metadata costs %.1f us of CPU per executor with the background writer "
              "(%.1f us with OPSCOPE_TRACE_SYNC=1), measured by BM_TraceCostPerExecutor in this run." % (cpu_us, sync_us))
    print("Tracing cost per workload (wall: median of %d rounds of adjacent plain and traced runs)" % args.trace_rounds)
    hdr = "%-30s %-5s %10s %10s %9s %9s %10s %11s" % ("benchmark", "dtype", "plain ms", "traced ms", "wall",
                                                      "CPU", "executors", "bytes/exec")
    print(hdr)
    print("-" * len(hdr))
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.h5")
        for r in rows:
            plain, traced, executors, size = [], [], 0, 0
            for _ in range(args.trace_rounds):
                b, _ = run_benchmark(args, r["name"])
                t, _ = run_benchmark(args, r["name"], {"OPSCOPE_TRACE": trace, "OPSCOPE_TRACE_LEVEL": "metadata"})
                if b is None or t is None:
                    break
                plain.append(benchmark_ms(b))
                traced.append(benchmark_ms(t))
                executors, size = count_executors(trace), os.path.getsize(trace)
            if not plain:
                continue
            ratios = sorted(t / p for p, t in zip(plain, traced))
            cost = ratios[len(ratios) // 2] - 1 if len(ratios) % 2 else \
                (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2 - 1
            p, t = sorted(plain)[len(plain) // 2], sorted(traced)[len(traced) // 2]
            cpu = "%.2f%%" % (100 * cpu_us / (1000 * p)) if cpu_us is not None else "-"
            print("%-30s %-5s %10.2f %10.2f %8.1f%% %9s %10s %11s" % (
                r["name"], r["label"], p, t, 100 * cost, cpu, executors or "-",
                "%.0f" % (size / executors) if executors else "-"))
    print("plain/traced ms: medians; wall = median of the rounds' traced / plain - 1 (noisy: a shared machine "
          "moves single runs by several %); "
          "CPU = tracing CPU per executor / plain time. Target: at most 5%.")


def count_executors(path):
    try:
        import h5py
    except ImportError:
        return 0
    with h5py.File(path, "r") as f:
        return len(f["executors"])


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def measure_once(args, names, peers):
    """One interleaved run: each workload's OpScope process, then its PyTorch peer, in turn."""
    rows, yard = [], dict(copy_gbs=None, peak={}, per_executor={})
    for name in names:
        b, usage = run_benchmark(args, name)
        if b is None:
            continue
        ms = benchmark_ms(b)
        gbs = b.get("bytes_per_second", 0) / 1e9
        if name.startswith("BM_StreamCopy"):
            yard["copy_gbs"] = gbs
            continue
        if name.startswith("BM_PeakFma"):
            yard["peak"][b.get("label", "")] = b.get("items_per_second", 0) / 1e9
            continue
        if name.startswith("BM_TraceCostPerExecutor"):
            yard["per_executor"][b.get("label", "")] = b.get("cpu_us", 0.0)  # CPU us per executor
            continue
        check_flops(name, b)
        base = run_benchmark(args, name, bench=args.baseline)[0] if args.baseline else None
        with_peer = name in peers and not (args.skip_peer and re.search(args.skip_peer, name))
        torch_ms, torch_cpu, torch_worst = (time_peer(peers[name], args.repeat, args.peer_allocations) if with_peer
                                            else (None, None, None))
        rows.append(dict(name=name, label=b.get("label", ""), ms=ms, torch_ms=torch_ms, gbs=gbs, gflop=b.get("GFLOP"),
                         cpu_ms=b.get("cpu_ms"), torch_cpu=torch_cpu, torch_worst=torch_worst,
                         base_ms=benchmark_ms(base) if base else None, base_cpu=base.get("cpu_ms") if base else None,
                         peak_mb=b.get("peak_MB", usage.ru_maxrss / 1024.0), data_mb=b.get("data_MB", 0.0),
                         ws_mb=b.get("workspace_MB", 0.0)))
    return rows, yard


def check_flops(name, b):
    wl = workload_of(name)
    if wl and abs(b.get("GFLOP", 0) - conv_gflop(wl)) > 1e-6 * conv_gflop(wl):
        sys.exit("compare_torch.py: %s: the benchmark's shapes (%.4f GFLOP) differ from CONV_WORKLOADS (%.4f)" %
                 (name, b.get("GFLOP", 0), conv_gflop(wl)))


def peak_of(r, yard):
    # bf16 GEMMs run on the faster of vdpbf16ps and float32 FMAs (packed_gemm.h, Bf16Engine):
    # their peak is the higher of the two.
    peaks = yard["peak"]
    if r["label"] == "bf16":
        return max([v for v in (peaks.get("bf16"), peaks.get("fp32")) if v] or [0]) or None
    return peaks.get(r["label"]) or peaks.get("fp32")


def print_table(args, torch, rows, yard, run, load_before):
    copy_gbs = yard["copy_gbs"]
    print("run %d  threads=%d  torch=%s  load %s -> %s  copy bandwidth (STREAM-like): %s  peak FMA: %s" %
          (run, args.threads, torch.__version__, load_before, load(), "%.1f GB/s" % copy_gbs if copy_gbs else "n/a",
           ", ".join("%s %.0f GFLOP/s" % kv for kv in sorted(yard["peak"].items())) or "n/a"))
    fp32_ms = {r["name"].rsplit("/", 1)[0]: r["ms"] for r in rows if r["label"] == "fp32"}
    hdr = "%-42s %-5s %10s %10s %9s %7s %7s %8s %9s %7s %8s %6s %9s %12s" % (
        "benchmark", "dtype", "OpScope ms", "PyTorch ms", "PT worst", "ratio", "CPU r.", "x fp32", "GB/s", "%copy",
        "GFLOP/s", "%peak", "peak MB", "in+out+ws MB")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        ratio = "%.2f" % (r["ms"] / r["torch_ms"]) if r["torch_ms"] else "-"
        tms = "%.2f" % r["torch_ms"] if r["torch_ms"] else "-"
        worst = "%.2f" % r["torch_worst"] if r.get("torch_worst") else "-"
        pct = "%.0f%%" % (100 * r["gbs"] / copy_gbs) if copy_gbs and r["gbs"] else "-"
        gbs = "%.1f" % r["gbs"] if r["gbs"] else "-"
        need = r["data_mb"] + r["ws_mb"]
        base = fp32_ms.get(r["name"].rsplit("/", 1)[0])
        own = "%.2f" % (r["ms"] / base) if base and r["label"] != "fp32" else "-"
        gflops = r["gflop"] / r["ms"] * 1e3 if r["gflop"] else None
        peak = peak_of(r, yard)
        print("%-42s %-5s %10.2f %10s %9s %7s %7s %8s %9s %7s %8s %6s %9.0f %12s" % (
            r["name"], r["label"], r["ms"], tms, worst, ratio, "%.2f" % cpu_ratio(r) if cpu_ratio(r) else "-", own, gbs, pct, "%.1f" % gflops if gflops else "-",
            "%.0f%%" % (100 * gflops / peak) if gflops and peak else "-", r["peak_mb"],
            "%.0f" % need if need else "-"))
    for r in rows:
        if r.get("base_ms"):
            print("  baseline %-32s %8.2f ms  CPU %8.2f ms" % (r["name"], r["base_ms"], r["base_cpu"] or 0))
    print("PyTorch ms = the fastest of --peer-allocations (%d) fresh sets of the peer's tensors, PT worst = the "
          "slowest; " % args.peer_allocations +
          "ratio = OpScope / PyTorch (PyTorch has no fp16/bf16 CPU grid sampler nor bf16 transposed convolution: "
          "its fp32 is the peer); "
          "CPU r. = the same for process CPU time per call (every thread; steadier on a loaded machine); "
          "x fp32 = OpScope time / OpScope fp32 time; %peak = GFLOP/s over BM_PeakFma of the same dtype (bf16: the higher of its\n"
          "vdpbf16ps and fp32 FMA rates, the bf16 GEMM running on the faster)")
    print()


def cpu_ratio(r):
    return r["cpu_ms"] / r["torch_cpu"] if r.get("cpu_ms") and r.get("torch_cpu") else None


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def print_summary(runs):
    """Median and range over the runs of each benchmark's times and ratios (and the baseline's)."""
    print("Summary over %d interleaved runs: median [min - max]" % len(runs))
    hdr = "%-42s %-5s %20s %20s %18s %18s %18s %18s" % ("benchmark", "dtype", "OpScope ms", "PyTorch ms", "ratio",
                                                       "CPU ratio", "baseline ratio", "baseline CPU r.")
    print(hdr)
    print("-" * len(hdr))

    def spread(values):
        return "%.2f [%.2f-%.2f]" % (median(values), min(values), max(values)) if values else "-"

    for r0 in runs[0]:
        same = [r for rows in runs for r in rows if r["name"] == r0["name"]]
        peer = [r for r in same if r["torch_ms"]]
        print("%-42s %-5s %20s %20s %18s %18s %18s %18s" % (
            r0["name"], r0["label"], spread([r["ms"] for r in same]), spread([r["torch_ms"] for r in peer]),
            spread([r["ms"] / r["torch_ms"] for r in peer]), spread([cpu_ratio(r) for r in peer if cpu_ratio(r)]),
            spread([r["base_ms"] / r["torch_ms"] for r in peer if r.get("base_ms")]),
            spread([r["base_cpu"] / r["torch_cpu"] for r in peer if r.get("base_cpu") and r["torch_cpu"]])))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bench", default=os.path.join(HERE, "..", "build", "release", "bench", "opscope_bench"))
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--filter", default=".")
    ap.add_argument("--workload", action="append", default=[],
                    help="only this convolution workload (repeatable): %s; the yardsticks still run" %
                    ", ".join(wl["name"] for wl in CONV_WORKLOADS))
    ap.add_argument("--baseline", help="another build's opscope_bench (e.g. before a change), run beside each workload")
    ap.add_argument("--skip-peer", help="benchmarks (regex) whose PyTorch peer is not timed (RMSNorm autograd is slow)")
    ap.add_argument("--runs", type=int, default=1, help="interleaved OpScope/PyTorch runs (>= 5 for a table)")
    ap.add_argument("--peer-allocations", type=int, default=3,
                    help="fresh sets of tensors the PyTorch peer is timed on in each run; its fastest is the peer's time")
    ap.add_argument("--trace-rounds", type=int, default=7,
                    help="alternating plain/traced runs per workload for the tracing-cost table (0: skip it)")
    ap.add_argument("--trace-filter", default="^(?!BM_ConvolutionBackward/(?!today_3x3/)).*/(0|1|27)$",
                    help="workloads of the tracing-cost table (of the convolutions, today_3x3 only)")
    args = ap.parse_args()

    try:
        import torch
    except ImportError:
        print("compare_torch.py: PyTorch is not installed (Debian: apt-get install python3-torch; run this script "
              "with /usr/bin/python3). Nothing to compare; exiting.")
        return 0
    if not os.path.exists(args.bench):
        print("compare_torch.py: %s not found; build first (scripts/setup.sh)" % args.bench, file=sys.stderr)
        return 2
    unknown = set(args.workload) - {wl["name"] for wl in CONV_WORKLOADS}
    if unknown:
        print("compare_torch.py: unknown --workload %s" % ", ".join(sorted(unknown)), file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    peers = torch_peers(torch)

    def wanted(n):
        if n.startswith(("BM_StreamCopy", "BM_PeakFma")):
            return True
        if args.workload:
            return any(n.startswith("BM_ConvolutionBackward/%s/" % w) for w in args.workload)
        return re.search(args.filter, n) is not None

    names = [n for n in list_benchmarks(args.bench) if wanted(n)]
    runs = []
    for run in range(1, args.runs + 1):
        before = load()
        rows, yard = measure_once(args, names, peers)
        print_table(args, torch, rows, yard, run, before)
        runs.append(rows)
    if args.runs > 1:
        print_summary(runs)
    if args.trace_rounds > 0:
        trace_cost(args, [r for r in runs[-1] if re.search(args.trace_filter, r["name"])], yard["per_executor"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
