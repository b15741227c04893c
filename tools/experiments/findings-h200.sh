#!/bin/bash
# Runs every graphprof command docs/findings.md quotes, on the GPU machine.
#
#   tools/experiments/findings-h200.sh [GRAPHPROF]          (GRAPHPROF defaults to ./build-gpu/graphprof)
#
# Each command's console output goes to findings/NN-name.txt (its JSON report beside it), and
# findings/commands.txt lists every command with its exit status and seconds. Everything is packed
# into $OUT/findings.tgz; $OUT/findings-summary.txt holds the summary tables for a quick look.
# About 2.5 minutes of device time on the H200. A failing command is recorded and the rest still run.
set -uo pipefail

gp=${1:-./build-gpu/graphprof}
[ -x "$gp" ] || { echo "$0: $gp: not an executable graphprof (build it first, or pass its path)" >&2; exit 2; }
out=${OUT:-$PWD/findings-out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=$work/findings
mkdir -p "$dir"
# The default pass budget is 0.5 s; 0.3 s keeps the whole script within its device-time budget.
quick=(--budget 0.3 --quiet)

n=0
# run NAME ARGS... : one graphprof command, its output in NN-NAME.txt, its line in commands.txt.
run() {
  local name=$1; shift
  n=$((n + 1))
  local f
  f=$(printf '%s/%02d-%s' "$dir" "$n" "$name")
  local t0=$SECONDS
  echo "\$ graphprof $*" > "$f.txt"
  "$gp" "$@" >> "$f.txt" 2>&1
  local rc=$?
  printf '%02d-%-28s exit %d  %3ds  graphprof %s\n' "$n" "$name" "$rc" $((SECONDS - t0)) "$*" | tee -a "$dir/commands.txt" >&2
}

run info info

# 1. "graphs save 5-10 µs of CPU per kernel launch" and 3. "10-100 kernels per graph is ideal,
# beyond 1000 nodes instantiate becomes costly": one sweep answers both.
run sweep-chain sweep --workload chain --mode all --param kernels=1,10,100,1000,10000 "${quick[@]}" \
  --json "$dir/sweep-chain.json"
# The same with empty kernels <<<1,1>>> (the parity workload): launch cost without any work.
run sweep-scaling-empty sweep --workload scaling --mode all --param length=10,100,1000 "${quick[@]}" \
  --json "$dir/sweep-scaling-empty.json"

# 2. "ResNet-50 inference +15-30 %, LLM decode ~5 %": the bundled decode step from launch-bound
# (small) to compute-bound (large); the PyTorch figures come from `graphprof profile`.
run sweep-decode sweep --workload decode --mode all --param hidden=512,2048 --param batch=1,64 "${quick[@]}" \
  --json "$dir/sweep-decode.json"

# ResNet-50 (PyTorch, fp16, torch.cuda.graph; engineer "profile"'s demo): the program times eager
# steps and graph replays itself, at a launch-bound and a compute-bound batch size.
if python3 -c 'import torch' 2>/dev/null && [ -f examples/profile-demos/resnet50_graph.py ]; then
  for batch in 1 64; do
    f=$dir/resnet50-batch$batch.txt
    t0=$SECONDS
    echo "\$ python3 examples/profile-demos/resnet50_graph.py --batch $batch --replays 100" > "$f"
    python3 examples/profile-demos/resnet50_graph.py --batch "$batch" --replays 100 >> "$f" 2>&1
    printf '%-31s exit %d  %3ds  python3 resnet50_graph.py --batch %s\n' "resnet50-batch$batch" "$?" \
      $((SECONDS - t0)) "$batch" | tee -a "$dir/commands.txt" >&2
  done
else
  echo "resnet50: skipped (no PyTorch or no examples/profile-demos/resnet50_graph.py)" | tee -a "$dir/commands.txt" >&2
fi

# 4. "graphs merge small memcpys and fuse kernels automatically": node counts in the DOT and
# kernel/copy counts in the trace equal the operations issued.
run trace-memcpy-chain run --workload memcpy,chain --mode all --trace node "${quick[@]}" \
  --out "$dir/fuse" --trace-out "$dir/fuse/trace.json"
for dot in "$dir"/fuse/dot/memcpy_*_capture.dot "$dir"/fuse/dot/chain_*_capture.dot; do
  [ -f "$dot" ] && run "analyze-$(basename "$dot" .dot | cut -d_ -f1)" analyze "$dot"
done

# 5. "insert cudaStreamSynchronize nodes into the graph" and 8. "CUDA events inside capture are ok".
for sync in 1 event query; do
  run "sync-inside-$sync" run --workload chain --mode all --param kernels=20 --param sync_inside=$sync \
    --trace none "${quick[@]}" --json "$dir/sync-inside-$sync.json"
done

# 6. "dynamic shapes need a new graph per shape, prefer cudaGraphExecUpdate".
run sweep-update sweep --workload update --mode eager,capture --param strategy=setparams,update,reinstantiate \
  --param kernels=10,100,1000 "${quick[@]}" --json "$dir/sweep-update.json"

# 7. "cudaGraphDebugDotPrint shows the graph": the dump, its analysis and a rendering.
run dot-fork-join run --workload fork-join --mode capture,graph --trace none "${quick[@]}" --out "$dir/dot"
for dot in "$dir"/dot/dot/fork-join_*_capture.dot; do
  [ -f "$dot" ] || continue
  run analyze-fork-join analyze "$dot"
  run render-fork-join render "$dot" -o "$dir/dot/fork-join.svg"
done

# Device graph launch, the newest way to cut host launch cost.
run device-launch-fire-and-forget run --workload device-launch --mode all --trace none "${quick[@]}" \
  --json "$dir/device-launch-ff.json"
run device-launch-tail run --workload device-launch --mode all --param via=tail --trace none "${quick[@]}" \
  --json "$dir/device-launch-tail.json"
run sweep-device-launch sweep --workload device-launch --mode all --param launches=1,10,100 "${quick[@]}" \
  --json "$dir/sweep-device-launch.json"

# Summary tables (the lines after "summary" / "sweep" headers) for a quick look.
for f in "$dir"/*.txt; do
  echo "=== $(basename "$f")"
  head -1 "$f"
  grep -h "resnet50_graph:" "$f"
  grep -A40 -E '^(summary|sweep|suite summary)' "$f" | grep -v '^--$' | head -60
  grep -E 'failed|unsupported|error' "$f" | head -5
done > "$out/findings-summary.txt"
cp "$dir/commands.txt" "$out/findings-commands.txt"
tar czf "$out/findings.tgz.tmp" -C "$work" findings && mv "$out/findings.tgz.tmp" "$out/findings.tgz"
echo "done in ${SECONDS}s: $out/findings.tgz, $out/findings-summary.txt" >&2
