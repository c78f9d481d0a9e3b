#!/usr/bin/env bash
# Set-up, build, and the whole test suite through CTest (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build/release
# Qt widget tests run offscreen; nothing here needs a display.
QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$(nproc)" --timeout 900
