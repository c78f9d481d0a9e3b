#!/usr/bin/env bash
# Set-up, build, and the main job: the debugger on the bundled datasets when a display is
# available, otherwise the CLI over every bundled case (with an executor trace).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cli=build/release/app/opscope-cli
gui=build/release/app/opscope
trace=build/release/opscope-trace.h5
if [ -n "${DISPLAY:-}" ] && [ -x "$gui" ] && [ "${OPSCOPE_HEADLESS:-0}" != 1 ]; then
  echo "run: starting the debugger on datasets/group_norm_backward.h5 (OPSCOPE_HEADLESS=1 for the CLI)"
  exec "$gui" datasets/group_norm_backward.h5
fi
echo "run: no display; running every bundled case through the CLI"
status=0
"$cli" run datasets/*.h5 --trace "$trace" --report build/release/opscope-report.json || status=$?
echo "run: executor trace (every step, with statistics): $trace"
echo "run: report: build/release/opscope-report.json"
echo "run: inspect the trace with: $cli trace show $trace"
exit $status
