#!/usr/bin/env bash
# opscope-cli run: exit codes 0/1/2, the table, --json, --report (atomic, never over an input),
# --dtype, --standard, --case selection, --op/--bind/--attr on datasets of any file.
source "$(dirname "$0")/common.bash" "$@"

# All GroupNormBackward cases pass their standard.
expect_exit 0 "$CLI" run "$GN"
expect_out "opscope vs golden"
expect_out "opscope vs expected"
expect_out " 0 failed, 0 errors"
expect_exit 0 "$CLI" run "$GN" --brief --case /group_norm_backward/fp16
expect_out "/group_norm_backward/fp16/basic"
grep -q "/fp32/" "$WORK/out" && fail "--case /group_norm_backward/fp16 also ran fp32 cases"

# A standard no float32 kernel meets: exit 1, with the reason under the row.
expect_exit 1 "$CLI" run "$GN" --case /group_norm_backward/fp32/basic --standard rtol=0,atol=0
expect_out "FAIL"
expect_out "elements outside atol + rtol"
# Every other standard by name.
for s in cann dual-thousandth msprobe-legacy; do
    expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp32 --standard $s --brief
done

# --dtype: the golden is recomputed from the cast inputs; expected/ becomes informational.
expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp32/basic --dtype bf16 --verbose
expect_out "bfloat16"
expect_out "info: inputs were cast from float32 to bfloat16"
expect_out "(+3 informational)"

# --json is one JSON document on stdout.
expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp32/basic --json
expect_out '"opscope_report": 1'
expect_out '"verdict": "pass"'
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
    /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["exit_code"] == 0' "$WORK/out" ||
        fail "--json output is not valid JSON with exit_code 0"
fi

# --report: JSON and CSV, written atomically (no temporary left behind).
expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp16/basic --report "$WORK/r.json"
[ -s "$WORK/r.json" ] || fail "--report r.json was not written"
grep -q '"path": "/group_norm_backward/fp16/basic"' "$WORK/r.json" || fail "the JSON report lacks the case"
expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp16/basic --report "$WORK/r.csv"
head -1 "$WORK/r.csv" | grep -q '^file,case,op,dtype' || fail "the CSV report has no header"
[ "$(wc -l <"$WORK/r.csv")" -eq 7 ] || fail "the CSV report should have 6 comparison rows"
ls "$WORK" | grep -q '\.tmp-' && fail "a temporary report file was left behind"
# ... and refused over an input, which stays untouched.
cp "$GN" "$WORK/copy.h5"
ln -s "$WORK/copy.h5" "$WORK/alias.json"
before=$(md5sum <"$WORK/copy.h5")
expect_exit 2 "$CLI" run "$WORK/copy.h5" --report "$WORK/alias.json"
expect_one_line_error
expect_err "outputs never overwrite inputs"
expect_exit 2 "$CLI" run "$WORK/copy.h5" --trace "$WORK/copy.h5"
expect_err "outputs never overwrite inputs"
[ "$(md5sum <"$WORK/copy.h5")" = "$before" ] || fail "an input file was modified"
expect_exit 2 "$CLI" run "$GN" --report "$WORK/r.txt"
expect_err "must end in .json or .csv"
# Every writing command wants its -o, with the ending of what it writes.
expect_exit 2 "$CLI" import repro "$WORK" -o "$WORK/cases.txt"
expect_one_line_error
expect_err "-o '$WORK/cases.txt' must end in .h5"
expect_exit 2 "$CLI" import msprobe "$WORK"
expect_err "'import msprobe' needs -o OUT.h5 (the case file to write)"
expect_exit 2 "$CLI" report merge "$WORK/r.json" -o "$WORK/all.csv"
expect_err "must end in .json"
expect_exit 2 "$CLI" run "$GN" --report "$WORK/no/such/dir/r.json"
expect_err "does not exist"

# One call from datasets of any file: --op, --bind, --attr, --expect.
C=/group_norm_backward/fp32/basic
bind=(--bind "gradOut=$GN:$C/inputs/gradOut" --bind "input=$GN:$C/inputs/input" --bind "mean=$GN:$C/inputs/mean"
      --bind "rstd=$GN:$C/inputs/rstd" --bind "gamma=$GN:$C/inputs/gamma")
attrs=(--attr N=2 --attr C=8 --attr HxW=16 --attr group=2 --attr outputMask=true,true,true)
expect_exit 0 "$CLI" run --op group_norm_backward "${bind[@]}" "${attrs[@]}" --expect "gradInput=$GN:$C/expected/gradInput"
expect_out "opscope vs expected"
expect_exit 0 "$CLI" run --op aclnnGroupNormBackward "${bind[@]}" "${attrs[@]}" --attr "outputMask=[true,false,false]"
expect_out "gradInput"
grep -q "gradBetaOut" "$WORK/out" && fail "outputMask [true,false,false] still produced gradBetaOut"

# Usage errors: exit 2 with one sentence.
expect_exit 2 "$CLI" run
expect_one_line_error
expect_exit 2 "$CLI" run "$GN" --threads zero
expect_err "--threads must be a whole number"
expect_exit 2 "$CLI" run "$GN" --product tpu
expect_err "unknown --product 'tpu'"
expect_exit 2 "$CLI" run "$GN" --dtype int8
expect_err "unknown --dtype 'int8'"
expect_exit 2 "$CLI" run "$GN" --standard strict
expect_err "unknown standard 'strict'"
expect_exit 2 "$CLI" run "$GN" --frobnicate
expect_err "unknown option '--frobnicate'"
expect_exit 2 "$CLI" run "$GN" --case /nowhere
expect_err "no case or group '/nowhere'"
expect_exit 2 "$CLI" run "$GN" --bind x=a.h5:/b
expect_err "needs --op"
expect_exit 2 "$CLI" run --op group_norm_backward --bind gradOut
expect_err "expects NAME=VALUE"

# --help everywhere, exit 0.
for cmd in "" "run" "info" "compare" "trace show" "trace export" "standards" "operators"; do
    # shellcheck disable=SC2086
    expect_exit 0 "$CLI" $cmd --help
    expect_out "usage: opscope-cli"
done
expect_exit 0 "$CLI" standards
expect_out "CANN single-benchmark"
expect_out "aclnnGroupNormBackward: cann"
expect_exit 0 "$CLI" operators
expect_out "aclnnGroupNormBackward (group_norm_backward)"
finish
