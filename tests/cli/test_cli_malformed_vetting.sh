#!/usr/bin/env bash
# Byte-flipped files that crash or hang libhdf5 1.10 (tests/data/malformed, from issue 12's
# mutation run) through every command that reads a file: each is vetted in a throwaway process
# first, so the answer is exit 2 and one sentence, never a signal or a hang. Good files still
# pass through the same vetting.
source "$(dirname "$0")/common.bash" "$@"

M="$ROOT/tests/data/malformed"
# The harness kills a command after this long; vetting gives up on a file after 15 s.
limit=90

# run_bounded command...: like expect_exit's capture, answering the exit status in $got.
run_bounded() {
    checks=$((checks + 1))
    timeout -s KILL "$limit" "$@" >"$WORK/out" 2>"$WORK/err"
    got=$?
    if [ "$got" -ge 124 ]; then
        fail "killed or crashed (status $got): $*"
        sed 's/^/    stderr: /' "$WORK/err" | head -10
    fi
}

# Every file crashed or hung these commands before vetting (see the README in ../shared/repro).
for n in 01096 01240 01714 02067 02313 02584 02622 01077; do
    f="$M/$n.h5"
    commands=("info" "info --tree --attrs" "run" "trace show")
    # 01077 spins inside libhdf5: each command waits out the 15 s limit, so it gets only these.
    [ "$n" = 01077 ] || commands+=("trace export --chrome $WORK/out.json")
    for cmd in "${commands[@]}"; do
        # shellcheck disable=SC2086
        run_bounded "$CLI" $cmd "$f"
        [ "$got" -eq 2 ] || fail "$cmd $n.h5: expected exit 2, got $got"
        expect_one_line_error
        expect_err "cannot open '$f': the file is corrupt (reading it "
    done
    [ ! -e "$WORK/out.json" ] || fail "trace export wrote a file for $n.h5"
    [ "$n" = 01077 ] && continue
    run_bounded "$CLI" compare "$f:/a" "$ROOT/datasets/rms_norm_grad.h5:/rms_norm_grad/fp32/basic/inputs/dy"
    [ "$got" -eq 2 ] || fail "compare $n.h5: expected exit 2, got $got"
    expect_one_line_error
    expect_err "the file is corrupt"
done

# 02187: intact metadata, a damaged chunk index: listing is fine, reading the tensors is not.
f="$M/02187.h5"
run_bounded "$CLI" info --tree "$f"
[ "$got" -eq 0 ] || fail "info 02187.h5: expected exit 0, got $got"
expect_out "/convolution_backward/fp32/conv2d_no_bias_grad"
run_bounded "$CLI" run "$f"
[ "$got" -eq 2 ] || fail "run 02187.h5: expected exit 2, got $got"
expect_one_line_error
# The reader's storage check refuses the damaged dataset before libhdf5 would crash on it; the
# vetting child stands behind it for damage no check foresees.
expect_err "02187.h5.*\\(stores only 0 bytes: the file is truncated or damaged\\|the file is corrupt\\)"
C=/convolution_backward/fp32/conv2d_no_bias_grad
run_bounded "$CLI" run --op convolution_backward --bind "gradOutput=$f:$C/inputs/gradOutput" \
    --bind "input=$f:$C/inputs/input" --bind "weight=$f:$C/inputs/weight"
[ "$got" -eq 2 ] || fail "run --bind 02187.h5: expected exit 2, got $got"
expect_one_line_error
expect_err "\\(truncated or damaged\\|the file is corrupt\\)"

# Vetting lets good files through, cases and traces alike.
expect_exit 0 "$CLI" info "$GN"
expect_exit 0 "$CLI" run "$GN" --case /group_norm_backward/fp32/basic --trace "$WORK/t.h5"
expect_exit 0 "$CLI" trace show "$WORK/t.h5"
expect_exit 0 "$CLI" compare "$GN:/group_norm_backward/fp32/basic/inputs/gradOut" \
    "$GN:/group_norm_backward/fp32/basic/inputs/gradOut"

finish
