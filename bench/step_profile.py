#!/usr/bin/python3
"""Where a benchmark's time goes, step by step: runs one opscope_bench benchmark with an
executor trace at level metadata, exports it with `opscope-cli trace export --chrome`, and
prints each plan step's total and share of the traced time (median over the executors of
each step's duration, times the executors' count is the total).

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
    steps = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat", "") != "executor":
            steps[e["name"]].append(e.get("dur", 0.0))
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("filter")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--bench", default=os.path.join(BUILD, "bench", "opscope_bench"))
    ap.add_argument("--cli", default=os.path.join(BUILD, "app", "opscope-cli"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        steps = profile(args, args.filter, tmp)
    total = sum(sum(d) for d in steps.values())
    print("%-28s %6s %12s %12s %7s" % ("step", "calls", "median ms", "total ms", "share"))
    for name, d in sorted(steps.items(), key=lambda kv: -sum(kv[1])):
        d = sorted(d)
        print("%-28s %6d %12.3f %12.1f %6.1f%%" % (name, len(d), d[len(d) // 2] / 1e3, sum(d) / 1e3,
                                                   100 * sum(d) / total if total else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
