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
# Qt widget tests run offscreen; nothing here needs a display.
cd build/release
QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$(nproc)" --timeout 900
