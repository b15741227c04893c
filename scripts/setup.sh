#!/bin/bash
# Installs the Debian packages graphprof builds with, if any is missing. Idempotent.
# The CUDA 13 toolkit (nvcc, CUPTI, NVTX3) is not a Debian package and must already be there.
# GRAPHPROF_SKIP_APT=1 skips installing (machines without a registry that already have the deps).
# --without-cuda: no toolkit needed (the offline build, GRAPHPROF_WITH_CUDA=OFF).
set -euo pipefail
pkgs=(cmake ninja-build pkg-config g++ libcli11-dev nlohmann-json3-dev libgraphviz-dev graphviz libgtest-dev
      zlib1g-dev chromium python3)  # chromium, python3: the HTML report's browser test (tests/browser)
if [ "${GRAPHPROF_SKIP_APT:-0}" = 1 ]; then exit 0; fi
missing=()
if command -v dpkg-query >/dev/null; then
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing packages: ${missing[*]}; install them as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
# --without-cuda: for a build configured with GRAPHPROF_WITH_CUDA=OFF, which needs no toolkit.
if [ "${1:-}" != "--without-cuda" ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc not found: install the CUDA 13 toolkit (it is not a Debian package; see README.md), or build" \
       "the offline commands only: scripts/test.sh --without-cuda" >&2
  exit 1
fi
