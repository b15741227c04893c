#!/bin/bash
# The test command: installs missing packages, builds, runs every test with ctest.
# GPU tests (label gpu) report "skipped" on machines without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
ctest --test-dir "${GRAPHPROF_BUILD_DIR:-$root/build}" --output-on-failure -j"$(nproc)" "$@"
