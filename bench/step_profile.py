#!/usr/bin/python3
"""Where a benchmark's time goes, step by step: runs one opscope_bench benchmark with an
executor trace at level metadata, exports it with `opscope-cli trace export --chrome`, and
prints each plan step's time and share of a typical call.

The first executor (the benchmark's cold warm-up call, with first-touch page faults) is left
out; each step name's time is averaged over the other executors.

Usage: bench/step_profile.py REGEX [--threads 2] [--bench PATH] [--cli PATH]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "build", "release")


def profile(args, name, tmp):
    trace, out = os.path.join(tmp, "t.h5"), os.path.join(tmp, "t.json")
    env = dict(os.environ, OPSCOPE_NUM_THREADS=str(args.threads), OPSCOPE_TRACE=trace,
               OPSCOPE_TRACE_LEVEL="metadata")
    subprocess.run([args.bench, "--benchmark_filter=" + name, "--benchmark_min_time=%g" % args.min_time], env=env,
                   check=True, capture_output=True)
    subprocess.run([args.cli, "trace", "export", trace, "--chrome", out], check=True, capture_output=True)
    with open(out) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    # Each step belongs to the executor that started last before it; the first (warm-up) is skipped.
    steps, executors = collections.defaultdict(float), -1
    for e in sorted((e for e in events if e.get("ph") == "X"), key=lambda e: e.get("ts", 0)):
        if e.get("cat", "") == "executor":
            executors += 1
        elif executors > 0:
            steps[e["name"]] += e.get("dur", 0.0) / 1e3
    return steps, max(1, executors)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("filter")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--bench", default=os.path.join(BUILD, "bench", "opscope_bench"))
    ap.add_argument("--cli", default=os.path.join(BUILD, "app", "opscope-cli"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        steps, executors = profile(args, args.filter, tmp)
    typical = {name: ms / executors for name, ms in steps.items()}
    total = sum(typical.values())
    print("%d executors after the warm-up; per call: %.1f ms in steps" % (executors, total))
    print("%-28s %12s %7s" % ("step", "ms per call", "share"))
    for name, ms in sorted(typical.items(), key=lambda kv: -kv[1]):
        print("%-28s %12.2f %6.1f%%" % (name, ms, 100 * ms / total if total else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
