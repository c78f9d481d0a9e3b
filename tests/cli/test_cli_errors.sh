#!/usr/bin/env bash
# Bad input gives exit 2 and one sentence: a corrupted HDF5 file, a missing dataset, a wrong
# shape, an unknown operator, files that are not there or not HDF5. Inputs are never modified.
source "$(dirname "$0")/common.bash" "$@"

C=/group_norm_backward/fp32/basic
bind() { echo "$1=$GN:$C/inputs/$1"; }

# A corrupted (truncated) HDF5 file, and a file that is not HDF5 at all.
head -c 4000 "$GN" >"$WORK/truncated.h5"
for cmd in run info; do
    expect_exit 2 "$CLI" $cmd "$WORK/truncated.h5"
    expect_one_line_error
    expect_err "not an HDF5 file (or it is truncated/corrupt)"
done
echo "not hdf5" >"$WORK/text.h5"
expect_exit 2 "$CLI" run "$WORK/text.h5"
expect_err "not an HDF5 file"
expect_exit 2 "$CLI" run "$WORK/absent.h5"
expect_one_line_error
expect_err "no file '$WORK/absent.h5'"
expect_exit 2 "$CLI" info "$WORK"
expect_err "is a directory"

# A missing dataset.
expect_exit 2 "$CLI" run --op group_norm_backward --bind "gradOut=$GN:$C/inputs/nothing" --bind "$(bind input)" \
    --bind "$(bind mean)" --bind "$(bind rstd)"
expect_one_line_error
expect_err "no dataset '$C/inputs/nothing'"
# A required tensor not bound at all.
expect_exit 2 "$CLI" run --op group_norm_backward --bind "$(bind gradOut)" --bind "$(bind input)" --bind "$(bind mean)" \
    --attr N=2 --attr C=8 --attr HxW=16 --attr group=2
expect_err "needs tensor 'rstd'"

# A wrong shape: the operator's first phase rejects it with its aclnn status and message.
expect_exit 2 "$CLI" run --op group_norm_backward --bind "$(bind gradOut)" --bind "$(bind input)" --bind "$(bind mean)" \
    --bind "$(bind rstd)" --attr N=2 --attr C=8 --attr HxW=15 --attr group=2
expect_err "\[161002\]"
expect_err "N \* C \* HxW"

# An unknown operator (by --op, and by a case file's 'op').
expect_exit 2 "$CLI" run --op aclnnNoSuchOp --bind "$(bind gradOut)"
expect_one_line_error
expect_err "unknown operator 'aclnnNoSuchOp' (registered: "
# An unknown attribute.
expect_exit 2 "$CLI" run --op group_norm_backward --bind "$(bind gradOut)" --bind "$(bind input)" --bind "$(bind mean)" \
    --bind "$(bind rstd)" --attr N=2 --attr C=8 --attr HxW=16 --attr groups=2
expect_err "has no attribute 'groups'"
# An unknown tensor name.
expect_exit 2 "$CLI" run --op group_norm_backward --bind "$(bind gradOut)" --bind "gradOutput=$GN:$C/inputs/gradOut"
expect_err "has no tensor argument 'gradOutput'"
# A group where a dataset is expected.
expect_exit 2 "$CLI" run --op group_norm_backward --bind "gradOut=$GN:$C/inputs"
expect_err "is a group, not a dataset"

if have_h5py; then
    # The same faults inside case files written with h5py; the other cases still run.
    cp "$GN" "$WORK/bad.h5"
    /usr/bin/python3 - "$WORK/bad.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    del f["/group_norm_backward/fp32/basic/inputs/rstd"]
    g = f["/group_norm_backward/fp32/odd_sizes/inputs"]
    x = g["input"][()]
    del g["input"]
    g["input"] = x[:, :, :5]
    f["/group_norm_backward/fp32/larger"].attrs["op"] = "aclnnNoSuchOp"
    f["/group_norm_backward/fp32/group_1"].attrs["group"] = "two"
PY
    before=$(md5sum <"$WORK/bad.h5")
    expect_exit 2 "$CLI" run "$WORK/bad.h5" --case /group_norm_backward/fp32
    expect_err "fp32/basic: the case does not fit the operator: aclnnGroupNormBackward needs tensor 'rstd'"
    expect_err "fp32/odd_sizes: the operator rejected the case: \[161002\]"
    expect_err "fp32/larger: unknown operator 'aclnnNoSuchOp'"
    expect_err "fp32/group_1: the case does not fit the operator: attribute 'group' must be"
    expect_out "/group_norm_backward/fp32/nchw_4d"
    expect_out "4 errors"
    [ "$(md5sum <"$WORK/bad.h5")" = "$before" ] || fail "run modified its input file"
else
    echo "skipping the h5py-written faults: /usr/bin/python3 has no h5py"
fi
finish
