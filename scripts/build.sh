#!/bin/bash
# Configures and builds graphprof into build/ (or $GRAPHPROF_BUILD_DIR). Extra CMake options
# can be passed as arguments.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GRAPHPROF_BUILD_DIR:-$root/build}
export PATH=$PATH:/usr/local/cuda/bin
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# ccache, when installed, makes rebuilds in several checkouts cheap (not needed, not installed by setup).
launch=()
command -v ccache >/dev/null && launch=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${gen[@]}" "${launch[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
elif [ $# -gt 0 ]; then
  cmake -S "$root" -B "$build" "$@"
fi
# GRAPHPROF_BUILD_TARGET: build only that target (scripts/run.sh builds just the graphprof binary and
# what it loads, not the tests).
cmake --build "$build" -j"$(nproc)" ${GRAPHPROF_BUILD_TARGET:+--target "$GRAPHPROF_BUILD_TARGET"}
