#!/usr/bin/env bash
# Every bundled dataset passes its standard through the CLI (as CTest's BundledDataset does
# through the registry). A case whose operator is not registered is an error: exit 2.
source "$(dirname "$0")/common.bash" "$@"

expect_exit 0 "$CLI" run "$DATA"/*.h5 --brief --report "$WORK/bundled.json"
expect_out " 0 failed, 0 errors"
[ -s "$WORK/bundled.json" ] || fail "no report written"

# Worker processes hand every result to the parent as a binary record (result_wire.h): the
# report of every bundled case (four operators, every dtype, passing and failing sources,
# non-finite metrics) is the same through it as from one process, field for field.
expect_exit 0 "$CLI" run "$DATA"/*.h5 --json --jobs 1 --threads 1
grep -v '"run_ms"\|"golden_ms"' "$WORK/out" > "$WORK/one.json"
expect_exit 0 "$CLI" run "$DATA"/*.h5 --json --jobs 3 --threads 1
grep -v '"run_ms"\|"golden_ms"' "$WORK/out" > "$WORK/three.json"
checks=$((checks + 1))
cmp -s "$WORK/one.json" "$WORK/three.json" || fail "--jobs 3 reports differ: $(diff "$WORK/one.json" "$WORK/three.json" | head -5)"
finish
