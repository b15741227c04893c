#!/bin/bash
# CPU test: cmake --install into a temporary prefix, then configure and build examples/ against
# the installed package as an outside project would, and list the built plugins.
# examples_install.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CUDA_COMPILER CXX_COMPILER
set -eu
cmake=$1; build=$2; src=$3; work=$4; generator=$5; nvcc=$6; cxx=$7
rm -rf "$work"
"$cmake" --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/graphprof include/graphprof/cuda/plugin_abi.h include/graphprof/cuda/workload.hpp \
         include/graphprof/cuda/plugin.hpp lib*/cmake/graphprof/graphprofConfig.cmake \
         lib*/cmake/graphprof/graphprofConfigVersion.cmake lib*/cmake/graphprof/graphprofTargets.cmake; do
  ls "$work/prefix/"$f >/dev/null || { echo "not installed: $f"; exit 1; }
done
"$cmake" -S "$src/examples" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
"$cmake" --build "$work/build"
"$work/prefix/bin/graphprof" list --load "$work/build/libsaxpy.so" --load "$work/build/libreduce.so" | tee "$work/list.txt"
grep -q "^saxpy" "$work/list.txt" && grep -q "^reduce" "$work/list.txt" && grep -q "plugin saxpy 1.0, API 1.0" "$work/list.txt"
echo "examples built against the installed package"
