#!/usr/bin/env bash
# Every bundled case of every operator, recorded to a trace, replays from that trace and matches
# what was recorded bit for bit: parameters read back as they were recorded (issue: enum values
# recorded with their label did not read back).
source "$(dirname "$0")/common.bash" "$@"

for op in group_norm_backward rms_norm_grad grid_sampler2d_backward convolution_backward; do
    T="$WORK/$op.trace.h5"
    expect_exit 0 "$CLI" run "$DATA/$op.h5" --threads 1 --brief --trace "$T"
    written=$(sed -n 's/^trace: \([0-9]*\) executors written.*/\1/p' "$WORK/err")
    checks=$((checks + 1))
    [ -n "$written" ] && [ "$written" -gt 0 ] || { fail "$op: no executors written"; continue; }
    expect_exit 0 "$CLI" run "$T" --threads 1
    expect_out "opscope vs trace"
    expect_out "$written passed, 0 failed"
    checks=$((checks + 1))
    grep -q "skipped\|cannot be replayed" "$WORK/err" && fail "$op: some executors were not replayed: $(head -3 "$WORK/err")"
done
finish
