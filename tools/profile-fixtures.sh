#!/bin/bash
# `graphprof profile` on a GPU machine, after build-gpu/ was built:
#   bash tools/profile-fixtures.sh
# 1. the GPU tests of the profiler against tests/apps/graph_app.cu (exact counts), one at a time;
# 2. the test application profiled (with --overhead, a broken capture, a heat map of graph A);
# 3. ResNet-50 with torch.cuda.graph (--overhead at --trace node, then once at --trace graph);
# 4. a small model under torch.compile(mode="reduce-overhead") (with --overhead).
# A part only: PROFILE_ONLY="gpu_test resnet50" bash tools/profile-fixtures.sh (about 45 s).
# Everything is written under a work folder and packed into ONE file, $OUT/profile.tgz (plus
# $OUT/profile-summary.txt, the programs' own timing next to graphprof's). Each step has
# a time limit and the script carries on when one fails (see profile/steps.txt for each status).
# Expected run time: about 4 minutes (the torch.compile demo, run 4 times by --overhead, is most of it).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
OUT=${OUT:-/tmp/graphprof-out}
work=$(mktemp -d /tmp/graphprof-profile.XXXXXX)
dest=$work/profile
mkdir -p "$dest" "$OUT"
gp=${GRAPHPROF:-./build-gpu/graphprof}
app=${GRAPH_APP:-./build-gpu/tests/apps/graphprof_graph_app}
if [ -z "${PYTHON:-}" ]; then
  if [ -x /opt/torch/.venv/bin/python3 ]; then PYTHON=/opt/torch/.venv/bin/python3; else PYTHON=python3; fi
fi
steps=$dest/steps.txt
: > "$steps"

# step NAME LIMIT_S CMD...: runs CMD with a time limit (SIGTERM, then SIGKILL 15 s later), console to NAME.txt.
# PROFILE_ONLY="gpu_test resnet50" runs only the steps whose names start with one of those words.
step() {
  local name=$1 limit=$2
  shift 2
  if [ -n "${PROFILE_ONLY:-}" ]; then
    local w keep=
    for w in $PROFILE_ONLY; do case $name in "$w"*) keep=1 ;; esac; done
    [ -n "$keep" ] || return 0
  fi
  local t0=$SECONDS
  timeout -k 15 "$limit" "$@" > "$dest/$name.txt" 2>&1
  local rc=$?
  echo "$name: exit $rc, $((SECONDS - t0)) s: $*" | tee -a "$steps"
}

"$gp" --version > "$dest/version.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$dest/gpu.txt" 2>&1
"$PYTHON" -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' \
  > "$dest/python.txt" 2>&1

# 1. GPU test, one test at a time, each with its own limit, so a hang names the test (about 20 s).
for t in CountsGraphsLaunchesAndEagerWorkExactly GraphLevelCountsLaunchesWithoutKernels BrokenCaptureAndFailingExitAreReported \
         AnApplicationThatUsesCuptiItselfStillRunsAndIsProfiled SigtermReachesTheApplicationAndTheReportIsWritten; do
  step "gpu_test_$t" 45 ./build-gpu/tests/profile_app_test --gtest_filter="ProfileApp.$t"
done

# 2. The test application.
step app 60 "$gp" profile --out "$dest/app" --overhead -- "$app" --launches 1000 --eager 200 --bad-capture
step app_small 60 "$gp" profile --out "$dest/app_small" --trace-out "$dest/app_small/trace.json" -- "$app" --launches 20 --eager 5 --bad-capture
dotA=$(ls "$dest"/app/profile-data/*.dot 2>/dev/null | grep -v verbose | head -1)
[ -n "$dotA" ] && step app_render 60 "$gp" render "$dotA" -o "$dest/app/graphA_heat.svg" --report "$dest/app/report.json"
[ -n "$dotA" ] && step app_analyze 60 "$gp" analyze "$dotA" --report "$dest/app/report.json"

# 3. ResNet-50 replayed with torch.cuda.graph (--overhead: warm-up, plain, profiled, plain).
step resnet50 200 "$gp" profile --out "$dest/resnet50" --overhead -- "$PYTHON" examples/profile-demos/resnet50_graph.py
step resnet50_graphlevel 90 "$gp" profile --out "$dest/resnet50_graphlevel" --trace graph -- "$PYTHON" examples/profile-demos/resnet50_graph.py
dotR=$(ls -S "$dest"/resnet50/profile-data/*.dot 2>/dev/null | grep -v verbose | head -1)
[ -n "$dotR" ] && step resnet50_render 60 "$gp" render "$dotR" -o "$dest/resnet50/graph_heat.svg" --report "$dest/resnet50/report.json"

# 4. torch.compile(mode="reduce-overhead"): several graphs; --overhead's warm-up run pays the compile cache.
step compile 400 "$gp" profile --out "$dest/compile" --overhead -- "$PYTHON" examples/profile-demos/compile_reduce_overhead.py

# The programs' own timing next to graphprof's, for the closing note.
bash tools/experiments/profile-summary.sh "$dest" > "$dest/summary.txt"
cat "$dest/summary.txt"

# Large raw records of the PyTorch runs stay out of the archive (the reports carry the figures).
du -sh "$dest"/*/profile-data 2>/dev/null | tee -a "$steps"
find "$dest" -name 'proc-*.jsonl' -size +8M -exec sh -c 'gzip -9 "$1"' _ {} \;
find "$dest" -name 'proc-*.jsonl.gz' -size +12M -delete
cp "$dest/summary.txt" "$OUT/profile-summary.txt"
tar -C "$work" -czf "$OUT/profile.tgz" profile
ls -l "$OUT/profile.tgz"
