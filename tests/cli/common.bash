# Shared by the tests/cli/*.sh scripts (sourced, not a test itself: CTest runs *.sh only).
# Usage inside a script:  source "$(dirname "$0")/common.bash" "$@"
set -u
CLI=$1
ROOT=$2
DATA="$ROOT/datasets"
GN="$DATA/group_norm_backward.h5"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
checks=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_exit CODE command...: runs it, keeping stdout/stderr in $WORK/out and $WORK/err.
expect_exit() {
    local want=$1
    shift
    checks=$((checks + 1))
    "$@" >"$WORK/out" 2>"$WORK/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "expected exit $want, got $got: $*"
        sed 's/^/    stdout: /' "$WORK/out" | head -25
        sed 's/^/    stderr: /' "$WORK/err" | head -10
    fi
}

expect_out() {
    checks=$((checks + 1))
    grep -q -- "$1" "$WORK/out" || { fail "stdout lacks '$1'"; sed 's/^/    stdout: /' "$WORK/out" | head -15; }
}

expect_err() {
    checks=$((checks + 1))
    grep -q -- "$1" "$WORK/err" || { fail "stderr lacks '$1'"; sed 's/^/    stderr: /' "$WORK/err" | head -10; }
}

# An input error is one sentence on one line of stderr, nothing on stdout.
expect_one_line_error() {
    checks=$((checks + 1))
    local lines
    lines=$(wc -l <"$WORK/err")
    [ "$lines" -eq 1 ] || { fail "expected a one-line error, got $lines lines"; sed 's/^/    stderr: /' "$WORK/err"; }
    grep -q '^opscope-cli: ' "$WORK/err" || fail "the error does not start with 'opscope-cli: '"
}

have_h5py() { /usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null; }

finish() {
    if [ "$failures" -gt 0 ]; then
        echo "$failures of $checks checks failed"
        exit 1
    fi
    echo "all $checks checks passed"
    exit 0
}
