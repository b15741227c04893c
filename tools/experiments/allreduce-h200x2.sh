#!/bin/bash
# The allreduce workload on every GPU of a multi-GPU machine (run it on nvidia-h200-x2 after the
# build): all modes on 2 ranks with DOT dumps, and eager vs capture vs graph per message size.
# Usage (GPU machine, after build-gpu/ was built): bash tools/experiments/allreduce-h200x2.sh
set -uo pipefail
G=${GRAPHPROF:-./build-gpu/graphprof}
O=${OUT:-/tmp/out}/allreduce
mkdir -p "$O"
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
{ nvidia-smi -L; $G info --device 0; $G info --device 1; nvidia-smi topo -m; } > "$O/info.txt" 2>&1
$G list | grep -A1 "^allreduce\|NCCL" >> "$O/info.txt"
echo "== one rank (GPU 0 alone)"
$G run -w allreduce --mode all --trace none -p bytes=1048576 --json "$O/one_rank.json" 2>&1 | tee "$O/one_rank.txt" | tail -8
echo "== 2 ranks, all modes, DOT dumps ($(( $(date +%s) - t0 )) s)"
$G run -w allreduce --ranks 2 --mode all --out "$O/ranks2" 2>&1 | tee "$O/ranks2.txt" | tail -16
echo "== 2 ranks, per message size ($(( $(date +%s) - t0 )) s)"
$G sweep -w allreduce --ranks 2 --mode all -p bytes=4096:67108864:*4 --json "$O/sweep.json" 2>&1 | tee "$O/sweep.txt" | tail -40
echo "== done in $(( $(date +%s) - t0 )) s"
tar -C "$(dirname "$O")" -czf "${OUT:-/tmp/out}/allreduce.tgz" allreduce
