#!/bin/bash
# The light default's cost on programs' own clocks (docs/findings.md "The light default's cost"):
# each program plain, under `graphprof profile` (the default), and under the default with
# `--call-sites off`, one process per run, the settings rotated round by round (plain first in
# round 1, second in round 2, ...) so a drift of the machine hits all alike. Prints lines
# `GROUP SETTING ROUND VALUE` (tools/experiments/interleaved-stats.py reads them), each profiled run's own
# cost in the steps (the report's interposition_cost) and its call_site_cost, then the table.
#   tools/experiments/light-default-cost.sh GRAPHPROF ROUNDS OUT_DIR
# Programs: the PyTorch serving loop (tests/apps/python/serving_loop.py --steps $LOOP_STEPS, its
# chunk median of host time per step and its whole steady loop), pinned with taskset to
# $LOOP_CPUS. Then, with PAUSE_RUNS=N (default 0), N processes per profiled setting of a longer
# loop ($PAUSE_STEPS steps) whose recording the interposer pauses and resumes every
# $PAUSE_PERIOD_MS (the developer switch GRAPHPROF_DEV_PAUSE): the loop's own chunks in recording
# windows against those in paused windows of the same process (tools/pause-stats.py), free of the
# noise between processes (PAUSE_SETTINGS: which of default and sitesoff, default both). ROUNDS 0
# runs the pause runs alone. Needs python3 with torch and a GPU.
set -u
gp=${1:?graphprof binary}; rounds=${2:-6}; out=${3:-cost-out}
steps=${LOOP_STEPS:-3000}; cpus=${LOOP_CPUS:-4-7}
here=$(cd "$(dirname "$0")" && pwd)
app=(python3 "$here/../../tests/apps/python/serving_loop.py" --steps "$steps")
mkdir -p "$out"
figures=$out/figures.txt; : > "$figures"
settings=(plain default sitesoff)
# Each profiled run's own cost (the report's interposition_cost and call_site_cost), to costs.txt.
costs_of() {  # REPORT SETTING ROUND
  [ -f "$1" ] || return 0
  python3 - "$1" "$2" "$3" >> "$out/costs.txt" <<'PY'
import json, sys
def walk(o):
    if isinstance(o, dict):
        if "interposition_cost" in o or "call_site_cost" in o:
            ic, sc = o.get("interposition_cost"), o.get("call_site_cost")
            if ic or sc:
                print(sys.argv[2], sys.argv[3], "interposition_cost", json.dumps(ic), "call_site_cost", json.dumps(sc))
            return
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(json.load(open(sys.argv[1])))
PY
}
run_one() {  # SETTING ROUND
  local s=$1 r=$2 log=$out/$1_$2.txt
  case $s in
    plain) taskset -c "$cpus" "${app[@]}" > "$log" 2>&1 ;;
    default) taskset -c "$cpus" "$gp" profile --no-dot --out "$out/${s}_${r}.d" -- "${app[@]}" > "$log" 2>&1 ;;
    sitesoff) taskset -c "$cpus" "$gp" profile --no-dot --call-sites off --out "$out/${s}_${r}.d" -- "${app[@]}" > "$log" 2>&1 ;;
  esac
  local rc=$?
  [ $rc = 0 ] || echo "light-default-cost: $s round $r exited $rc (see $log)" >&2
  local per=$(sed -n 's/.*chunk median \([0-9.]*\) us per step.*/\1/p' "$log" | tail -1)
  local steady=$(sed -n 's/.*steady [0-9]* steps \([0-9.]*\) ms host.*/\1/p' "$log" | tail -1)
  [ -n "$per" ] && echo "loop_us_per_step $s $r $per" >> "$figures"
  [ -n "$steady" ] && echo "loop_steady_ms $s $r $steady" >> "$figures"
  costs_of "$out/${s}_${r}.d/report.json" "$s" "$r"
  rm -rf "$out/${s}_${r}.d"
}
for r in $(seq "$rounds"); do
  n=${#settings[@]}
  for k in $(seq 0 $((n - 1))); do run_one "${settings[$(( (k + r - 1) % n ))]}" "$r"; done
done
if [ -s "$figures" ]; then
  cat "$figures"
  cat "$out/costs.txt" 2>/dev/null
  python3 "$here/interleaved-stats.py" "$figures"
fi
pause_runs=${PAUSE_RUNS:-0}
[ "$pause_runs" -gt 0 ] || exit 0
for s in ${PAUSE_SETTINGS:-default sitesoff}; do
  files=()
  for r in $(seq "$pause_runs"); do
    extra=(); [ "$s" = sitesoff ] && extra=(--call-sites off)
    GRAPHPROF_DEV_PAUSE="${PAUSE_PERIOD_MS:-100},${PAUSE_START_MS:-300},$out/pause_${s}_$r.switches" \
      taskset -c "$cpus" "$gp" profile --no-dot "${extra[@]}" --out "$out/pause_${s}_$r.d" -- \
      python3 "$here/../../tests/apps/python/serving_loop.py" --steps "${PAUSE_STEPS:-20000}" --chunk 32 \
      --chunk-log "$out/pause_${s}_$r.chunks" > "$out/pause_${s}_$r.txt" 2>&1 || echo "light-default-cost: pause run $s $r failed" >&2
    costs_of "$out/pause_${s}_$r.d/report.json" "pause_$s" "$r"
    rm -rf "$out/pause_${s}_$r.d"
    files+=("$out/pause_${s}_$r.chunks" "$out/pause_${s}_$r.switches")
  done
  echo "== $s: recording against paused windows within each process"
  python3 "$here/../pause-stats.py" "${files[@]}"
done
