#!/usr/bin/env bash
# Reproducers as a user makes them: export a case, build the folder's program with its own
# CMakeLists.txt against the installed SDK (warnings as errors), run it, and check that
#   - its outputs are OpScope's to the bit (expected/),
#   - 'import repro' + 'run' judge them (agree; a tampered output: device fails, exit 1),
#   - every misuse is one sentence, exit 2, with nothing left behind.
# Usage: run_repro.sh BUILD_DIR SOURCE_DIR CLI [SANITIZE=ON|OFF]
set -uo pipefail
build_dir=$1 root=$2 cli=$(realpath "$3") sanitize=${4:-OFF}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sdk=$work/sdk
cmake --install "$build_dir" --prefix "$sdk" > "$work/install.log" || { echo "install failed"; exit 1; }
flags="-Wall -Wextra -Werror"
[ "$sanitize" = ON ] && flags="$flags -fsanitize=address,undefined"
# Every build of a program here: a sanitizer build's libraries need the sanitizer in the program.
cmake_args=(-DACLNN_ROOT="$sdk" -DCMAKE_CXX_FLAGS="$flags")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Each operator, every dtype, masks that leave outputs out (and the one whose C API still
# takes them), an absent optional tensor, 1-D/3-D/transposed convolutions.
cases=(
  convolution_backward:/convolution_backward/bf16/conv2d_basic
  convolution_backward:/convolution_backward/fp16/conv3d_basic
  convolution_backward:/convolution_backward/fp32/transposed1d_dilation
  convolution_backward:/convolution_backward/fp32/conv2d_weight_only
  group_norm_backward:/group_norm_backward/fp16/no_gamma
  group_norm_backward:/group_norm_backward/fp32/mask_input_beta
  rms_norm_grad:/rms_norm_grad/bf16/gamma_fp32
  grid_sampler2d_backward:/grid_sampler2d_backward/fp32/mask_grid_only
  grid_sampler2d_backward:/grid_sampler2d_backward/bf16/bicubic_zeros_noalign
)
# And an executor of a trace, whose recorded-only parameters (gemmTile, ...) the case leaves out.
"$cli" run "$root/datasets/group_norm_backward.h5" --case /group_norm_backward/bf16/basic --trace "$work/trace.h5" 2> /dev/null \
  > /dev/null || fail "run --trace"
cases+=(trace:/executors/000000)
n=0
for entry in "${cases[@]}"; do
  file=$root/datasets/${entry%%:*}.h5 case=${entry#*:}
  [ "${entry%%:*}" = trace ] && file=$work/trace.h5
  dir=$work/repro$n
  n=$((n + 1))
  echo "== $case"
  "$cli" export repro "$file" --case "$case" -o "$dir" > "$work/export.out" || { fail "export $case"; cat "$work/export.out"; continue; }
  (cd "$dir" && cmake -S . -B build "${cmake_args[@]}" > ../cmake.log 2>&1 &&
     cmake --build build > ../build.log 2>&1) || { fail "build $case"; tail -20 "$work/build.log"; continue; }
  "$dir/build/repro" "$dir" > "$work/run.out" 2>&1 || { fail "repro $case"; cat "$work/run.out"; continue; }
  grep -q "GetWorkspaceSize: workspace" "$work/run.out" || fail "$case: the program did not report phase 1"
  # Its own line per output against expected/ (for the device's owner): here, no difference.
  [ "$(grep -c "against OpScope's expected/, max |diff| 0 at .* 0 of .* 0 NaN mismatches" "$work/run.out")" -eq \
    "$(ls "$dir"/expected/*.npy | wc -l)" ] || { fail "$case: the program's own comparison"; cat "$work/run.out"; }
  for e in "$dir"/expected/*.npy; do
    [ -f "$dir/outputs/$(basename "$e")" ] || fail "$case: outputs/$(basename "$e") was not written"
  done
  # The same call through the same library: identical to the bit.
  "$cli" compare "$dir/outputs" "$dir/expected" --json > "$work/cmp.json" || fail "$case: compare outputs expected"
  grep -q '"max_abs_error": 0[,}]' "$work/cmp.json" || fail "$case: outputs differ from expected/"
  if grep -q '"max_abs_error": [1-9]' "$work/cmp.json" || grep -q '"max_abs_error": 0\.' "$work/cmp.json"; then
    fail "$case: an output differs from expected/"; fi
  "$cli" import repro "$dir" -o "$dir/judged.h5" > /dev/null || { fail "import repro $case"; continue; }
  "$cli" run "$dir/judged.h5" > "$work/judge.out" || { fail "run judged $case"; tail -5 "$work/judge.out"; }
  grep -q "emulation and device agree" "$work/judge.out" || { fail "$case: no agreement"; tail -5 "$work/judge.out"; }
done

# A device output far off: the judge says the device fails (exit 1). 1e30 as the last float32.
dir=$work/repro0b
"$cli" export repro "$root/datasets/convolution_backward.h5" --case /convolution_backward/fp32/conv2d_basic -o "$dir" > /dev/null
(cd "$dir" && cmake -S . -B build "${cmake_args[@]}" > /dev/null && cmake --build build > /dev/null) || fail "build fp32"
"$dir/build/repro" "$dir" > /dev/null || fail "repro fp32"
f=$dir/outputs/gradInput.npy
printf '\xca\xf2\x49\x71' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 4)) conv=notrunc 2> /dev/null
"$cli" import repro "$dir" -o "$dir/judged.h5" > /dev/null || fail "import tampered"
"$cli" run "$dir/judged.h5" > "$work/judge.out"
[ $? -eq 1 ] || fail "a tampered output should fail the run (exit 1)"
grep -q "device fails" "$work/judge.out" || { fail "no 'device fails'"; tail -5 "$work/judge.out"; }
# The program's own line says so too, when OpScope's expected/ and the run part.
f=$dir/expected/gradWeight.npy
printf '\xca\xf2\x49\x71' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 4)) conv=notrunc 2> /dev/null
"$dir/build/repro" "$dir" > "$work/run.out" || fail "repro fp32 again"
grep -q "gradWeight.npy: against OpScope's expected/, max |diff| 1e+30 at element 215 .* 1 of 216 elements off" \
  "$work/run.out" || { fail "the program's comparison missed a difference"; cat "$work/run.out"; }

# Misuse: one sentence, exit 2, nothing left behind.
expect2() {  # expect2 'message' command...
  local want=$1
  shift
  "$@" > "$work/o" 2> "$work/e"
  local got=$?
  [ $got -eq 2 ] || fail "exit $got, not 2: $*"
  grep -q -- "$want" "$work/e" || { fail "stderr lacks '$want': $*"; cat "$work/e"; }
}
expect2 "exists: export a reproducer into a new folder" "$cli" export repro "$root/datasets/rms_norm_grad.h5" \
  --case /rms_norm_grad/fp32/basic -o "$dir"
expect2 "holds 15 cases: name one or a group with --case (--case / for all)" "$cli" export repro "$root/datasets/rms_norm_grad.h5" -o "$work/x"
expect2 "has no case at '/nope'" "$cli" export repro "$root/datasets/rms_norm_grad.h5" --case /nope -o "$work/x"
# The training series has no bfloat16: the emulation rejects the call, so there is nothing to reproduce.
expect2 "nothing to reproduce: the emulated Atlas training series .* rejects the call (\[161002\]" "$cli" export repro "$root/datasets/rms_norm_grad.h5" --case /rms_norm_grad/bf16/basic \
  --product training -o "$work/x"
ls "$work" | grep -q "^x" && fail "a rejected export left $(ls "$work" | grep "^x")"
rm "$dir/outputs/gradWeight.npy"
expect2 "gradWeight.npy' is missing: build and run the reproducer first" "$cli" import repro "$dir" -o "$work/j.h5"
cp "$dir/expected/gradBias.npy" "$dir/outputs/gradWeight.npy"
expect2 "output 'gradWeight' of this call is float32\[" "$cli" import repro "$dir" -o "$work/j.h5"
expect2 "never over\|is one of\|input" "$cli" import repro "$dir" -o "$dir/case.h5"
# A bfloat16 output holding float32 values that are no bfloat16 (repro0 is the bf16 convolution).
cp "$work/repro0b/expected/gradInput.npy" "$work/repro0/outputs/gradInput.npy"
expect2 "holds values that are not bfloat16: output 'gradInput' is bfloat16, stored as float32" \
  "$cli" import repro "$work/repro0" -o "$work/j.h5"
# An output that is a pipe would block its reader; a folder has no size: refused before opening.
rm "$dir/outputs/gradWeight.npy"
mkfifo "$dir/outputs/gradWeight.npy"
expect2 "gradWeight.npy' is not a regular file" timeout 60 "$cli" import repro "$dir" -o "$work/j.h5"
rm "$dir/outputs/gradWeight.npy"
mkdir "$dir/outputs/gradWeight.npy"
expect2 "gradWeight.npy' is not a regular file" "$cli" import repro "$dir" -o "$work/j.h5"
[ -e "$work/j.h5" ] && fail "a failed import left j.h5"

# Bundles. The calls an msprobe dump's run says the device fails (the bundled dump has one), then
# a group on a product that rejects some of it: one folder a call, run_all.sh, one import.
"$cli" import msprobe "$root/datasets/msprobe/dump_l1" -o "$work/step0.h5" --quiet > /dev/null || fail "import msprobe"
(cd "$work" && "$cli" run step0.h5 --report step0.json > /dev/null)
(cd "$work" && "$cli" export repro step0.h5 --device-fails step0.json -o failing > "$work/o") || fail "export --device-fails"
grep -q "wrote failing/: 1 reproducer" "$work/o" || { fail "--device-fails: not one reproducer"; cat "$work/o"; }
[ -d "$work/failing/msprobe_step0_rank0_Functional.conv2d.4" ] || fail "--device-fails: no folder for Functional.conv2d.4"
bash "$work/failing/run_all.sh" "${cmake_args[@]}" > "$work/o" || { fail "run_all.sh"; cat "$work/o"; }
"$cli" import repro "$work/failing" -o "$work/failing.h5" > /dev/null || fail "import repro of a bundle"
"$cli" run "$work/failing.h5" > "$work/o" || fail "run of the bundle's cases"
grep -q "Functional.conv2d.4: emulation and device agree" "$work/o" || fail "the bundle's case was not judged"
"$cli" export repro "$root/datasets/convolution_backward.h5" --case /convolution_backward/bf16 \
  --case /convolution_backward/fp16/conv1d_basic --case /convolution_backward/fp16/conv2d_basic --product training \
  -o "$work/group" > "$work/o" || fail "export of a group"
grep -q "wrote .*group/: 2 reproducers on the Atlas training series" "$work/o" || { fail "group: not 2"; cat "$work/o"; }
[ "$(grep -c "not exported: /convolution_backward/bf16/" "$work/o")" -eq 5 ] || fail "group: the 5 bf16 calls not listed"
grep -q "^Not exported:" "$work/group/README.md" || fail "group: README.md does not list what was not exported"
OPSCOPE_PRODUCT=training bash "$work/group/run_all.sh" "${cmake_args[@]}" > /dev/null || fail "run_all.sh of the group"
rm "$work/group/convolution_backward_fp16_conv1d_basic/outputs/gradBias.npy"
"$cli" import repro "$work/group" -o "$work/group.h5" > "$work/o" || fail "import of a group with one folder short"
grep -q "imported 1 of 2 reproducers" "$work/o" || { fail "group import: not 1 of 2"; cat "$work/o"; }
grep -q "conv1d_basic/outputs/gradBias.npy' is missing" "$work/o" || fail "group import: the short folder not said"
"$cli" run "$work/group.h5" > "$work/o" || fail "run of the group's case"
grep -q "product training" "$work/o" && grep -q "conv2d_basic: emulation and device agree" "$work/o" ||
  { fail "the group's case was not judged on the training series"; tail -4 "$work/o"; }
expect2 "is both under --case and failed by the device" "$cli" export repro "$work/step0.h5" --device-fails \
  "$work/step0.json" --case /msprobe/step0/rank1 -o "$work/y"
expect2 "has no case of" "$cli" export repro "$root/datasets/rms_norm_grad.h5" --device-fails "$work/step0.json" -o "$work/y"
expect2 "neither a reproducer nor a bundle" "$cli" import repro "$root/datasets" -o "$work/y.h5"

echo "$n reproducers built and judged; $failures failure(s)"
[ $failures -eq 0 ]
