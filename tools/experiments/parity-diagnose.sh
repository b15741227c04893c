#!/bin/bash
# Why is graphprof's device time per node of a chain (width 1) ~25 % above cudaGraphsPerfScaling's?
# (Answered since by tools/experiments/parity-bisect.sh: a slow level of the device that any process, the sample
# included, can switch into -- docs/findings.md, "Parity". Kept for the record.)
# (docs/findings.md, "Parity": 0.68 vs 0.54 µs at length 1000; width 4 agrees.) GPU machine, ~30 s.
#
#   tools/experiments/parity-diagnose.sh SAMPLE.cu [GRAPHPROF]      writes $OUT/diagnose.txt
#
# One line per variant, the device time per node of a chain of 1000 empty kernels:
#   sample, as built by parity-perfscaling.sh (-arch=sm_90)
#   sample built with graphprof's architectures (sm_80 + sm_90 SASS + compute_90 PTX)
#   sample with libcupti loaded into the process (LD_PRELOAD), no CUPTI call
#   sample with CUPTI initialised through its NVTX ranges (NVTX_INJECTION64_PATH, as --trace-nvtx does)
#   graphprof scaling length=1000 capture, and chain kernels=100 capture (100.6 vs 118.8 µs in docs/tracing.md)
# If the NVTX-injected sample moves to ~0.68 µs, a CUPTI-initialised process is the cause and graphprof
# initialises CUPTI somewhere without --trace-nvtx; if only graphprof stays at 0.68, it is graphprof's
# own process state.
set -uo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 SAMPLE.cu [GRAPHPROF]" >&2; exit 2; }
src=$1
gp=${2:-./build-gpu/graphprof}
[ -f "$src" ] || { echo "$0: $src: no such file" >&2; exit 3; }
[ -x "$gp" ] || { echo "$0: $gp: not an executable graphprof" >&2; exit 2; }
out=${OUT:-$PWD/parity-out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=$PATH:/usr/local/cuda/bin
report=$out/diagnose.txt
: > "$report"
say() { echo "$*" | tee -a "$report"; }

say "environment: $(env | grep -E '^(NVTX_INJECTION|CUDA_INJECTION|CUDA_MODULE_LOADING|CUDA_LAUNCH_BLOCKING|LD_PRELOAD)' | tr '\n' ' ')"
cupti=$(ldd "$gp" | awk '/libcupti/ {print $3; exit}')
say "libcupti of graphprof: ${cupti:-not found}"
nvcc -O2 -std=c++17 -arch=sm_90 -o "$work/ps" "$src" || say "sample build failed"
nvcc -O2 -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_90,code=compute_90 -o "$work/ps_fat" "$src" || say "fat sample build failed"

# Column 12 of the sample's averaged CSV (OUTFMT 4) is repeat_launch_device, in µs.
sample() {
  local name=$1; shift
  local line
  line=$("$@" 4 5 1000 1 0 1 1000 2>&1 | tr -d '\r ' | grep -E '^1000,' | head -1)
  say "$(printf '%-44s' "$name") $(echo "$line" | awk -F, '$12 != "" {printf "%.3f µs per node (repeat_launch_device %.1f µs)", $12 / 1000, $12}')"
}
sample "sample -arch=sm_90" "$work/ps"
sample "sample, graphprof's architectures" "$work/ps_fat"
[ -n "$cupti" ] && sample "sample, LD_PRELOAD libcupti" env LD_PRELOAD="$cupti" "$work/ps"
[ -n "$cupti" ] && sample "sample, NVTX_INJECTION64_PATH=libcupti" env NVTX_INJECTION64_PATH="$cupti" "$work/ps"

per_node() {  # graphprof JSON -> latched device time per node of its first result
  python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["results"][0]
m = r["metrics"]["gpu_time_per_iter_latched"]["summary"]["median"] / 1000
n = r["sections"]["graph"]["nodes"]
print(f"{m / n:.3f} µs per node ({m:.1f} µs for {n} nodes)")' "$1" 2>&1
}
"$gp" run --workload scaling --mode capture --param length=1000 --trace none --budget 0.3 --quiet \
  --json "$work/scaling.json" > "$work/gp1.txt" 2>&1
say "$(printf '%-44s' "graphprof scaling length=1000 capture") $(per_node "$work/scaling.json")"
"$gp" run --workload chain --mode capture --trace none --budget 0.3 --quiet --json "$work/chain.json" > "$work/gp2.txt" 2>&1
say "$(printf '%-44s' "graphprof chain kernels=100 capture") $(per_node "$work/chain.json")"
