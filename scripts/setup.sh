#!/usr/bin/env bash
# Installs what OpScope needs from Debian's packages (only when something is missing), then
# configures and builds the Release tree in build/release. Used by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config
          libeigen3-dev libhdf5-dev hdf5-tools libgtest-dev libgmock-dev libbenchmark-dev
          zlib1g-dev nlohmann-json3-dev
          qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libxkbcommon-dev
          xvfb xauth python3 python3-h5py python3-numpy
          clang libclang-rt-14-dev  # the libFuzzer targets (scripts/fuzz.sh)
          clang-format-14 universal-ctags)  # ctest's style.clang_format and style.function_length
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build/release --parallel "$(nproc)"
