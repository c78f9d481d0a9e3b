#!/usr/bin/env bash
# Issue 12's C API misuse probe as a test: installs the SDK from a build tree, builds
# capi_misuse.cpp with the official g++ line (plus the build's sanitizer flags), runs every
# scenario and checks the status codes it prints. A crash, a sanitizer report or a missing
# expected line fails the test.
#   run_misuse.sh BUILD_DIR SOURCE_DIR CXX [SANITIZER_FLAGS]
set -euo pipefail
build_dir=$1 source_dir=$2 cxx=${3:-g++} sanitizer_flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sdk=$work/sdk
cmake --install "$build_dir" --prefix "$sdk" > "$work/install.log"
# shellcheck disable=SC2086  # the flags are words
"$cxx" -std=c++17 -O1 -g "$source_dir/capi_misuse.cpp" -o "$work/capi_misuse" -I"$sdk/include" -I"$sdk/include/aclnnop" \
  -L"$sdk/lib" -lopapi -lascendcl -lnnopbase -pthread -Wl,-rpath,"$sdk/lib" $sanitizer_flags

failures=0
out=""
# probe NAME ARGS...: runs one scenario; its output goes to $out.
probe() {
  local name=$1
  out=$work/$name.out
  shift
  echo "== capi_misuse $*"
  local rc=0
  "$work/capi_misuse" "$@" > "$out" 2>&1 || rc=$?
  sed 's/^/   /' "$out" | cut -c1-220
  if [ "$rc" != 0 ]; then
    echo "FAIL: capi_misuse $* exited with $rc"
    failures=$((failures + 1))
  fi
  if grep -qE "runtime error:|ERROR: AddressSanitizer|WARNING: ThreadSanitizer|ERROR: LeakSanitizer" "$out"; then
    echo "FAIL: capi_misuse $* has a sanitizer report"
    failures=$((failures + 1))
  fi
}
# expect TEXT...: every TEXT is a line fragment of the last probe's output.
expect() {
  for text in "$@"; do
    grep -qF -- "$text" "$out" || { echo "FAIL: expected '$text'"; failures=$((failures + 1)); }
  done
}

# Phase 2 after aclrtFree of the tensors' memory: 361001, nothing written.
ops=(GroupNormBackward RmsNormGrad ConvolutionBackward GridSampler2DBackward ConvolutionBackward)
for which in 0 1 2 3 4; do
  probe "free_$which" free_memory $which
  expect "RESULT free_memory prepare rc=0" "RESULT free_memory ${ops[$which]} run_after_aclrtFree rc=361001"
  probe "free_realloc_$which" free_memory $which 1
  expect "${ops[$which]} run_after_aclrtFree_and_realloc rc=361001" "${ops[$which]} other_buffers_bytes_changed=0"
done
probe repeatable repeatable_after_free
expect "first run rc=0" "run after tensors destroyed and memory freed rc=361001" "run after workspace freed too rc=361001"
probe lying lying_workspace
expect "phase2 rc=361001 [361001] aclnnGroupNormBackward: workspaceSize is"
for which in memcpy_h2d memcpy_d2h memset 'memcpy_2^63'; do
  probe "wrap_$which" wrap "$which"
  expect "RESULT wrap $which rc=100000"
done
probe spent spent_executor
expect "first run rc=0" "second run rc=361001" "destroy spent executor rc=0" "run after 300 later executors rc=361001"
probe destroy_tensors destroy_tensors
for op in "${ops[@]:0:4}"; do expect "$op run_after_aclDestroyTensor rc=0"; done
grep -q "WRONG RESULT" "$out" && { echo "FAIL: wrong result"; failures=$((failures + 1)); }

# Sizes that overflow are refused by aclCreateTensor; a zero-stride output by phase 1.
probe huge huge_shapes
for c in 'dims[2^31,2^31,4]' 'dims[2^32,2^32]' 'dims[2^62,3]' 'dims[INT64_MAX,2]' 'dims[2^31,2^31,4] with storageDims' \
         'dims[-1,4]' 'dims[4,-4]' 'dims[3] strides[2^61] (bytes wrap)' 'dims[2,2] strides[2^61,1]' \
         'dims[2] offset INT64_MAX-1' 'dims[2] offset 2^62' 'dims[2] strides[-1]'; do
  expect "RESULT huge_shapes create $c -> refused [161002] aclCreateTensor: "
done
expect "create dims[4,4] strides[0,0] (overlap) -> CREATED" "phase2 dims[4,4] strides[0,0] (overlap) rc=0" \
       "create dims[2^40] strides[0] -> CREATED" "RmsNormGrad phase1 dims[2^40] strides[0] rc=161002"
probe overlap overlap
expect "RmsNormGrad dxOut strides [0,0] phase1 rc=161002" "RmsNormGrad dxOut aliases x phase2 rc=0" \
       "RESULT overlap aliasing: 0 of 48 dx elements differ"
probe nulls nulls
expect "aclCreateTensor(host memory, not aclrtMalloc) returned non-null? rc=0" \
       "RmsNormGrad phase2 executor = stack pointer rc=361001" "RmsNormGrad phase2 stream = stack pointer rc=361001" \
       "aclrtMemcpy(null dst) rc=100000" "aclDestroyTensor(stack garbage) rc=161002"

# One executor from two threads; destroy while running; finalize while another thread works.
probe same same_executor 0 50
expect "repeatable=0 rounds=50 both_succeeded=0 one_succeeded=50 none=0" "survived 600 more executors"
probe same_repeatable same_executor 1 20
expect "repeatable=1 rounds=20 both_succeeded=20 one_succeeded=0 none=0"
probe destroy_running destroy_while_running 10
expect "RESULT destroy_while_running run rc=0" "RESULT destroy_while_running destroy rc=0" \
       "rounds=10 destroy_returned_success=10"
probe finalize finalize_while_running
expect "RESULT finalize_while_running aclFinalize rc=0"
after=$(sed -n 's/.*(of which after finalize: \([0-9]*\)) error_calls=\([0-9]*\).*/\1 \2/p' "$out")
# A call that passed the launch check just before aclFinalize may count as "after": at most one.
read -r ok_after errors <<< "${after:-9 0}"
[ "$ok_after" -le 1 ] && [ "$errors" -ge 1 ] ||
  { echo "FAIL: calls succeeded after aclFinalize ($after)"; failures=$((failures + 1)); }

# 8 threads x 200 calls with tracing: bitwise the sequential results, every executor traced.
OPSCOPE_TRACE=$work/concurrent.h5 probe concurrent concurrent 8 200
expect "RESULT concurrent threads=8 calls=1600 errors=0 mismatches=0 expected_executors=1604"
if /usr/bin/python3 -c "import h5py" 2> /dev/null; then
  n=$(/usr/bin/python3 -c "import h5py, sys; print(len(h5py.File(sys.argv[1], 'r')['executors']))" "$work/concurrent.h5")
  echo "   trace holds $n executors"
  [ "$n" = 1604 ] || { echo "FAIL: the trace holds $n executors, not 1604"; failures=$((failures + 1)); }
fi
probe loop loop 12
expect "DONE 11"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "capi misuse: all scenarios gave the expected codes"
