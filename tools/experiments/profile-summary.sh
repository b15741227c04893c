#!/bin/bash
# The summary of tools/profile-fixtures.sh (or of a part of it): for each step's console in DIR
# (app.txt, resnet50.txt, ...), the programs' own timing lines labelled with the run they came from,
# the ResNet-50 replay overhead computed from them (the aim: at most 10 % at the default --trace
# node), and graphprof's own summary block.
#   bash tools/experiments/profile-summary.sh DIR
set -u
dest=${1:?usage: profile-summary.sh DIR}

# The application's lines, each prefixed with the run of --overhead it belongs to (warm-up, plain,
# profiled); a step without --overhead has only the profiled run.
label_runs() {
  awk '/^graphprof profile: run [0-9] of [0-9]/ { run = /warm-up/ ? "warm-up" : /profiled/ ? "profiled" : "plain" }
       /^graphprof profile: running / { run = "profiled" }
       $0 ~ pat { print "  [" run "] " $0 }' pat="$2" "$1"
}
# The replay times (ms) of the ResNet-50 demo's runs of one kind, space-separated.
replay_ms() { label_runs "$1" "resnet50_graph: replay" | awk -v want="[$2]" '$1 == want { printf "%s ", $4 }'; }

echo "== the programs' own timing lines, by run (--overhead runs: warm-up, plain, profiled, plain) =="
for f in app resnet50 resnet50_graphlevel compile; do
  [ -f "$dest/$f.txt" ] || continue
  echo "$f:"
  label_runs "$dest/$f.txt" "^(graph_app: graph A|resnet50_graph: (eager|replay)|compile_reduce_overhead: batch)"
done

if [ -f "$dest/resnet50.txt" ]; then
  echo "== ResNet-50 replay overhead (the program's CUDA-event ms per replay; the aim: <= 10 % at the default --trace node) =="
  plain=$(replay_ms "$dest/resnet50.txt" plain)
  node=$(replay_ms "$dest/resnet50.txt" profiled)
  graph=$( [ -f "$dest/resnet50_graphlevel.txt" ] && replay_ms "$dest/resnet50_graphlevel.txt" profiled)
  awk -v plain="$plain" -v node="$node" -v graph="$graph" 'BEGIN {
    n = split(plain, p, " ")
    if (n == 0 || node == "") { print "  (replay lines missing: was the resnet50 step run with --overhead?)"; exit }
    for (i = 1; i <= n; ++i) sum += p[i]
    mean = sum / n; node += 0; graph += 0; sub(/ +$/, "", plain)
    printf "  plain: %.3f ms per replay (mean of %d plain run%s: %s)\n", mean, n, (n == 1 ? "" : "s"), plain
    printf "  profiled at --trace node (the default): %.3f ms per replay, %+.1f %%%s\n", node, 100 * (node / mean - 1),
           (node / mean - 1 <= 0.10 ? " (within 10 %)" : " (OVER 10 %)")
    if (graph > 0) printf "  profiled at --trace graph: %.3f ms per replay, %+.1f %%\n", graph, 100 * (graph / mean - 1)
  }'
fi

for f in app app_small resnet50 resnet50_graphlevel compile; do
  [ -f "$dest/$f.txt" ] || continue
  echo "== graphprof on $f =="
  awk '/^profile: /{p=1} p; /^report written/{p=0}' "$dest/$f.txt"
done
if ls "$dest"/gpu_test_*.txt >/dev/null 2>&1; then
  echo "== GPU tests (a test that hung has no PASSED/FAILED line: see its step's exit status below) =="
  for f in "$dest"/gpu_test_*.txt; do
    echo "$(basename "$f" .txt): $(grep -h -E '^\[ +(PASSED|FAILED|OK) ' "$f" | tail -1)"
    grep -h -A12 'Failure' "$f" | head -40
  done
fi
echo "== steps =="
cat "$dest/steps.txt" 2>/dev/null
