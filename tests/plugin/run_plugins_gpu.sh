#!/bin/bash
# GPU test (label gpu; exit 77 without a device): loads the example plugins and a plugin without
# build_graph, runs them in every mode with the trace pass and DOT dumps, and checks the report.
# run_plugins_gpu.sh GRAPHPROF OUT_DIR SAXPY.so REDUCE.so NO_GRAPH.so
set -u
gp=$1; out=$2; saxpy=$3; reduce=$4; nograph=$5
"$gp" info >/dev/null 2>&1
[ $? = 4 ] && { echo "no usable GPU: skipped"; exit 77; }
rm -rf "$out"; mkdir -p "$out"
"$gp" run --load "$saxpy" --load "$reduce" --load "$nograph" --mode all --param elements=65536 \
  --budget 0.2 --min-time 0.02 --trace node --trace-iterations 20 --out "$out" >"$out/console.txt" 2>"$out/stderr.txt"
rc=$?
cat "$out/console.txt"
fail() { echo "FAILED: $*"; cat "$out/stderr.txt"; exit 1; }
[ $rc = 0 ] || fail "graphprof run exited with $rc"
json=$out/report.json
[ "$(grep -c '"status": "ok"' "$json")" = 8 ] || fail "expected 8 ok results (saxpy x3, reduce x3, no_graph x2)"
[ "$(grep -c '"status": "unsupported"' "$json")" = 1 ] || fail "no_graph graph mode should be unsupported"
grep -q 'not provided' "$json" || fail "graph mode of no_graph should say 'not provided'"
grep -q "\"library\": \"$saxpy\"" "$json" || fail "the report does not name $saxpy"
grep -q '"file_fnv1a64"' "$json" || fail "the report carries no file digest"
grep -q 'DIFFERENT\|DIFFERS' "$out/console.txt" && fail "a mode computed a different output"
ls "$out"/dot/saxpy_*_graph.dot "$out"/dot/reduce_*_capture.dot >/dev/null || fail "no DOT dumps for the plugins"
echo "plugins ran in all modes"
