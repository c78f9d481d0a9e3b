#!/usr/bin/env bash
# Files that point outside themselves (tools/make_traversal.py, from issue 12): refused with one
# sentence and exit 2 by info's readers, run, compare and trace show; listed by info; read as
# before with --allow-external.
source "$(dirname "$0")/common.bash" "$@"

if ! have_h5py; then
    echo "skipping: /usr/bin/python3 has no h5py"
    exit 0
fi
T="$WORK/traversal"
/usr/bin/python3 "$ROOT/tests/cli/tools/make_traversal.py" "$DATA" "$T" >/dev/null || { echo "FAIL: make_traversal.py"; exit 1; }
cd "$T" || exit 1
CASE=/rms_norm_grad/fp32/basic
REFUSED="outside the file; a file may not read other files"

# info lists what points outside, reads none of it, and succeeds.
expect_exit 0 "$CLI" info ext_storage_passwd.h5
expect_out "$CASE/inputs/dy  external storage -> /etc/passwd"
expect_exit 0 "$CLI" info ext_storage_relative.h5 --tree
expect_out "external storage -> ../"
expect_exit 0 "$CLI" info vds_input.h5
expect_out "virtual dataset -> $T/secret/secret.h5:/grp/dy"
expect_exit 0 "$CLI" info elink_input.h5
expect_out "external link -> $T/secret/secret.h5:/grp/dy"
expect_exit 0 "$CLI" info elink_group.h5 --tree
expect_out "/ext  *link  external link -> $T/secret/secret.h5:/grp"
expect_exit 0 "$CLI" info dump_passwd.h5 --json
expect_out '"points": "external storage -> /etc/passwd"'

# Every reader refuses, naming the dataset and where it points.
for f in ext_storage_passwd ext_storage_relative vds_input elink_input; do
    expect_exit 2 "$CLI" run "$f.h5" --case "$CASE"
    expect_err "'$CASE/inputs/dy' in '$f.h5' is .* -> .*$REFUSED"
done
expect_exit 2 "$CLI" run ext_storage_passwd.h5 --case "$CASE" --trace "$WORK/t.h5"
expect_err "/etc/passwd, $REFUSED"
expect_exit 2 "$CLI" compare dump_passwd.h5:/leak dump_passwd.h5:/zeros
expect_err "dataset '/leak' in 'dump_passwd.h5' is stored in an external file -> /etc/passwd, $REFUSED"
expect_one_line_error
expect_exit 2 "$CLI" compare elink_input.h5:$CASE/inputs elink_input.h5:$CASE/inputs  # two groups: every member
expect_err "'$CASE/inputs/dy' in 'elink_input.h5' is external link -> $T/secret/secret.h5:/grp/dy, $REFUSED"
expect_one_line_error
expect_exit 2 "$CLI" compare ext_storage_passwd.h5:$CASE/inputs ext_storage_passwd.h5:$CASE/inputs
expect_err "is external storage -> /etc/passwd, $REFUSED"
expect_exit 2 "$CLI" compare elink_group.h5:/ext/dy elink_group.h5:/ext/x
expect_err "'/ext' in 'elink_group.h5' (on the way to '/ext/dy') is an external link -> $T/secret/secret.h5:/grp"
expect_exit 2 "$CLI" run --op aclnnRmsNormGrad --bind dy=elink_group.h5:/ext/dy --bind x=elink_group.h5:/ext/x \
    --bind rstd=ext_storage_passwd.h5:$CASE/inputs/rstd --bind gamma=ext_storage_passwd.h5:$CASE/inputs/gamma
expect_err "on the way to '/ext/dy'.*$REFUSED"
for f in ext_storage_passwd vds_input elink_group dump_passwd; do
    expect_exit 2 "$CLI" trace show "$f.h5"
done

# A trace whose recorded values sit behind an external link in the middle of the path.
expect_exit 0 "$CLI" run "$DATA/rms_norm_grad.h5" --case "$CASE" --trace "$WORK/full.h5" --trace-level full
/usr/bin/python3 - "$WORK/full.h5" "$T/secret/secret.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f["/ext"] = h5py.ExternalLink(sys.argv[2], "/grp")
    strings = f["/strings"]
    values = [s for s in strings.asstr()[:] if s.startswith("/values/") and s.endswith("/dy")]
    for i, s in enumerate(strings.asstr()[:]):
        if s in values: strings[i] = "/ext/dy"
PY
expect_exit 2 "$CLI" trace show "$WORK/full.h5"
expect_err "'/ext' in '$WORK/full.h5' (on the way to '/ext/dy') is an external link"
expect_exit 0 "$CLI" trace show "$WORK/full.h5" --allow-external

# --allow-external: the old behaviour, for files one trusts.
expect_exit 1 "$CLI" run vds_input.h5 --case "$CASE" --allow-external  # runs on the other file's data
expect_exit 1 "$CLI" run elink_input.h5 --case "$CASE" --allow-external  # runs on the other file's data
expect_exit 1 "$CLI" run ext_storage_relative.h5 --case "$CASE" --allow-external  # runs on the other file's data
expect_exit 1 "$CLI" compare dump_passwd.h5:/leak dump_passwd.h5:/zeros --allow-external
expect_out "actual  *dump_passwd.h5:/leak  uint8"
expect_exit 1 "$CLI" compare elink_group.h5:/ext/dy elink_group.h5:/ext/x --allow-external
"$CLI" info --help | grep -q -- "--allow-external" || fail "info --help does not list --allow-external"

finish
