#!/usr/bin/env bash
# opscope-cli import msprobe, run on the imported file (device verdicts, exit 1 for the wrong
# device gradient, msprobe_call in the report), --jobs and --shard with the same output,
# report merge, and --bind of .npy/.npz/.pt files. Fixtures: datasets/msprobe (committed).
source "$(dirname "$0")/common.bash" "$@"
L1="$DATA/msprobe/dump_l1"
L0="$DATA/msprobe/dump_l0"
PT="$L1/step0/rank0/dump_tensor_data"
READERS="$DATA/msprobe/readers"

# Import from the dump root: 16 of 20 supported calls, the other 4 listed with reasons.
expect_exit 0 "$CLI" import msprobe "$L1" -o "$WORK/step0.h5" --jobs 2
expect_out "imported 16 of 20 supported calls from 2 dump folders (step0/rank0, step0/rank1)"
expect_out "device: Atlas A2 training series.*, recorded in the file: 'run' emulates it"
expect_out "convolutions: float32 ones replayed with HF32 operands (cubeMathType 3: torch_npu's default on this device)"
expect_out "step0/rank0/Functional.conv2d.3: statistics only"
expect_out "step0/rank0/Functional.conv2d.5: .*Functional.conv2d.5.forward.input.1.pt' is not a readable zip archive"
expect_out "step0/rank0/Functional.group_norm.2: missing file"
expect_out "step0/rank0/Functional.grid_sample.3: a 5-D grid_sample"
grep -q "relu\|linear\|Tensor.add" "$WORK/out" && fail "unrelated APIs were listed"
expect_exit 0 "$CLI" info "$WORK/step0.h5"
expect_out "/msprobe/step0/rank0/Functional.conv2d.1"

# From a rank folder, and with --step/--rank.
expect_exit 0 "$CLI" import msprobe "$L1/step0/rank1" -o "$WORK/rank1.h5"
expect_out "imported 1 of 1 supported call from 1 dump folder (step0/rank1)"
# A mix-level dump: a module and the call its forward ran are imported once, as the call.
expect_exit 0 "$CLI" import msprobe "$DATA/msprobe/dump_mix" -o "$WORK/mix.h5"
expect_out "imported 4 of 4 supported calls"
expect_out "note: 2 module calls of the mix level imported once, as the call each ran (construct.json).*Module.conv1.Conv2d.0 as Functional.conv2d.0"
expect_exit 0 "$CLI" import msprobe "$L1" --step 0 --rank 0 -o "$WORK/rank0.h5" --quiet
expect_out "imported 15 of 19"
expect_exit 2 "$CLI" import msprobe "$L1" --rank 9 -o "$WORK/x.h5"
expect_one_line_error
expect_err "there are: step0/rank0, step0/rank1"
[ -e "$WORK/x.h5" ] && fail "a failed import left a file"
expect_exit 2 "$CLI" import msprobe "$READERS" -o "$WORK/x.h5"
expect_err "no dump.json"
# Never over a file of the dump, and nothing written when no call imports.
expect_exit 2 "$CLI" import msprobe "$L1/step0/rank1" -o "$L1/step0/rank1/dump_tensor_data/x.h5"
expect_err "among the dump's tensor files"
cp -r "$L1/step0/rank0" "$WORK/only_bad"
/usr/bin/python3 - "$WORK/only_bad/dump.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["data"] = {k: v for k, v in d["data"].items() if k.startswith("Functional.conv2d.3") or k.startswith("Functional.relu")}
json.dump(d, open(sys.argv[1], "w"))
PY
expect_exit 2 "$CLI" import msprobe "$WORK/only_bad" -o "$WORK/none.h5"
expect_out "imported 0 of 1"
expect_err "none of the 1 supported calls could be imported"
[ -e "$WORK/none.h5" ] && fail "an import of nothing wrote a file"
# A MindSpore dump (its APIs take other arguments) is refused with the reason, not misread.
cp -r "$L1/step0/rank1" "$WORK/mindspore"
sed -i 's/"framework": "pytorch"/"framework": "mindspore"/' "$WORK/mindspore/dump.json"
expect_exit 2 "$CLI" import msprobe "$WORK/mindspore" -o "$WORK/none.h5"
expect_one_line_error
expect_err "dump.json' is a dump of framework \"mindspore\": OpScope replays PyTorch (torch_npu) dumps"
[ -e "$WORK/none.h5" ] && fail "an import of a MindSpore dump wrote a file"
echo '{"data": [' > "$WORK/only_bad/dump.json"
expect_exit 2 "$CLI" import msprobe "$WORK/only_bad" -o "$WORK/none.h5"
expect_one_line_error
expect_err "dump.json' is not valid JSON"

# Judge: the wrong device gradient fails (exit 1), and only it.
expect_exit 1 "$CLI" run "$WORK/step0.h5" --report "$WORK/step0.json"
expect_out "step0/rank0/Functional.conv2d.4: device fails: npu/gradWeight"
expect_out "step0/rank0/Functional.conv2d.0: emulation and device agree"
[ "$(grep -c ': device fails:' "$WORK/out")" -eq 1 ] || fail "expected exactly one 'device fails' line"
[ "$(grep -c ': emulation and device agree:' "$WORK/out")" -eq 15 ] || fail "expected 15 'agree' lines"
expect_out "  16 calls: 1 device fails, 15 emulation and device agree"
expect_out "  the first the device fails, in the debugger: opscope $WORK/step0.h5 --case /msprobe/step0/rank0/Functional.conv2d.4"
checks=$((checks + 1))
# Past 20 calls the agreements are counted, not listed: the failures stay in sight.
cp "$WORK/step0.h5" "$WORK/step0_again.h5"
expect_exit 1 "$CLI" run "$WORK/step0.h5" "$WORK/step0_again.h5" --brief
[ "$(grep -c ': device fails:' "$WORK/out")" -eq 2 ] || fail "expected both files' 'device fails' lines"
[ "$(grep -c ': emulation and device agree:' "$WORK/out")" -eq 0 ] || fail "32 calls listed their agreements"
expect_out "  ... and 30 more on which the emulation and the device agree (--verbose lists them)"
expect_out "  32 calls: 2 device fails, 30 emulation and device agree"
expect_exit 1 "$CLI" run "$WORK/step0.h5" "$WORK/step0_again.h5" --brief --verbose
[ "$(grep -c ': emulation and device agree:' "$WORK/out")" -eq 30 ] || fail "--verbose did not list the agreements"
checks=$((checks + 1))
checks=$((checks + 1))
/usr/bin/python3 - "$WORK/step0.json" <<'PY' || fail "the JSON report lacks msprobe_call or device_verdict"
import json, sys
r = json.load(open(sys.argv[1]))
cases = {c["msprobe_call"]: c for c in r["cases"]}
assert len(cases) == 15, len(cases)  # Functional.group_norm.0 is on two ranks
assert cases["Functional.conv2d.4"]["device_verdict"] == "device fails"
assert cases["Functional.conv2d.4"]["status"] == "fail"
assert all(c["status"] == "pass" for k, c in cases.items() if k != "Functional.conv2d.4")
PY

# The fixtures' float32 convolutions ran HF32 (torch_npu's default): imported as allow_hf32 off,
# they fail the float32 golden and the verdict says which setting they ran.
expect_exit 0 "$CLI" import msprobe "$L1" -o "$WORK/hf32_off.h5" --conv-allow-hf32 FALSE
expect_out "convolutions: float32 ones replayed with float32 operands (cubeMathType 0: torch_npu.npu.conv.allow_hf32 = False)"
expect_exit 0 "$CLI" info "$WORK/hf32_off.h5"
expect_out "cubeMathType=0"
expect_exit 1 "$CLI" run "$WORK/hf32_off.h5"
expect_out "step0/rank0/Functional.conv2d.0: device ran other settings: npu/gradInput"
expect_out "every device output passes: the run kept torch_npu's default torch_npu.npu.conv.allow_hf32 = True"
expect_out "step0/rank0/Functional.conv2d.4: device fails"
[ "$(grep -c ': device ran other settings' "$WORK/out")" -eq 4 ] || fail "expected 4 'other settings' lines"
expect_exit 1 "$CLI" run "$WORK/hf32_off.h5" --jobs 2  # the worker processes send the other arithmetic too
[ "$(grep -c ': device ran other settings' "$WORK/out")" -eq 4 ] || fail "expected 4 'other settings' lines with --jobs"
expect_exit 0 "$CLI" info "$WORK/step0.h5"
expect_out "cubeMathType=3"
expect_exit 2 "$CLI" import msprobe "$L1" -o "$WORK/x.h5" --conv-allow-hf32 maybe
expect_err "--conv-allow-hf32 must be true or false, got 'maybe'"

# The device a dump came from: --product is recorded in the file and 'run' emulates it. The
# fixtures' device is an A2 (HF32 operands); imported as the training series (fp16 operands,
# cubeMathType 1), its float32 convolutions fail the fp16 golden and the verdict names the A2.
expect_exit 0 "$CLI" import msprobe "$L1" -o "$WORK/training.h5" --product 910
expect_out "device: Atlas training series (Ascend 910), recorded in the file"
expect_out "warning: 2 calls hold bfloat16 tensors, which the Atlas training series (Ascend 910) does not have: the dump is likely from an Atlas A2/A3 (--product a2)"
expect_out "convolutions: float32 ones replayed with fp16 operands (cubeMathType 1: torch_npu's default on this device)"
expect_exit 0 "$CLI" info "$WORK/training.h5"
expect_out "case file, .*, recorded on product training"
expect_out "cubeMathType=1"
expect_exit 0 "$CLI" info "$WORK/training.h5" --json
expect_out '"product": "training"'
expect_exit 1 "$CLI" run "$WORK/training.h5" --case /msprobe/step0/rank0/Functional.conv2d.0
expect_out "product training"
expect_out "Functional.conv2d.0: device ran other settings: .*with HF32 operands, as Atlas A2/A3 multiply float32 (cubeMathType 3, USE_HF32) every device output passes: the dump comes from an Atlas A2/A3 device: import it with --product a2"
expect_exit 1 "$CLI" run "$WORK/training.h5" --case /msprobe/step0/rank0/Functional.conv2d.0 --jobs 2 --case /msprobe/step0/rank0/Functional.conv2d.1
[ "$(grep -c 'import it with --product a2' "$WORK/out")" -eq 2 ] || fail "--jobs workers did not emulate the recorded product"
# --product still decides, with a note (cubeMathType 1 is HF32 on an A2: the device agrees); two
# products in one run are refused.
expect_exit 0 "$CLI" run "$WORK/training.h5" --product a2 --case /msprobe/step0/rank0/Functional.conv2d.0
expect_err "note: '$WORK/training.h5' was recorded on the Atlas training series (Ascend 910); emulating the Atlas A2"
expect_out "product a2"
expect_out "Functional.conv2d.0: emulation and device agree"
expect_exit 2 "$CLI" run "$WORK/training.h5" "$WORK/step0.h5"
expect_one_line_error
expect_err "'$WORK/training.h5' was recorded on product training and '$WORK/step0.h5' on a2: run them separately, or choose one with --product"
if have_h5py; then  # a product OpScope does not know runs only where --product names one
    cp "$WORK/training.h5" "$WORK/a5.h5"
    /usr/bin/python3 -c 'import h5py, sys; h5py.File(sys.argv[1], "a").attrs["opscope_product"] = "a5"' "$WORK/a5.h5"
    expect_exit 2 "$CLI" run "$WORK/a5.h5"
    expect_one_line_error
    expect_err "says its cases ran on product 'a5' (root attribute opscope_product), which OpScope does not know"
    expect_exit 0 "$CLI" run "$WORK/a5.h5" --product a2 --case /msprobe/step0/rank0/Functional.conv2d.0
    expect_exit 0 "$CLI" info "$WORK/a5.h5"
    expect_out "recorded on product a5"
fi
expect_exit 2 "$CLI" import msprobe "$L1" -o "$WORK/x.h5" --product 920
expect_err "unknown --product '920': use a2, a3, training or inference"

# L0 modules import and pass.
expect_exit 0 "$CLI" import msprobe "$L0" -o "$WORK/l0.h5"
expect_out "imported 2 of 2"
expect_exit 0 "$CLI" run "$WORK/l0.h5" --brief
expect_out "Module.conv1.Conv2d.0: emulation and device agree"

# --jobs keeps the output; shards merge back into the unsharded report.
expect_exit 1 "$CLI" run "$WORK/step0.h5" --json
grep -v '"run_ms"\|"golden_ms"\|"threads"' "$WORK/out" > "$WORK/j1"
expect_exit 1 "$CLI" run "$WORK/step0.h5" --json --jobs 3
grep -v '"run_ms"\|"golden_ms"\|"threads"' "$WORK/out" > "$WORK/j3"
checks=$((checks + 1))
cmp -s "$WORK/j1" "$WORK/j3" || fail "--jobs 3 changed the results or their order"
# Small tensors are stored compact (in their object headers): h5py reads them, and the same
# file with every one rewritten by h5py as an ordinary contiguous dataset (the layout of files
# imported before) runs to the same results.
if have_h5py; then
    mkdir -p "$WORK/h5py"
    /usr/bin/python3 - "$WORK/step0.h5" "$WORK/h5py/step0.h5" <<'PY' || fail "h5py could not read or rewrite the imported file"
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
compact = []
with h5py.File(sys.argv[2], "a") as f:
    f.visititems(lambda name, obj: compact.append(name) if isinstance(obj, h5py.Dataset)
                 and obj.id.get_create_plist().get_layout() == h5py.h5d.COMPACT else None)
    assert compact, "no compact dataset"
    for name in compact:
        data, attrs = f[name][()], dict(f[name].attrs)
        del f[name]
        f.create_dataset(name, data=data)
        f[name].attrs.update(attrs)
        assert f[name].id.get_create_plist().get_layout() == h5py.h5d.CONTIGUOUS
print(len(compact), "compact datasets rewritten")
PY
    expect_exit 1 "$CLI" run "$WORK/h5py/step0.h5" --json
    checks=$((checks + 1))
    grep -v '"run_ms"\|"golden_ms"\|"threads"' "$WORK/out" | sed "s|$WORK/h5py/|$WORK/|g" | cmp -s - "$WORK/j1" ||
        fail "the file with contiguous datasets gives other results"
fi
# The table, the device verdicts and a CSV report are the same from worker processes, and a
# shard split further among workers is that shard.
# (Only the summary's count of threads and processes differs.)
expect_exit 1 "$CLI" run "$WORK/step0.h5" --jobs 1 --threads 1 --report "$WORK/r1.csv"
cp "$WORK/out" "$WORK/t1"
expect_exit 1 "$CLI" run "$WORK/step0.h5" --jobs 2 --report "$WORK/r2.csv" --progress
expect_out "product a2, 1 thread in each of 2 worker processes"
checks=$((checks + 1))
diff <(sed 's/ in each of 2 worker processes//' "$WORK/out") "$WORK/t1" > /dev/null ||
    fail "--jobs 2 changed the table or the device verdicts"
checks=$((checks + 1))
cmp -s "$WORK/r1.csv" "$WORK/r2.csv" || fail "--jobs 2 changed the CSV report"
expect_err "\[16/16\] /msprobe/"
expect_exit 1 "$CLI" run "$WORK/step0.h5" --shard 1/3 --jobs 1 --threads 1 --brief
cp "$WORK/out" "$WORK/b1"
expect_exit 1 "$CLI" run "$WORK/step0.h5" --shard 1/3 --jobs 2 --brief
checks=$((checks + 1))
diff <(sed 's/ in each of 2 worker processes//' "$WORK/out") "$WORK/b1" > /dev/null ||
    fail "--shard 1/3 --jobs 2 is not shard 1/3"
# Ctrl-C stops the worker processes, and nothing of them is left behind.
many=()
for i in $(seq 40); do many+=("$WORK/step0.h5"); done
TMPDIR="$WORK/tmp" && mkdir -p "$TMPDIR" && export TMPDIR
# Starts run --jobs 2 on many files in the background; sets parent and children (its workers).
start_workers() {
    "$CLI" run "${many[@]}" --jobs 2 --brief > "$WORK/out" 2> "$WORK/err" &
    parent=$!
    for _ in $(seq 100); do [ "$(pgrep -P "$parent" | wc -l)" -ge 2 ] && break; sleep 0.1; done
    children=$(pgrep -P "$parent" | tr '\n' ' ')
    checks=$((checks + 1))
    [ -n "$children" ] || fail "no worker processes started"
}
# Waits for the run; it must exit with $1, and leave no worker and no file behind ($2 says when).
expect_run_cleaned_up() {
    wait "$parent"
    local status=$?
    checks=$((checks + 1))
    [ "$status" -eq "$1" ] || fail "$2: run exited with $status, not $1"
    sleep 0.2
    for c in $children; do
        checks=$((checks + 1))
        kill -0 "$c" 2> /dev/null && fail "worker process $c outlived the run ($2)"
    done
    checks=$((checks + 1))
    [ -z "$(ls -A "$TMPDIR")" ] || fail "$2: the run left $(ls "$TMPDIR") behind"
}
start_workers
kill -INT "$parent"
expect_run_cleaned_up 130 "after SIGINT (130: killed by SIGINT)"
# A worker that dies before it has sent all its results fails the run (exit 2) with a sentence
# that names it; the other worker is stopped.
start_workers
kill -KILL "${children%% *}"
expect_run_cleaned_up 2 "a killed worker"
expect_err "opscope-cli: worker [12] of 2 was killed by signal 9 after [0-9]* of its 320 cases"
unset TMPDIR

for i in 0 1 2; do
    "$CLI" run "$WORK/step0.h5" --shard $i/3 --report "$WORK/s$i.json" > /dev/null
done
expect_exit 1 "$CLI" report merge "$WORK/s2.json" "$WORK/s0.json" "$WORK/s1.json" -o "$WORK/all.json"
expect_out "merged 3 reports: 16 cases, 15 passed, 1 failed, 0 errors"
# The merged shards' device verdicts, as the whole run prints them.
expect_out "step0/rank0/Functional.conv2d.4: device fails: npu/gradWeight"
expect_out "  16 calls: 1 device fails, 15 emulation and device agree"
expect_out "in the debugger: opscope $WORK/step0.h5 --case /msprobe/step0/rank0/Functional.conv2d.4"
checks=$((checks + 1))
/usr/bin/python3 - "$WORK/step0.json" "$WORK/all.json" <<'PY' || fail "the merged shards differ from the whole run"
import json, sys
a, m = (json.load(open(p)) for p in sys.argv[1:])
assert [c["path"] for c in a["cases"]] == [c["path"] for c in m["cases"]]
assert [c["status"] for c in a["cases"]] == [c["status"] for c in m["cases"]]
PY
# A missing run shard, a shard merged twice and a report given twice are refused (exit 2): the
# merged verdict would leave cases out or count them twice.
expect_exit 2 "$CLI" report merge "$WORK/s0.json" "$WORK/s2.json" -o "$WORK/part.json"
expect_one_line_error
expect_err "not every shard is here: no report holds run shard 1/3"
[ -e "$WORK/part.json" ] && fail "a merge with a missing shard wrote its report"
cp "$WORK/s1.json" "$WORK/s1_retry.json"
expect_exit 2 "$CLI" report merge "$WORK/s0.json" "$WORK/s1.json" "$WORK/s1_retry.json" "$WORK/s2.json" -o "$WORK/m.json"
expect_err "'$WORK/s1.json' and '$WORK/s1_retry.json' are both run shard 1/3 of the same files"
expect_exit 2 "$CLI" report merge "$WORK/s0.json" "$WORK/s1.json" "$WORK/s2.json" "$WORK/./s0.json" -o "$WORK/m.json"
expect_err "'$WORK/./s0.json' is given twice (also as '$WORK/s0.json')"
expect_exit 2 "$CLI" report merge "$WORK/step0.json" "$WORK/s1.json" -o "$WORK/m.json"
expect_err "case '/msprobe/step0/rank0/Functional.conv2d.0' of '$WORK/step0.h5' is in both '$WORK/step0.json' and '$WORK/s1.json'"
# --allow-missing merges what is there and records what is not.
expect_exit 0 "$CLI" report merge "$WORK/s0.json" "$WORK/s2.json" -o "$WORK/part.json" --allow-missing
expect_out "missing (--allow-missing): run shard 1/3"
checks=$((checks + 1))
/usr/bin/python3 - "$WORK/part.json" <<'PY' || fail "the partial merge does not record its missing shard"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["missing_shards"] == [{"kind": "run shard", "count": 3, "missing": [1],
                                "present_in": [m["merged_from"][0], m["merged_from"][1]]}], m["missing_shards"]
assert m["summary"]["cases"] == 11 and m["summary"]["exit_code"] == 0, m["summary"]
PY
# Shards of two different runs (other files) are two families, each missing its other half,
# concatenated, not interleaved by their positions.
"$CLI" run "$WORK/step0.h5" --shard 0/2 --report "$WORK/a0.json" > /dev/null
"$CLI" run "$WORK/rank0.h5" --shard 1/2 --report "$WORK/b1.json" > /dev/null
expect_exit 2 "$CLI" report merge "$WORK/a0.json" "$WORK/b1.json" -o "$WORK/ab.json"
expect_err "no report holds run shard 1/2; run shard 0/2"
expect_exit 1 "$CLI" report merge "$WORK/a0.json" "$WORK/b1.json" -o "$WORK/ab.json" --allow-missing
checks=$((checks + 1))
/usr/bin/python3 - "$WORK/ab.json" <<'PY' || fail "the shards of two runs were interleaved or their gaps not recorded"
import json, sys
m = json.load(open(sys.argv[1]))
files = [c["file"].rsplit("/", 1)[-1] for c in m["cases"]]
assert files == ["step0.h5"] * 8 + ["rank0.h5"] * 7, files
assert [g["missing"] for g in m["missing_shards"]] == [[1], [0]], m["missing_shards"]
PY
# Shards of the import (the Slurm example of docs/SCALE.md: each task imports and runs its shard,
# unsharded): the case files carry their shard, the reports list it, and merge wants them all.
for i in 0 1 2; do
    expect_exit 0 "$CLI" import msprobe "$L1" --shard $i/3 -o "$WORK/imp$i.h5" --quiet
    "$CLI" run "$WORK/imp$i.h5" --report "$WORK/ri$i.json" > /dev/null
done
expect_exit 0 "$CLI" info "$WORK/imp1.h5"
expect_out "case file, .* 7 cases, import shard 1/3"
checks=$((checks + 1))
grep -q '"file": "'"$WORK"'/imp1.h5"' "$WORK/ri1.json" && grep -q '"import_shard": "1/3"' "$WORK/ri1.json" ||
    fail "the report does not list its file's import shard"
expect_exit 1 "$CLI" report merge "$WORK/ri2.json" "$WORK/ri0.json" "$WORK/ri1.json" -o "$WORK/imp_all.json"
expect_out "merged 3 reports: 16 cases, 15 passed, 1 failed, 0 errors"
expect_exit 2 "$CLI" report merge "$WORK/ri0.json" "$WORK/ri2.json" -o "$WORK/m.json"
expect_err "no report holds import shard 1/3 "
cp "$WORK/imp1.h5" "$WORK/imp1_again.h5"
"$CLI" run "$WORK/imp1_again.h5" --report "$WORK/ri1_again.json" > /dev/null
expect_exit 2 "$CLI" report merge "$WORK/ri0.json" "$WORK/ri1.json" "$WORK/ri1_again.json" "$WORK/ri2.json" -o "$WORK/m.json"
expect_err "'$WORK/imp1.h5' and '$WORK/imp1_again.h5' are both import shard 1/3"
# An unsharded import's file carries no shard.
checks=$((checks + 1))
grep -q '"import_shard": null' "$WORK/step0.json" || fail "an unsharded import's file has an import shard"

expect_exit 2 "$CLI" run "$WORK/step0.h5" --shard 3/3
expect_err "--shard must be I/N"
expect_exit 2 "$CLI" report merge "$WORK/step0.h5" -o "$WORK/m.json"
expect_err "is not a JSON report"
expect_exit 2 "$CLI" report merge "$WORK/s0.json" -o "$WORK/s0.json"
expect_one_line_error

# --bind from .pt, .npy and .npz files (and --expect); .safetensors below, with compare.
/usr/bin/python3 - "$WORK" "$READERS" <<'PY'
import sys, numpy as np
work = sys.argv[1]
rng = np.random.default_rng(1)
np.save(f"{work}/dy.npy", rng.standard_normal((3, 8)).astype(np.float32))
np.savez(f"{work}/xs.npz", x=rng.standard_normal((3, 8)).astype(np.float32))
np.save(f"{work}/gamma.npy", np.asfortranarray(rng.uniform(0.5, 1.5, (8,)).astype(">f4")))
PY
/usr/bin/python3 - "$WORK" <<'PY'
import sys, numpy as np
w = sys.argv[1]
x = np.load(f"{w}/xs.npz")["x"].astype(np.float64)
np.save(f"{w}/rstd.npy", (1 / np.sqrt((x * x).mean(axis=1) + 1e-6)).astype(np.float32))
PY
expect_exit 0 "$CLI" run --op rms_norm_grad --bind dy="$WORK/dy.npy" --bind x="$WORK/xs.npz:x" \
    --bind rstd="$WORK/rstd.npy" --bind gamma="$WORK/gamma.npy" --brief
expect_out "aclnnRmsNormGrad"
expect_exit 0 "$CLI" run --op rms_norm_grad --bind dy="$PT/NPU.npu_rms_norm.0.backward.input.0.pt" \
    --bind x="$PT/NPU.npu_rms_norm.0.forward.input.0.pt" --bind rstd="$PT/NPU.npu_rms_norm.0.forward.output.1.pt" \
    --bind gamma="$PT/NPU.npu_rms_norm.0.forward.input.1.pt" --expect dxOut="$PT/NPU.npu_rms_norm.0.backward.output.0.pt"
expect_out "opscope vs expected"
expect_exit 2 "$CLI" run --op rms_norm_grad --bind dy="$READERS/bad_truncated.pt" --bind x="$WORK/dy.npy"
expect_one_line_error
expect_err "--bind dy: .*bad_truncated.pt' is not a readable zip archive"
expect_exit 2 "$CLI" run --op rms_norm_grad --bind dy="$WORK/xs.npz:nope" --bind x="$WORK/dy.npy"
expect_err "no array 'nope'"
expect_exit 2 "$CLI" run --op rms_norm_grad --bind dy="$WORK/missing.npy" --bind x="$WORK/dy.npy"
expect_err "no file"

# compare reads the same formats as --bind: the device's gradient in the imported case file is
# the .pt it came from, bit for bit; different tensors fail; bad names get one sentence.
expect_exit 0 "$CLI" compare "$WORK/step0.h5:/msprobe/step0/rank0/Functional.conv2d.0/npu/gradInput" \
    "$PT/Functional.conv2d.0.backward.output.0.pt"
expect_out "max abs error  *0$"
expect_out "reference  *.*Functional.conv2d.0.backward.output.0.pt  float32\[2, 4, 7, 6\]"
expect_exit 1 "$CLI" compare "$PT/Functional.conv2d.0.backward.output.0.pt" "$PT/Functional.conv2d.0.forward.input.0.pt"
expect_out "verdict  *fail"
expect_exit 1 "$CLI" compare "$WORK/dy.npy" "$WORK/xs.npz:x" --json
expect_out '"reference": "'"$WORK"'/xs.npz:x"'
expect_exit 2 "$CLI" compare "$WORK/dy.npy" "$WORK/gamma.npy"
expect_one_line_error
expect_err "$WORK/gamma.npy is float32\[8\] but $WORK/dy.npy is float32\[3, 8\]: the element counts differ"
expect_exit 2 "$CLI" compare "$WORK/dy.npy" "$READERS/bad_truncated.pt"
expect_err "the reference tensor: .*bad_truncated.pt' is not a readable zip archive"
# A Hugging Face checkpoint: info lists it, compare and --bind read one tensor of it.
expect_exit 0 "$CLI" info "$READERS/model.safetensors"
expect_out "model.safetensors: tensor file, .*, 9 tensors"
expect_out "bfloat16\[5\]  $READERS/model.safetensors:norm.weight"
expect_exit 0 "$CLI" compare "$READERS/model.safetensors:head.bias" "$READERS/model.safetensors:head.bias"
expect_out "max abs error  *0$"
expect_exit 0 "$CLI" compare "$READERS/single.safetensors" "$READERS/single.safetensors:x"
expect_exit 2 "$CLI" compare "$READERS/model.safetensors" "$READERS/single.safetensors"
expect_one_line_error
expect_err "model.safetensors' holds 9 tensors (embed.weight, norm.weight, .*): name one as"
expect_exit 0 "$CLI" info "$READERS/sharded.safetensors.index.json"  # a sharded one, through its index
expect_out "sharded.safetensors.index.json: tensor file, .*, 3 tensors"
expect_out "bfloat16\[6, 5\]  $READERS/sharded.safetensors.index.json:layers.1.weight"
expect_exit 0 "$CLI" compare "$READERS/sharded.safetensors.index.json:layers.0.weight" "$READERS/single.safetensors"
expect_exit 2 "$CLI" info "$READERS/bad_escape.safetensors.index.json"
expect_err "puts tensor 'x' in \"../readers/single.safetensors\", which is not the name of a file beside the index"
expect_exit 2 "$CLI" compare "$READERS/bad_truncated.safetensors" "$READERS/single.safetensors"
expect_err "bad_truncated.safetensors' is not a valid .safetensors file: its tensors cover 120 bytes"
# Two files of several tensors compare key by key, across formats; a key one lacks fails the run.
expect_exit 0 "$CLI" compare "$READERS/model.safetensors" "$READERS/model.safetensors"
expect_out "norm.weight  *bfloat16  *0  *0  *pass"
expect_out "9 tensors: 9 passed, 0 failed or not compared. Standard: cann"
# Two folders of tensor files (an NPU dump's dump_tensor_data against another run's) compare file by
# file: a file only one has is not judged; the bundled dump's one truncated .pt is a sentence on
# stderr and exit 2, and every other file is still compared.
TENSORS="$L1/step0/rank0/dump_tensor_data"
cp -r "$TENSORS" "$WORK/other_run"
rm "$WORK/other_run/Torch.group_norm.0.forward.output.0.pt"
expect_exit 2 "$CLI" compare "$TENSORS" "$WORK/other_run"
expect_err "Functional.conv2d.5.forward.input.1.pt' is not a readable zip archive"
expect_out "Functional.conv1d.0.backward.input.0.pt  *float16 .* pass"
expect_out "not judged: $WORK/other_run has no 'Torch.group_norm.0.forward.output.0.pt'"
expect_out "143 tensors: 141 passed, 2 failed or not compared"
expect_exit 2 "$CLI" compare "$TENSORS" "$TENSORS/Functional.conv1d.0.backward.input.0.pt"
expect_err "is a folder: compare it with another folder of tensor files"
# --progress reports on stderr (a line every 100 keys and the last, off a terminal); stdout is the table.
expect_exit 0 "$CLI" compare "$READERS/model.safetensors" "$READERS/model.safetensors" --progress
expect_err "^\[9/9\] "
expect_out "9 tensors: 9 passed"
expect_exit 1 "$CLI" compare "$READERS/dict.pt" "$READERS/pair.npz" --json
expect_out '"note": "'"$READERS"'/pair.npz has no .weight.'
expect_out '"exit_code": 1'
expect_exit 2 "$CLI" compare "$READERS/dict.pt" "$READERS/pair.npz" --dtype fp16
expect_err "two sets of tensors compare each in its own"
# A training checkpoint: the state dict's tensors are named through the dict that holds them.
expect_exit 0 "$CLI" info "$READERS/checkpoint.pth"
expect_out "checkpoint.pth: tensor file, .*, 4 tensors"
expect_out "float32\[2, 3, 5\]  $READERS/checkpoint.pth:model/conv.weight"
expect_out "float32\[2, 5\]  $READERS/checkpoint.pth:optimizer/state/0/exp_avg"
expect_exit 0 "$CLI" compare "$READERS/checkpoint.pth:model/bn.bias" "$READERS/dict.pt:bias"
# info lists a tensor file's tensors as --bind and compare name them.
expect_exit 0 "$CLI" info "$READERS/dict.pt"
expect_out "dict.pt: tensor file, .*, 2 tensors"
expect_out "float32\[2, 6, 5\]  $READERS/dict.pt:weight"
expect_out "float16\[5\]  $READERS/dict.pt:bias"
expect_exit 0 "$CLI" info "$WORK/dy.npy" --json
expect_out '"spec": "'"$WORK"'/dy.npy"'
expect_out '"shape": \[3, 8\]'
expect_exit 2 "$CLI" info "$READERS/dict.pt" --tree
expect_err "--tree lists an HDF5 file's tree; '$READERS/dict.pt' is a tensor file"
expect_exit 2 "$CLI" info "$READERS/bad_truncated.pt"
expect_one_line_error
# A key of a .pt state dict reads that tensor's storage only: with the weight's storage cut
# short, the bias still reads, and the weight is refused with the storage it lacks.
/usr/bin/python3 - "$READERS/dict.pt" "$WORK/dict_damaged.pt" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as zi, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as zo:
    for info in zi.infolist():
        data = zi.read(info)
        zo.writestr(info, data[:100] if info.filename.endswith("/data/0") else data)  # data/0: weight
PY
expect_exit 0 "$CLI" compare "$WORK/dict_damaged.pt:bias" "$READERS/dict.pt:bias"
expect_out "max abs error  *0$"
expect_exit 2 "$CLI" compare "$WORK/dict_damaged.pt:weight" "$READERS/dict.pt:weight"
expect_err "dict_damaged.pt' is damaged: storage '0' should hold 240 bytes (60 float32) but its entry has 100"
expect_exit 2 "$CLI" compare "$WORK/dy.txt" "$WORK/dy.npy"
expect_err "the actual tensor must be FILE.h5:/path/to/dataset, FILE.npy, FILE.npz:KEY, FILE.pt\[:KEY\] or FILE.safetensors\[:KEY\]"

finish
