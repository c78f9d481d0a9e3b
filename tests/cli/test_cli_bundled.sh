#!/usr/bin/env bash
# Every bundled dataset passes its standard through the CLI (as CTest's BundledDataset does
# through the registry). A case whose operator is not registered is an error: exit 2.
source "$(dirname "$0")/common.bash" "$@"

expect_exit 0 "$CLI" run "$DATA"/*.h5 --brief --report "$WORK/bundled.json"
expect_out " 0 failed, 0 errors"
[ -s "$WORK/bundled.json" ] || fail "no report written"
finish
