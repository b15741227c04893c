#!/bin/bash
# Which history of a graphprof process makes later replays of a chain slower? (docs/findings.md,
# "Parity": a fresh process replays 1000 dependent empty kernels at ~0.50 µs each, later shapes of
# a sweep at ~0.68.) GPU machine, about 60-90 s of device time.
#
#   tools/experiments/parity-bisect.sh [SAMPLE.cu] [GRAPHPROF]    writes $OUT/bisect.txt and $OUT/bisect.tgz
#
# Every variant is a fresh graphprof process measuring `scaling` length=1000 width=1 in capture
# mode; `-r N` repeats the whole measurement (fresh workload, stream, graph) inside the process,
# so rep0 is the fresh state and rep1.. the state after one measurement. One summary line per
# variant: the latched device time per node of each repetition. `churn=KIND` makes one kind of
# CUDA object (created, used once, destroyed) before the measurement, in a fresh process: the
# kind whose rep0 is slow is the history that matters. Before them, the stand-alone probe
# (tools/experiments/parity-probe.cu, built with nvcc) repeats each habit alone. nvidia-smi logs the clocks.
set -uo pipefail
# graphprof needs the kit's Graphviz libraries: enter remote.sh's environment unless already in it.
if [ -z "${GVBINDIR:-}" ] && [ -f .gpu-deps/remote.sh ]; then exec bash .gpu-deps/remote.sh bash "$0" "$@"; fi
src=${1:-.gpu-jobs/peer/cudaGraphPerfScaling.cu}
gp=${2:-./build-gpu/graphprof}
[ -x "$gp" ] || { echo "$0: $gp: not an executable graphprof" >&2; exit 2; }
out=${OUT:-$PWD/parity-out}
limit=${BISECT_SECONDS:-85}   # no new variant starts after this many seconds
set=${BISECT_SET:-job1}        # job1 (the variants of GPU job 1) or trigger (what makes a sweep switch)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=$PATH:/usr/local/cuda/bin
report=$out/bisect.txt
: > "$report"
say() { echo "$*" | tee -a "$report"; }

smi=""
apps=""
if command -v nvidia-smi >/dev/null; then
  # Other processes with a context on the GPU meanwhile (one line per process per sample).
  nvidia-smi --query-compute-apps=timestamp,pid,process_name,used_gpu_memory --format=csv,noheader -lms 200 \
    > "$work/apps.csv" 2>&1 &
  apps=$!
  q=timestamp,clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu
  nvidia-smi --query-gpu=$q,clocks_event_reasons.active --format=csv,noheader -lms 100 > "$work/clocks.csv" 2>&1 &
  smi=$!
  sleep 0.3
  if ! kill -0 "$smi" 2>/dev/null; then
    nvidia-smi --query-gpu=$q --format=csv,noheader -lms 100 > "$work/clocks.csv" 2>&1 &
    smi=$!
  fi
fi

# Per result of a report: the latched device time per node of each repetition (µs), and of the
# unlatched GPU pass.
summarize() {
  python3 - "$1" <<'PY'
import json, statistics, sys
try:
    rep = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no report ({e})"); sys.exit(0)
parts = []
for r in rep["results"]:
    p = r["params"]
    tag = f"{r['workload']} {r['mode']}"
    if r["workload"] == "scaling":
        tag += f" {p['length']}x{p['width']}" + (" e1" if p.get("entry") == "1" else "")
    if r.get("status") != "ok":
        parts.append(f"{tag}: {r.get('status')} {r.get('reason', '')}"); continue
    nodes = ((r.get("sections") or {}).get("graph") or {}).get("nodes")
    per = nodes if nodes else 1
    unit = "µs/node" if nodes else "µs/iter"
    def reps(k):
        m = r["metrics"].get(k)
        if not m: return "-"
        return " ".join(f"{statistics.median(x) / 1000 / per:.3f}" for x in m["repetitions"] if x)
    dp = r["sections"].get("device_probe") or {}
    pr = "/".join(f"{dp[k]:.0f}" for k in ("ns_per_kernel", "ns_per_kernel_after") if isinstance(dp.get(k), (int, float)))
    pr = f" (device probe {pr} ns)" if pr else ""
    parts.append(f"{tag}: latched {reps('gpu_time_per_iter_latched')} | gpu pass {reps('gpu_time_per_iter')} {unit}{pr}")
print("; ".join(parts))
PY
}

n=0
variant() {  # NAME ENV-ASSIGNMENTS... -- GRAPHPROF-ARGS...
  local name=$1; shift
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  if [ "$SECONDS" -gt "$limit" ]; then say "$(printf '%-22s' "$name") skipped (past ${limit}s)"; return; fi
  n=$((n + 1))
  local t0=$SECONDS
  echo "$(date -u +%T.%N) start $name" >> "$work/marks.txt"
  local trace=()
  [ "$1" = run ] && trace=(--trace none)   # sweep has no trace pass (and no --trace)
  env "${envs[@]}" "$gp" "$@" "${trace[@]}" --budget 0.1 --min-time 0.05 --quiet --json "$work/$name.json" \
    > "$work/$name.txt" 2>&1
  local rc=$?
  echo "$(date -u +%T.%N) end $name" >> "$work/marks.txt"
  say "$(printf '%-22s' "$name") [rc $rc, $((SECONDS - t0))s] $(summarize "$work/$name.json")"
}
S=(-w scaling -m capture -p length=1000)
say "parity-bisect on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null); graphprof $("$gp" --version 2>/dev/null)"

if [ "$set" = job1 ]; then
# The stand-alone probe (tools/experiments/parity-probe.cu): 6 rounds in one process, FLAGS = which of
# graphprof's per-shape habits each round repeats. "none" reuses everything, like the sample.
probe_dir=$(dirname "$0")
if [ -f "$probe_dir/parity-probe.cu" ] && nvcc -O2 -std=c++17 -arch=sm_90 -o "$work/probe" "$probe_dir/parity-probe.cu" > "$work/nvcc-probe.txt" 2>&1; then
  say "probe: device time per node (µs) of rounds 0..5 of one process, latched | back to back"
  probe() {  # NAME FLAGS [ENV...]
    local name=$1 flags=$2; shift 2
    env "$@" "$work/probe" 1000 6 "$flags" > "$work/probe-$name.txt" 2>&1
    say "$(printf '%-22s' "probe $name") $(awk -F, '/^[0-9]/ {l = l sprintf("%s ", $3); g = g sprintf("%s ", $2); t += $4} END {printf "latched %s| gpu %s(latch timeouts %d)", l, g, t}' "$work/probe-$name.txt") $(grep -m1 returned "$work/probe-$name.txt")"
  }
  for flags in none stream latch events execs extra stream,latch,events,execs; do probe "$flags" "$flags"; done
  probe conn1_stream stream CUDA_DEVICE_MAX_CONNECTIONS=1
else
  say "probe: build failed or tools/experiments/parity-probe.cu missing (see nvcc-probe.txt)"
fi
# The sample's trials one by one (OUTFMT 2), to see whether its own figure drifts within a process.
if [ -f "$src" ] && [ "$SECONDS" -le "$limit" ]; then
  if nvcc -O2 -std=c++17 -arch=sm_90 -o "$work/ps" "$src" > "$work/nvcc.txt" 2>&1; then
    "$work/ps" 2 6 1000 1 0 1 1000 > "$work/sample.txt" 2>&1
    say "$(printf '%-22s' sample_trials) repeat_launch_device per node, trial by trial: $(tr -d '\r ' < "$work/sample.txt" | awk -F, '/^1000,/ && $12 != "" {printf "%.3f ", $12 / 1000}')"
  else
    say "sample build failed (see nvcc.txt)"
  fi
else
  say "sample: skipped (${src} missing or past ${limit}s)"
fi

say "graphprof variants: each line: latched device time per node of rep0 rep1 ... (µs); a fresh process measured ~0.50, sweeps ~0.68"
variant base_r3 -- run "${S[@]}" -r 3
variant churn_streams -- run "${S[@]}" -p churn=streams -r 2
variant churn_pinned -- run "${S[@]}" -p churn=pinned -r 2
variant churn_graphs5 -- run "${S[@]}" -p churn=graphs -p churn_count=5 -r 2
variant churn_graphs1 -- run "${S[@]}" -p churn=graphs -p churn_count=1
variant churn_graphs20 -- run "${S[@]}" -p churn=graphs -p churn_count=20
variant churn_legacy -- run "${S[@]}" -p churn=legacy -r 2
variant churn_events33 -- run "${S[@]}" -p churn=events -p churn_count=33 -r 2
variant churn_malloc -- run "${S[@]}" -p churn=malloc -r 2
variant churn_streams8 -- run "${S[@]}" -p churn=streams -p churn_count=8
variant churn_streams_kept -- run "${S[@]}" -p churn=streams_kept
variant churn_streams2 -- run "${S[@]}" -p churn=streams -p churn_count=2
variant churn_streams3 -- run "${S[@]}" -p churn=streams -p churn_count=3
variant churn_streams7 -- run "${S[@]}" -p churn=streams -p churn_count=7
variant churn_streams_kept8 -- run "${S[@]}" -p churn=streams_kept -p churn_count=8
variant conn1_streams8 CUDA_DEVICE_MAX_CONNECTIONS=1 -- run "${S[@]}" -p churn=streams -p churn_count=8 -r 2
variant conn1_r3 CUDA_DEVICE_MAX_CONNECTIONS=1 -- run "${S[@]}" -r 3
variant conn32_r3 CUDA_DEVICE_MAX_CONNECTIONS=32 -- run "${S[@]}" -r 3
variant modeager_r3 CUDA_MODULE_LOADING=EAGER -- run "${S[@]}" -r 3
variant eager_then_capture -- run -w scaling -m eager,capture -p length=1000
variant sweep_w16_first -- sweep -w scaling -m capture -p length=1000 -p width=16,1
variant sweep_len10_first -- sweep -w scaling -m capture -p length=10,1000
variant chain_eager_capture -- run -w chain -m capture,eager,capture -r 1
variant explicit_graph_r2 -- run -w scaling -m graph -p length=1000 -r 2
variant width4_r2 -- run -w scaling -m capture -p length=1000 -p width=4 -r 2
variant conn1_sweep CUDA_DEVICE_MAX_CONNECTIONS=1 -- sweep -w scaling -m capture -p length=100,1000 -p width=1,4
variant base_end -- run "${S[@]}"
else
# BISECT_SET=trigger: what in a sweep makes it switch? Each line: every result of one process in
# order, with the device probe before/after its passes (sections.device_probe).
if [ -f "$src" ] && nvcc -O2 -std=c++17 -arch=sm_90 -o "$work/ps" "$src" > "$work/nvcc.txt" 2>&1; then
  "$work/ps" 2 12 1000 1 0 1 1000 > "$work/sample.txt" 2>&1
  say "$(printf '%-22s' sample_12_trials) repeat_launch_device per node, trial by trial: $(tr -d '\r ' < "$work/sample.txt" | awk -F, '/^1000,/ && $12 != "" {printf "%.3f ", $12 / 1000}')"
fi
variant t_cap10_x4 -- run -w scaling -m capture,capture,capture,capture -p length=10
variant t_cap10w4_x3 -- run -w scaling -m capture,capture,capture -p length=10 -p width=4
variant t_cap1000_x3 -- run -w scaling -m capture,capture,capture -p length=1000
variant t_graph10_x3 -- run -w scaling -m graph,graph,graph -p length=10
variant t_sweep_w1 -- sweep -w scaling -m capture -p length=10,100,1000,10000
variant t_sweep_10_1000_w14 -- sweep -w scaling -m capture -p length=10,1000 -p width=1,4
variant t_sweep_w4_then_1 -- sweep -w scaling -m capture -p length=1000 -p width=4,1
variant t_sweep_w16_then_1 -- sweep -w scaling -m capture -p length=1000 -p width=16,1
variant t_chain -- run -w chain -m capture,eager,capture
fi

if [ -n "$smi" ]; then
  kill "$smi" "$apps" 2>/dev/null; wait "$smi" "$apps" 2>/dev/null
  say "processes with a GPU context seen by nvidia-smi: $(awk -F', ' 'NF >= 3 {print $3 " (pid " $2 ")"}' "$work/apps.csv" | sort | uniq -c | sort -rn | head -8 | tr -s ' \n' ' ')"
  say "clocks (nvidia-smi every 100 ms): $(awk -F', ' 'NF >= 6 {sm[$2]++; p[$4]++} END {s = "sm MHz:"; for (k in sm) s = s " " k "x" sm[k]; s = s "; pstate:"; for (k in p) s = s " " k "x" p[k]; print s}' "$work/clocks.csv")"
  say "clock event reasons seen: $(awk -F', ' 'NF >= 7 {r[$7]++} END {for (k in r) printf "%s x%d  ", k, r[k]}' "$work/clocks.csv")"
fi
say "variants run: $n; total ${SECONDS}s"
rm -f "$work/ps" "$work/probe"
(cd "$work" && tar czf "$out/bisect.tgz" .)
