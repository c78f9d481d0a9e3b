#!/usr/bin/env bash
# Set-up, build, and the whole test suite (what CI runs): each libFuzzer target for a bounded
# time, then CTest, whose summary closes the output.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Each libFuzzer target for OPSCOPE_FUZZ_SECONDS (default 20; 0 skips), when clang is there.
fuzz_seconds=${OPSCOPE_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" -gt 0 ] && command -v clang++ > /dev/null; then
  OPSCOPE_FUZZ_SECONDS=$fuzz_seconds bash scripts/fuzz.sh
fi
# Big tensors in bounded memory (docs/GUI.md, "Big tensors"): a checkpoint-like file with a
# 512 MiB embedding, bound to RmsNormGrad, run and viewed against the peak-RSS and
# time-to-heatmap targets. Skipped under CTest (it needs the file and ~3 GB); run here.
big_dir=$(mktemp -d)
trap 'rm -rf "$big_dir"' EXIT
/usr/bin/python3 scripts/make_big_checkpoint.py "$big_dir/checkpoint.h5"
big_status=0
OPSCOPE_BIG_CHECKPOINT="$big_dir/checkpoint.h5" QT_QPA_PLATFORM=offscreen QTEST_FUNCTION_TIMEOUT=1800000 \
  build/release/tests/test_big_tensor || big_status=$?
rm -f "$big_dir/checkpoint.h5"
# Qt widget tests run offscreen; nothing here needs a display.
cd build/release
QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$(nproc)" --timeout 900
[ "$big_status" -eq 0 ] || { echo "test_big_tensor failed (exit $big_status)"; exit "$big_status"; }
