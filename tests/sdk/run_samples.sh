#!/usr/bin/env bash
# Installs the SDK from a build tree, then builds every sample_*.cpp with the official line
#   g++ x.cpp -I<SDK>/include -I<SDK>/include/aclnnop -L<SDK>/lib -lopapi -lascendcl -lnnopbase
# runs it (once with OPSCOPE_TRACE set) and checks the trace with h5py when it is installed.
# Also builds a CMake project that uses find_package(OpScope).
set -euo pipefail
build_dir=$1 samples_dir=$2 cxx=${3:-g++}
# A sanitizer build's libraries need the sanitizer runtime in the program too.
extra_flags=()
[ "${4:-OFF}" = ON ] && extra_flags=(-fsanitize=address,undefined)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sdk=$work/sdk
cmake --install "$build_dir" --prefix "$sdk" > "$work/install.log"
for f in acl/acl.h aclnnop/aclnn_group_norm_backward.h; do
  [ -f "$sdk/include/$f" ] || { echo "missing $sdk/include/$f"; exit 1; }
done
for lib in libopapi.so libascendcl.so libnnopbase.so; do
  [ -f "$sdk/lib/$lib" ] || { echo "missing $sdk/lib/$lib"; exit 1; }
done

for sample in "$samples_dir"/sample_*.cpp; do
  name=$(basename "$sample" .cpp)
  echo "== $name"
  "$cxx" "$sample" -o "$work/$name" -I"$sdk/include" -I"$sdk/include/aclnnop" -L"$sdk/lib" -lopapi -lascendcl -lnnopbase \
    "${extra_flags[@]}"
  LD_LIBRARY_PATH="$sdk/lib" "$work/$name" | tee "$work/$name.out"
  grep -q "result\[0\] is" "$work/$name.out"
  LD_LIBRARY_PATH="$sdk/lib" OPSCOPE_TRACE="$work/$name.h5" OPSCOPE_TRACE_LEVEL=full "$work/$name" > /dev/null
  [ -s "$work/$name.h5" ] || { echo "no trace written"; exit 1; }
  # Debian's python3 (python3-h5py), not whatever python3 comes first on PATH.
  if /usr/bin/python3 -c "import h5py" 2> /dev/null; then
    /usr/bin/python3 - "$work/$name.h5" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["opscope_format"] == "trace" and f.attrs["format_version"] == 2, dict(f.attrs)
    s = f["strings"].asstr()[:]  # string columns hold row numbers of /strings
    executors, steps, tensors = f["executors"][:], f["steps"][:], f["tensors"][:]
    assert len(executors) >= 1
    for x in executors:
        st = steps[x["first_step"]:x["first_step"] + x["step_count"]]
        print(f"trace: {s[x['op']]} with {len(st)} steps:", ", ".join(s[st["name"]]))
        ts = tensors[x["first_tensor"]:x["first_tensor"] + x["tensor_count"]]
        for t in ts[ts["step"] >= 0]:
            assert t["has_stats"] and t["nan_count"] >= 0 and not np.isnan(t["min"])
            assert f[s[t["values"]]].shape == tuple(t["shape"][:t["rank"]])
PY
  else
    echo "(h5py not installed: trace content not checked from Python)"
  fi
done

echo "== headers: each compiles alone (C++ and C), and they provide what CANN's do"
for h in acl/acl.h aclnn/aclnn_base.h aclnnop/aclnn_convolution_backward.h aclnnop/aclnn_grid_sampler2d_backward.h \
         aclnnop/aclnn_group_norm_backward.h aclnnop/aclnn_rms_norm_grad.h aclnnop/aclnn_util.h; do
  echo "#include \"$h\"" > "$work/one_header.cpp"
  "$cxx" -fsyntax-only -Wall -Werror "$work/one_header.cpp" -I"$sdk/include" -I"$sdk/include/aclnnop"
  cp "$work/one_header.cpp" "$work/one_header.c"
  cc -fsyntax-only -Wall -Werror "$work/one_header.c" -I"$sdk/include" -I"$sdk/include/aclnnop"
done
"$cxx" "$samples_dir/transitive_includes.cpp" -o "$work/transitive_includes" -I"$sdk/include" -I"$sdk/include/aclnnop" \
  -L"$sdk/lib" -lopapi -lascendcl -lnnopbase "${extra_flags[@]}"
LD_LIBRARY_PATH="$sdk/lib" "$work/transitive_includes" | tee "$work/transitive.out"
grep -q "transitive includes: ok" "$work/transitive.out"

echo "== find_package(OpScope)"
mkdir -p "$work/consumer"
cp "$samples_dir/sample_group_norm_backward.cpp" "$work/consumer/main.cpp"
cat > "$work/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.22)
project(consumer CXX)
find_package(OpScope REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE OpScope::aclnn)
CM
consumer_flags=""
[ "${4:-OFF}" = ON ] && consumer_flags="-fsanitize=address,undefined"
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$sdk" -DCMAKE_CXX_FLAGS="$consumer_flags" \
  > "$work/consumer.log"
cmake --build "$work/consumer/build" >> "$work/consumer.log"
"$work/consumer/build/consumer" > /dev/null
echo "sdk samples: all passed"
