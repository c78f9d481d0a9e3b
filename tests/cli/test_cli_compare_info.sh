#!/usr/bin/env bash
# opscope-cli compare (two tensors of any files) and info (cases, traces, plain trees).
source "$(dirname "$0")/common.bash" "$@"

C=/group_norm_backward/fp16/basic
# PyTorch's float64 expected output against itself, judged as fp16: identical.
expect_exit 0 "$CLI" compare "$GN:$C/expected/gradInput" "$GN:$C/expected/gradInput" --dtype fp16
expect_out "verdict  *pass (cann)"
expect_out "float64\[2, 8, 16\]  (rounded to float16)"
# Two unrelated tensors: fail, exit 1, with where the worst element is.
expect_exit 1 "$CLI" compare "$GN:$C/inputs/gradOut" "$GN:$C/inputs/input"
expect_out "verdict  *fail (cann)"
expect_out "worst rel at  *\["
expect_exit 1 "$CLI" compare "$GN:$C/inputs/gradOut" "$GN:$C/inputs/input" --standard msprobe-legacy
expect_out "cosine"
expect_exit 0 "$CLI" compare "$GN:$C/inputs/gradOut" "$GN:$C/inputs/gradOut" --json
expect_out '"verdict": "pass"'
expect_out '"max_ulp_error": 0'
expect_out '"share_rel_below_1e-3": 1'
expect_out '"first_nonfinite_mismatch": null'
# Different sizes, missing datasets, malformed references: exit 2.
expect_exit 2 "$CLI" compare "$GN:$C/inputs/gradOut" "$GN:$C/inputs/gamma"
expect_one_line_error
expect_err "the element counts differ"
expect_exit 2 "$CLI" compare "$GN:$C/inputs/nothing" "$GN:$C/inputs/gamma"
expect_err "the actual tensor: no dataset '$C/inputs/nothing'"
expect_exit 2 "$CLI" compare "$GN:$C/inputs/gamma" "$GN:$C/inputs"
expect_err "the reference tensor: '$C/inputs' in '$GN' is a group, not a dataset"
# Two HDF5 groups (two checkpoints) compare dataset by dataset, keyed by the path below the group.
expect_exit 0 "$CLI" compare "$GN:$C/inputs" "$GN:$C/inputs"
expect_out "gradOut  *float16  *0  *0  *pass"
expect_out "5 tensors: 5 passed, 0 failed or not compared. Standard: cann"
expect_exit 1 "$CLI" compare "$GN:$C/inputs" "$GN:$C/expected" --json
expect_out '"note": "'"$GN:$C"'/expected has no .gamma.'
expect_exit 1 "$CLI" compare "$GN:/group_norm_backward/fp16/basic/inputs" "$GN:/group_norm_backward/bf16/basic/inputs"
expect_out "gamma  *float16  .*fail"
expect_exit 2 "$CLI" compare "$GN" "$GN:$C/inputs/gamma"
expect_err "must be FILE.h5:/path/to/dataset"
expect_exit 2 "$CLI" compare "$GN:$C/inputs/gradOut"
expect_err "needs 2 arguments"

# info on a case file: cases with parameters, inputs and sources; --tree lists datasets.
expect_exit 0 "$CLI" info "$GN"
expect_out "case file"
expect_out "$C  aclnnGroupNormBackward"
expect_out "params   C=8 HxW=16 N=2 group=2 outputMask=\[true, true, true\]"
expect_out "inputs   gamma float16\[8\]"
expect_out "expected gradBetaOut float64\[8\]"
expect_exit 0 "$CLI" info "$GN" --tree --depth 2
expect_out "/group_norm_backward/fp16/  *group"
expect_exit 0 "$CLI" info "$GN" --json
expect_out '"kind": "case file"'
for f in "$DATA"/*.h5; do
    expect_exit 0 "$CLI" info "$f"
done

# info on a plain HDF5 file (a checkpoint-like tree) lists every dataset lazily.
if have_h5py; then
    /usr/bin/python3 - "$WORK/weights.h5" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.attrs["keras_version"] = "2.11.0"
    g = f.create_group("model_weights/dense")
    g["kernel:0"] = np.ones((784, 128), np.float32)
    g["bias:0"] = np.zeros(128, np.float32)
    f.create_dataset("big", shape=(1 << 20, 1 << 14), dtype=np.float64)  # 128 GiB declared, never written
    f["names"] = np.array([b"a", b"b"])
PY
    expect_exit 0 "$CLI" info "$WORK/weights.h5" --attrs
    expect_out "HDF5 file"
    expect_out "/model_weights/dense/kernel:0  *float32\[784, 128\]"
    expect_out "/big  *float64\[1048576, 16384\]"
    expect_out "(not a tensor)"
    expect_out "@keras_version = \"2.11.0\""
    # A checkpoint's dataset as an operator argument; a file without cases cannot 'run' alone.
    expect_exit 2 "$CLI" run "$WORK/weights.h5"
    expect_err "holds no cases"
    expect_exit 0 "$CLI" compare "$WORK/weights.h5:/model_weights/dense/bias:0" "$WORK/weights.h5:/model_weights/dense/bias:0"
else
    echo "skipping the checkpoint listing: /usr/bin/python3 has no h5py"
fi
finish
