#!/usr/bin/env bash
# The installed tools start as a user starts them: install to a temporary prefix, then run
# bin/opscope-cli and bin/opscope --version with no LD_LIBRARY_PATH (the executables find lib/
# through their RUNPATH), and check that RUNPATH points at lib/.
set -euo pipefail
build_dir=$1 gui=${2:-ON}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build_dir" --prefix "$prefix" > "$work/install.log"
unset LD_LIBRARY_PATH
for exe in opscope-cli opscope-vet; do
  readelf -d "$prefix/bin/$exe" | grep -E 'RUNPATH|RPATH' | grep -q '\$ORIGIN/../lib' \
    || { echo "$exe's RUNPATH does not name \$ORIGIN/../lib"; readelf -d "$prefix/bin/$exe" | grep -i path; exit 1; }
done
"$prefix/bin/opscope-cli" operators | tee "$work/operators.out"
grep -q aclnnGroupNormBackward "$work/operators.out"
# A real job from the installed tree: run a bundled case.
"$prefix/bin/opscope-cli" run "$(dirname "$0")/../../datasets/rms_norm_grad.h5" --case /rms_norm_grad/fp32/basic --brief
if [ "$gui" = ON ]; then
  QT_QPA_PLATFORM=offscreen "$prefix/bin/opscope" --version | tee "$work/version.out"
  grep -q "OpScope" "$work/version.out"
fi
echo "installed tools: all started"
