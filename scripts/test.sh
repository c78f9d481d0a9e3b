#!/usr/bin/env bash
# Set-up, build, and the whole test suite through CTest (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Qt widget tests run offscreen; nothing here needs a display.
(cd build/release && QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$(nproc)" --timeout 900)
# Then each libFuzzer target for a bounded time: OPSCOPE_FUZZ_SECONDS each (default 20; 0 skips).
fuzz_seconds=${OPSCOPE_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" -gt 0 ] && command -v clang++ > /dev/null; then
  OPSCOPE_FUZZ_SECONDS=$fuzz_seconds bash scripts/fuzz.sh
fi
