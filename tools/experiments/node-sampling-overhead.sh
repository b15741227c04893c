#!/bin/bash
# What node tracing costs a GPU-bound loop (ResNet-50 replay, examples/profile-demos/resnet50_graph.py)
# and a host-bound one (tests/apps graphprof_serving_app), by the programs' own timing, interleaved
# rounds, one process each: plain against --node-sample ...,kernels=10% (and --trace none for the
# host-bound loop); the per-node medians against --node-sample all (tools/experiments/node-medians-compare.py);
# the kernel switches in the records (tools/experiments/kernel-switches-summary.py); --overhead 5 of ResNet-50
# beside the program's own timing of the same runs. Writes OUT_DIR/log.txt.
#   GP=build/graphprof BUILD=build PY=python3 REPO=. OUT_DIR=out CAP_S=200 tools/experiments/node-sampling-overhead.sh
: "${GP:=build/graphprof}" "${BUILD:=build}" "${PY:=python3}" "${REPO:=$(pwd)}" "${OUT_DIR:=node-sampling-overhead}"
mkdir -p "$OUT_DIR"; OUT_DIR=$(realpath "$OUT_DIR")
GP=$(realpath "$GP"); BUILD=$(realpath "$BUILD"); REPO=$(realpath "$REPO")
set -u
L=$OUT_DIR/log.txt
M=$OUT_DIR/measurements.txt
cd $OUT_DIR
T0=$(date +%s)
CAP=${CAP_S:-200}
left() { echo $(( CAP - ($(date +%s) - T0) )); }
note() { echo "$*" >> $L; }
RES="$PY $REPO/examples/profile-demos/resnet50_graph.py"
APP=$BUILD/tests/apps/graphprof_serving_app
OLD="--node-sample 1,20,20,10/200,kernels=on"
NEW="--node-sample 1,20,20,10/200,kernels=10%"
note "node-sampling-overhead $(date -u) repo $(cd $REPO && git log --oneline -1 | cut -c1-100)"
note "GP=$GP PY=$PY cap=$CAP"

# One run of SETTING for program P (resnet|app), round R; its own timing into $M.
one() {
  local p=$1 s=$2 r=$3 cmd
  local out="$OUT_DIR/o_${p}_${s}_${r}.txt"
  local target; if [ "$p" = resnet ]; then target=$RES; else target="$APP --steps 4000"; fi
  case $s in
    plain) cmd="$target" ;;
    old) cmd="$GP profile $OLD --out d_${p}_$s -- $target" ;;
    new) cmd="$GP profile $NEW --out d_${p}_$s -- $target" ;;
    none) cmd="$GP profile --trace none --out d_${p}_$s -- $target" ;;
  esac
  local t=$(date +%s%N)
  $cmd > $out 2>&1
  local rc=$?
  echo "--- $p $s round $r rc=$rc wall_ms=$(( ($(date +%s%N) - t) / 1000000 ))" >> $OUT_DIR/raw.txt
  cat $out >> $OUT_DIR/raw.txt
  if [ "$p" = resnet ]; then
    awk -v s=$s -v r=$r '/resnet50_graph: replay/ {print "resnet_replay_gpu_ms", s, r, $3; print "resnet_replay_host_ms", s, r, $9}' $out >> $M
  else
    awk -v s=$s -v r=$r '/serving_app: variant/ {v=$0; sub(/.*\(/, "", v); sub(/ us per.*/, "", v); print "app_us_per_request", s, r, v}' $out >> $M
  fi
}

# 1. ResNet-50 pairs: 5 rounds, the order rotated each round.
SETS=(plain new)
for r in 1 2 3 4 5; do
  [ $(left) -lt 130 ] && { note "resnet rounds stopped before round $r (time)"; break; }
  for i in 0 1; do one resnet ${SETS[$(( (i + r) % 2 ))]} $r; done
  note "resnet round $r done at $(( $(date +%s) - T0 )) s"
done
# The last round's consoles of the profiled settings (node sampling block, kernel activity).
for s in new; do note "== console resnet $s (last round)"; grep -v '^resnet50_graph' $(ls -t o_resnet_${s}_*.txt | head -1) >> $L; done
# Per-node medians against --node-sample all (one run).
$GP profile --node-sample all --out d_resnet_all -- $RES > o_resnet_all.txt 2>&1
note "== --node-sample all: $(grep 'resnet50_graph: replay' o_resnet_all.txt)"
for s in new; do
  note "== per-node medians: $s vs all"
  python3 $REPO/tools/experiments/node-medians-compare.py d_resnet_$s/report.json d_resnet_all/report.json 3 >> $L 2>&1
done
# The switches in the new setting's records: ks lines, GRAPH_TRACE spans across an off switch.
note "== kernel switches, resnet new (last round)"
python3 $REPO/tools/experiments/kernel-switches-summary.py d_resnet_new/profile-data >> $L 2>&1
python3 $REPO/tools/experiments/node-sampling-summary.py d_resnet_new/report.json resnet_new >> $L 2>&1
grep -h '"t":"ks\|"t":"gt"' d_resnet_new/profile-data/*.jsonl > resnet_new_ks_gt.txt 2>/dev/null
tar czf resnet_reports.tgz d_resnet_new/report.json d_resnet_all/report.json resnet_new_ks_gt.txt 2>/dev/null
rm -rf d_resnet_*

# 2. The host-bound C++ serving loop: 5 rounds, the same settings.
ASETS=(plain new none)
for r in 1 2 3 4 5; do
  [ $(left) -lt 85 ] && { note "app rounds stopped before round $r (time)"; break; }
  for i in 0 1 2; do one app ${ASETS[$(( (i + r) % 3 ))]} $r; done
done
note "app rounds done at $(( $(date +%s) - T0 )) s"
note "== console app new (last round)"; grep -v '^serving_app' $(ls -t o_app_new_*.txt | head -1) >> $L
python3 $REPO/tools/experiments/node-sampling-summary.py d_app_new/report.json app_new >> $L 2>&1
grep -h '"t":"ks\|"t":"gt"' d_app_new/profile-data/*.jsonl > app_new_ks_gt.txt 2>/dev/null
tar czf app_new.tgz d_app_new/report.json app_new_ks_gt.txt 2>/dev/null
note "== kernel switches, app new (last round)"
python3 $REPO/tools/experiments/kernel-switches-summary.py d_app_new/profile-data >> $L 2>&1
rm -rf d_app_*
note "== interleaved (tools/experiments/interleaved-stats.py)"
(grep ' plain ' $M; grep -v ' plain ' $M) > $M.sorted  # plain first: the baseline
python3 $REPO/tools/experiments/interleaved-stats.py $M.sorted >> $L 2>&1

# 3. --overhead 5 of both, the programs' own timing of the same runs beside it.
ovh() {
  local name=$1 need=$2
  shift 2
  [ $(left) -lt $need ] && { note "--overhead $name skipped (time)"; return; }
  $GP profile --overhead 5 $NEW --out ov_$name -- "$@" > ov_$name.txt 2>&1
  note "== --overhead 5 $name rc=$? at $(( $(date +%s) - T0 )) s"
  grep -A8 'overhead (--overhead' ov_$name.txt >> $L
  awk -v n=$name '/\(--overhead\): profiled/ {kind="prof"; run++} /\(--overhead\): plain/ {kind="plain"; run++}
       /resnet50_graph: replay/ && kind {print "ov_" n "_own", kind, int((run + 1) / 2), $3; kind=""}
       /serving_app: variant/ && kind {v=$0; sub(/.*\(/, "", v); sub(/ us per.*/, "", v); print "ov_" n "_own", kind, int((run + 1) / 2), v; kind=""}' ov_$name.txt > ov_$name.m
  python3 $REPO/tools/experiments/interleaved-stats.py ov_$name.m >> $L 2>&1
  python3 -c "
import json
r=json.load(open('ov_$name/report.json'))
p=r['results'][0]['sections']['profile']
for x in p.get('overhead_runs',[]): print(x)
" >> $L 2>&1
  rm -rf ov_$name
}
ovh resnet 70 $RES
gzip -f raw.txt; rm -f o_*.txt
note "done in $(( $(date +%s) - T0 )) s"
