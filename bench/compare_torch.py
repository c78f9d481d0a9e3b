#!/usr/bin/python3
"""OpScope against PyTorch on the same machine, in the same run, with the same thread count.

Runs the Google Benchmark program (build/release/bench/opscope_bench) one workload at a time
(so each one's peak memory is its own), then the PyTorch peer of each workload, and prints
one table: OpScope ms, PyTorch ms, ratio (OpScope / PyTorch), achieved GB/s next to the
STREAM-like copy measured in this run, and peak memory next to inputs + outputs + workspace.

Needs Debian's python3-torch (run with /usr/bin/python3); exits cleanly without it.
Then it measures what OPSCOPE_TRACE at level metadata costs each workload.

Usage: bench/compare_torch.py [--threads 2] [--bench PATH] [--repeat 20] [--filter REGEX]
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

    def conv(dtype):
        x = torch.randn(8, 64, 56, 56, dtype=dtype)
        w = torch.randn(64, 64, 3, 3, dtype=dtype)
        dy = torch.randn(8, 64, 56, 56, dtype=dtype)
        return lambda: torch.ops.aten.convolution_backward(dy, x, w, [64], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                           [True, True, True])

    def grid_sampler(dtype):
        inp = torch.randn(8, 32, 64, 64, dtype=dtype)
        grid = torch.rand(8, 64, 64, 2, dtype=dtype) * 2.2 - 1.1
        dy = torch.randn(8, 32, 64, 64, dtype=dtype)
        return lambda: torch.ops.aten.grid_sampler_2d_backward(dy, inp, grid, 0, 0, False, [True, True])

    f32, bf16 = torch.float32, torch.bfloat16
    return {
        "BM_GroupNormBackward/0": lambda: group_norm(f32),
        "BM_GroupNormBackward/27": lambda: group_norm(bf16),
        "BM_RmsNormGrad/0": lambda: rms_norm(f32),
        "BM_RmsNormGrad/27": lambda: rms_norm(bf16),
        "BM_ConvolutionBackward/0": lambda: conv(f32),
        "BM_ConvolutionBackward/27": lambda: conv(bf16),
        # PyTorch's CPU grid sampler has no fp16/bf16 kernels: fp32 is the peer of all three.
        "BM_GridSampler2DBackward/0": lambda: grid_sampler(f32),
        "BM_GridSampler2DBackward/1": lambda: grid_sampler(f32),
        "BM_GridSampler2DBackward/27": lambda: grid_sampler(f32),
    }


def list_benchmarks(bench):
    out = subprocess.run([bench, "--benchmark_list_tests"], capture_output=True, text=True, check=True).stdout
    return [re.sub(r"/real_time$", "", line.strip()) for line in out.splitlines() if line.strip()]


def time_torch(fn, repeat):
    for _ in range(3):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2] * 1e3  # median, ms


def run_benchmark(args, name, extra_env=None):
    """One benchmark in its own process; returns (Google Benchmark's JSON record, rusage)."""
    env = dict(os.environ, OPSCOPE_NUM_THREADS=str(args.threads))
    env.pop("OPSCOPE_TRACE", None)
    env.update(extra_env or {})
    cmd = [args.bench, "--benchmark_filter=^" + re.escape(name) + "(/real_time)?$", "--benchmark_format=json",
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bench", default=os.path.join(HERE, "..", "build", "release", "bench", "opscope_bench"))
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--filter", default=".")
    ap.add_argument("--trace-rounds", type=int, default=7,
                    help="alternating plain/traced runs per workload for the tracing-cost table (0: skip it)")
    ap.add_argument("--trace-filter", default="/0$|/1$|/27$", help="workloads of the tracing-cost table")
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
    torch.set_num_threads(args.threads)
    peers = torch_peers(torch)

    names = [n for n in list_benchmarks(args.bench) if re.search(args.filter, n)]
    rows = []
    copy_gbs = None
    per_executor = {}  # BM_TraceCostPerExecutor: CPU us per executor, by label
    for name in names:
        b, usage = run_benchmark(args, name)
        if b is None:
            continue
        ms = benchmark_ms(b)
        peak_mb = b.get("peak_MB", usage.ru_maxrss / 1024.0)  # VmHWM of the benchmark process
        gbs = b.get("bytes_per_second", 0) / 1e9
        if name.startswith("BM_StreamCopy"):
            copy_gbs = gbs
            continue
        if name.startswith("BM_TraceCostPerExecutor"):
            per_executor[b.get("label", "")] = b.get("cpu_us", 0.0)
            continue
        torch_ms = None
        if name in peers:
            torch_ms = time_torch(peers[name](), args.repeat)
        rows.append(dict(name=name, label=b.get("label", ""), ms=ms, torch_ms=torch_ms, gbs=gbs,
                         peak_mb=peak_mb, data_mb=b.get("data_MB", 0.0), ws_mb=b.get("workspace_MB", 0.0)))

    print("threads=%d  torch=%s  copy bandwidth (STREAM-like, this run): %s" %
          (args.threads, torch.__version__, "%.1f GB/s" % copy_gbs if copy_gbs else "n/a"))
    fp32_ms = {r["name"].split("/")[0]: r["ms"] for r in rows if r["label"] == "fp32"}
    hdr = "%-30s %-5s %10s %10s %7s %8s %9s %7s %9s %12s" % ("benchmark", "dtype", "OpScope ms", "PyTorch ms", "ratio",
                                                               "x fp32", "GB/s", "%copy", "peak MB", "in+out+ws MB")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        ratio = "%.2f" % (r["ms"] / r["torch_ms"]) if r["torch_ms"] else "-"
        tms = "%.2f" % r["torch_ms"] if r["torch_ms"] else "-"
        pct = "%.0f%%" % (100 * r["gbs"] / copy_gbs) if copy_gbs and r["gbs"] else "-"
        gbs = "%.1f" % r["gbs"] if r["gbs"] else "-"
        need = r["data_mb"] + r["ws_mb"]
        base = fp32_ms.get(r["name"].split("/")[0])
        own = "%.2f" % (r["ms"] / base) if base and r["label"] != "fp32" else "-"
        print("%-30s %-5s %10.2f %10s %7s %8s %9s %7s %9.0f %12s" % (r["name"], r["label"], r["ms"], tms, ratio, own,
                                                                     gbs, pct, r["peak_mb"],
                                                                     "%.0f" % need if need else "-"))
    print("ratio = OpScope / PyTorch (PyTorch has no fp16/bf16 CPU grid sampler: its fp32 is the peer); "
          "x fp32 = OpScope time / OpScope fp32 time")
    if args.trace_rounds > 0:
        print()
        trace_cost(args, [r for r in rows if re.search(args.trace_filter, r["name"])], per_executor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
