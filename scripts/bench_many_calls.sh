#!/usr/bin/env bash
# Throughput of 'import msprobe' and 'run' on a generated dump of many calls, --jobs 1 against
# --jobs 2, alternating, ROUNDS times each (bench/README.md, "Many calls"). Prints one line per
# command with wall and CPU seconds, and the load average before each; then, with perf, the CPU of
# each thread of one import. On a shared machine run it under 'chrt -f 10'.
#   bash scripts/bench_many_calls.sh DUMP_DIR [ROUNDS] [CLI]
# The dump: /usr/bin/python3 datasets/msprobe/generate_msprobe_dumps.py --bench 2000 DUMP_DIR
# The case file is written by this script, so it is trusted (OPSCOPE_TRUST_FILES=1): opscope-vet
# reading all 43 MB of it first exceeds its 15 s limit on a loaded machine, and would be the same
# cost for every --jobs.
set -u
dump=${1:?usage: bench_many_calls.sh DUMP_DIR [ROUNDS] [CLI]}
rounds=${2:-3}
cli=${3:-build/release/app/opscope-cli}
work=$(mktemp -d)
export OPSCOPE_TRUST_FILES=1
trap 'rm -rf "$work"' EXIT
timed() {  # label command...: "label  wall W s  cpu C s  load L"
    local label=$1
    shift
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" > "$work/out" 2> "$work/err"
    local rc=$?
    read -r wall user sys < <(tail -1 "$work/time")
    printf '%-24s wall %6.2f s  cpu %6.2f s  load %s  exit %s  %s\n' "$label" "$wall" \
        "$(echo "$user + $sys" | bc)" "$load" "$rc" "$(grep -o 'read .*' "$work/out" | head -1)"
}
"$cli" import msprobe "$dump" -o "$work/cases.h5" --quiet > /dev/null
for r in $(seq "$rounds"); do
    for j in 1 2; do
        rm -f "$work/i$j.h5"
        timed "import --jobs $j" "$cli" import msprobe "$dump" -o "$work/i$j.h5" --jobs "$j"
    done
    for j in 1 2; do
        timed "run --jobs $j" "$cli" run "$work/cases.h5" --brief --jobs "$j" --threads 1
    done
done
echo "cases: $(grep -o '^[0-9]* cases' "$work/out")"
# Where an import's time goes, whatever the load: CPU seconds of each thread of one 'import
# --jobs 2' (perf samples at 999 Hz; the first thread is the HDF5 writer, the others decode).
# --jobs 2 can be at most (import --jobs 1 CPU) / (writer CPU) times as fast as --jobs 1.
if command -v perf > /dev/null; then
    rm -f "$work/p.h5"
    perf record -q -F 999 -e task-clock -o "$work/perf.data" \
        "$cli" import msprobe "$dump" -o "$work/p.h5" --jobs 2 > /dev/null 2>&1
    perf report -i "$work/perf.data" --sort pid -n --stdio 2> /dev/null |
        awk '/%/ { printf "%s%.2f", (n++ ? " + " : "import --jobs 2 CPU by thread (writer first): "), $2 / 999 }
             END { print " s" }'
fi
