#!/bin/bash
# The test command: installs missing packages, builds, runs every test with ctest (extra
# arguments go to ctest). GPU tests (label gpu) report "skipped" on machines without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# --without-cuda: the offline build (CUDA forced off, as on a machine without the toolkit) in its
# own folder, build-nocuda/ unless GRAPHPROF_BUILD_DIR says otherwise; .ci/run runs both.
cmake_args=()
setup_args=()
if [ "${1:-}" = "--without-cuda" ]; then
  shift
  cmake_args=(-DGRAPHPROF_WITH_CUDA=OFF)
  setup_args=(--without-cuda)
  export GRAPHPROF_BUILD_DIR=${GRAPHPROF_BUILD_DIR:-$root/build-nocuda}
fi
# GRAPHPROF_WERROR=1: compiler warnings are errors (CI; the werror preset does the same).
[ "${GRAPHPROF_WERROR:-0}" = 1 ] && cmake_args+=(-DGRAPHPROF_WARNINGS_AS_ERRORS=ON)
# GRAPHPROF_GPU_TESTS=1: the GPU tests are built even where no GPU is seen (CI: their code compiles).
[ "${GRAPHPROF_GPU_TESTS:-}" = 1 ] && cmake_args+=(-DGRAPHPROF_GPU_TESTS=ON)
# GRAPHPROF_HEADER_CHECK=1: each public header is also compiled alone (CI).
[ "${GRAPHPROF_HEADER_CHECK:-0}" = 1 ] && cmake_args+=(-DGRAPHPROF_HEADER_CHECK=ON)
"$root/scripts/setup.sh" "${setup_args[@]}"
"$root/scripts/build.sh" "${cmake_args[@]}"
# Twice as many tests as cores at once: many CPU tests wait on child processes and files (10 % less
# time on 2 cores); the GPU tests still run one at a time (resource lock gpu).
ctest --test-dir "${GRAPHPROF_BUILD_DIR:-$root/build}" --output-on-failure -j"$(( $(nproc) * 2 ))" "$@"
