#!/bin/bash
# GPU test (label gpu; exit 77 without a device): loads the example plugins and a plugin without
# build_graph, runs them in every mode with the trace pass and DOT dumps, then a sweep in two
# processes, and checks the reports.
# run_plugins_gpu.sh GRAPHPROF OUT_DIR SAXPY.so REDUCE.so NO_GRAPH.so
set -u
gp=$1; out=$2; saxpy=$3; reduce=$4; nograph=$5
"$gp" info >/dev/null 2>&1
[ $? = 4 ] && { echo "no usable GPU: skipped"; exit 77; }
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAILED: $*"; exit 1; }

# Prints "workload/mode status reason library" per result of a report.
results() {
  python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    lib = r.get("sections", {}).get("plugin", {})
    print(r["workload"] + "/" + r["mode"], r["status"], r.get("checksum_matches_eager"),
          lib.get("library", "-"), lib.get("file_fnv1a64", "-"), "|", r.get("reason", ""))
PY
}

"$gp" run --load "$saxpy" --load "$reduce" --load "$nograph" --mode all --param elements=65536 \
  --budget 0.2 --min-time 0.02 --trace node --trace-iterations 20 --out "$out" >"$out/console.txt" 2>&1
rc=$?
cat "$out/console.txt"
[ $rc = 0 ] || fail "graphprof run exited with $rc"
results "$out/report.json" | tee "$out/results.txt"
[ "$(grep -c ' ok True ' "$out/results.txt")" = 8 ] || fail "expected 8 ok results with the eager output (saxpy x3, reduce x3, no_graph x2)"
grep -q "^no_graph/graph unsupported .*| not provided" "$out/results.txt" || fail "no_graph's graph mode should be 'not provided'"
grep -q "^saxpy/graph ok True $saxpy [0-9a-f]\{16\} " "$out/results.txt" || fail "the report does not name $saxpy and its digest"
ls "$out"/dot/saxpy_*_graph.dot "$out"/dot/reduce_*_capture.dot >/dev/null || fail "no DOT dumps for the plugins"
grep -q "saxpy_step" "$out"/dot/saxpy_*_graph.dot || fail "the graph's DOT dump does not name the plugin's kernel"

# A sweep in two processes: the second process must load the plugin too.
"$gp" sweep --load "$saxpy" --workload saxpy --param kernels=1,4 --param elements=4096 --mode graph \
  --budget 0.05 --min-time 0.01 --processes 2 -q --json "$out/sweep.json" >"$out/sweep.txt" 2>&1 \
  || { cat "$out/sweep.txt"; fail "sweep --load --processes 2 failed"; }
results "$out/sweep.json" | tee "$out/sweep_results.txt"
[ "$(grep -c "^saxpy/graph ok .* $saxpy " "$out/sweep_results.txt")" = 2 ] || fail "expected 2 ok sweep points naming the plugin"
echo "plugins ran in all modes, in a sweep and in two processes"
