#!/usr/bin/env bash
# Traces: run --trace records, info/trace show list, trace export writes Chrome JSON (never over
# the trace), and run replays a trace as cases compared with the recorded outputs.
source "$(dirname "$0")/common.bash" "$@"

T="$WORK/t.h5"
expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp16/basic --case /group_norm_backward/fp32/odd_sizes --trace "$T"
expect_err "trace: 2 executors written"
[ -s "$T" ] || fail "no trace written"

expect_exit 0 "$CLI" info "$T"
expect_out "trace"
expect_out "/executors/000000  aclnnGroupNormBackward"
expect_out "replayable"
expect_exit 0 "$CLI" trace show "$T"
expect_out "#1 aclnnGroupNormBackward"
expect_out "GroupNormGrad"
expect_exit 0 "$CLI" trace show "$T" --executor 0 --json
expect_out '"steps": \['
expect_exit 2 "$CLI" trace show "$T" --executor 7
expect_err "--executor must be an index"

expect_exit 0 "$CLI" trace export "$T" --chrome "$WORK/t.json"
expect_out "wrote $WORK/t.json: 2 executors"
grep -q '"ph": "X"' "$WORK/t.json" || fail "the Chrome export has no complete events"
expect_exit 2 "$CLI" trace export "$T" --chrome "$T"
expect_err "outputs never overwrite inputs"
expect_exit 2 "$CLI" trace export "$T"
expect_err "needs --chrome"
expect_exit 2 "$CLI" trace show "$GN"
expect_err "not an OpScope trace"
expect_exit 2 "$CLI" trace frobnicate "$T"
expect_err "unknown trace command"

# Replay: the recorded inputs run again and match the recorded outputs bit for bit.
expect_exit 0 "$CLI" run "$T" --threads 1
expect_out "opscope vs trace"
expect_out "2 passed, 0 failed"
expect_exit 0 "$CLI" run "$T" --case /executors/000001 --brief
expect_out "/executors/000001"
# A trace without values cannot be replayed: one sentence, exit 2.
expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp32/basic --trace "$WORK/stats.h5" --trace-level stats
expect_exit 2 "$CLI" run "$WORK/stats.h5"
expect_one_line_error
expect_err "has no values for input"
finish
