#!/usr/bin/env bash
# Builds the libFuzzer targets (the fuzz preset: clang, ASan, UBSan, in build/fuzz) and runs
# each for a bounded time. Independent of CTest; scripts/test.sh calls it for a short run.
#   bash scripts/fuzz.sh                      case_reader trace_reader tensor_file phase1, 60 s each
#   bash scripts/fuzz.sh h5_raw               raw HDF5 bytes (finds libhdf5's own crashes)
#   OPSCOPE_FUZZ_SECONDS=3600 OPSCOPE_FUZZ_JOBS=2 bash scripts/fuzz.sh phase1
# Inputs that add coverage go to build/fuzz/corpus/<target> (the committed seeds in
# tests/fuzz/corpus/<target> are only read); a crash is saved in build/fuzz/findings/ and
# ends the script with status 1. OPSCOPE_FUZZ_STRICT=1: a reader exception other than
# H5Error is a finding too. See tests/fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${OPSCOPE_FUZZ_SECONDS:-60}
jobs=${OPSCOPE_FUZZ_JOBS:-1}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(case_reader trace_reader tensor_file phase1)

if ! command -v clang++ > /dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a > /dev/null 2>&1; then
  echo "fuzz: needs clang and libFuzzer (apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
fi

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake --preset fuzz "${launcher[@]}" > /dev/null
cmake --build build/fuzz --parallel "$(nproc)" --target "${targets[@]/#/fuzz_}"

mkdir -p build/fuzz/findings
status=0
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  mkdir -p "$corpus"
  seeds=(tests/fuzz/corpus/"$t")
  [ "$t" = h5_raw ] && seeds=(datasets tests/data)
  parallel=()
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  echo "fuzz: $t for ${seconds} s"
  # The vetting limits, for the fuzzer: no input may take seconds or gigabytes.
  if ! ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
      build/fuzz/tests/fuzz/fuzz_"$t" "$corpus" "${seeds[@]}" -max_total_time="$seconds" \
      "${parallel[@]}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
      -artifact_prefix=build/fuzz/findings/"$t"- -print_final_stats=1 2> build/fuzz/"$t".log; then
    echo "fuzz: $t found a problem; its report:" >&2
    grep -v '^#\|^INFO\|^Done\|^MS:' build/fuzz/"$t".log | head -60 >&2
    status=1
  else
    grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' build/fuzz/"$t".log | tr '\n' ' '
    echo
  fi
done
exit $status
