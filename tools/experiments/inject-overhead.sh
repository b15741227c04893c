#!/bin/bash
# What each piece of `graphprof profile`'s injection costs an application's calls: runs
# bench/inject_overhead (an ordinary CUDA program that times its own eager-launch, graph-launch,
# API-call and serving-step loops) plain and under the injection library with pieces switched off
# (GRAPHPROF_INJECT_OFF, src/inject/common/dev_switches.hpp), the settings interleaved, REPS rounds, one
# process each, and prints per setting the median over the rounds of each loop's per-call time
# and its difference to plain. The records are written to a scratch folder and not analysed.
#   tools/experiments/inject-overhead.sh [BUILD_DIR] [REPS]        (docs/findings.md "What each piece of the injection costs")
# Settings: NAME LEVEL OFF-LIST SAMPLE SITES (GRAPHPROF_PROFILE_SAMPLE, GRAPHPROF_PROFILE_SITES; "-": none).
# Call sites are off except in the rows that name them, so each row adds one piece.
set -u
build=${1:-build}; reps=${2:-5}
lib=$build/libgraphprof_inject.so; mb=$build/bench/inject_overhead
[ -x "$mb" ] && [ -f "$lib" ] || { echo "inject-overhead: build $mb and $lib first" >&2; exit 4; }
settings=${SETTINGS:-"plain - - - -
loaded none cupti - 0
subscribed none runtime,driver,runtime_cb,resource_cb,launch_cb,state_cb,probe - 0
clock clock - - 0
none-every-api-call none api_filter - 0
none none - - 0
none-no-api-records none runtime,driver - 0
none+call-sites none - - 1
graph graph - - 0
node-sampled node - - 0
node-all node - all 0
node-all-no-write node write all 0
node-sampled+call-sites node - - 1"}
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
out=$scratch/figures.txt
for rep in $(seq "$reps"); do
  while read -r name level off sample sites; do
    [ -z "$name" ] && continue
    [ "$off" = "-" ] && off=
    [ "$sample" = "-" ] && sample=
    [ "$sites" = "-" ] && sites=
    rm -rf "$scratch/d"; mkdir -p "$scratch/d"
    if [ "$name" = plain ]; then
      text=$("$mb" --batches "${BATCHES:-100}" 2>&1)
    else
      text=$(env CUDA_INJECTION64_PATH="$lib" GRAPHPROF_PROFILE_DIR="$scratch/d" GRAPHPROF_PROFILE_LEVEL="$level" \
             GRAPHPROF_PROFILE_DOT=1 ${off:+GRAPHPROF_INJECT_OFF=$off} ${sample:+GRAPHPROF_PROFILE_SAMPLE=$sample} \
             ${sites:+GRAPHPROF_PROFILE_SITES=$sites} \
             "$mb" --batches "${BATCHES:-100}" 2>&1)
    fi
    echo "$text" | sed -n "s/^inject_overhead phase=\([a-z]*\) us_per_call=\([0-9.]*\).*/$name \1 \2/p" >> "$out"
  done <<< "$settings"
done
python3 - "$out" "$reps" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, phase, v = line.split()
    rows.setdefault(name, {}).setdefault(phase, []).append(float(v))
phases = ["eager", "graph", "api", "step"]
plain = {p: statistics.median(rows.get("plain", {}).get(p, [0])) for p in phases}
print(f"per-call time, median of {sys.argv[2]} interleaved processes (us); in brackets: minus plain")
print(f"{'setting':22s}" + "".join(f"{p + ' launch' if p in ('eager', 'graph') else p:>22s}" for p in phases))
for name, ph in rows.items():
    cells = []
    for p in phases:
        if p not in ph:
            cells.append(f"{'-':>22s}"); continue
        m = statistics.median(ph[p])
        cells.append(f"{m:10.2f} ({m - plain[p]:+7.2f}){'':3s}")
    print(f"{name:22s}" + "".join(cells))
PY
