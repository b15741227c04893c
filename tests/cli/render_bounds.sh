#!/bin/bash
# render_bounds.sh GRAPHPROF DOT: dumps that folding alone does not shrink reach the layout
# bounded (200,000 one-node clusters crashed Graphviz, 20,000 nested child graphs grew past 24 GB),
# their per-node warnings print once with a count (--verbose: every one), and a layout that fails
# (here: a 1 MiB memory limit) is exit 3 naming the dump, not a crash of graphprof.
set -u
gp=$1 dot=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
status=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; status=1; }
awk 'BEGIN { print "digraph dot {"; for (k = 1; k <= 200000; k++)
  printf "subgraph cluster_%d {\n\"graph_%d_node_0\";\n}\n", k, k; print "}" }' > "$dir/clusters.dot"
awk 'BEGIN { print "digraph dot {"; n = 20000; for (k = 1; k <= n; k++) {
  printf "subgraph cluster_%d {\n", k
  if (k < n) printf "\"graph_%d_node_0\"[shape=\"record\" label=\"{\nCHILD_GRAPH\n| {ID | 0}\n| graph_%d\n}\n\"];\n", k, k + 1
  printf "\"graph_%d_node_1\"[shape=\"octagon\" label=\"1\n_Z1kv\n\"];\n", k
  if (k < n) printf "\"graph_%d_node_0\" -> \"graph_%d_node_1\";\n", k, k
  print "}" } print "}" }' > "$dir/nested.dot"

err=$(timeout 300 "$gp" render "$dir/clusters.dot" -o "$dir/c.svg" 2>&1 >/dev/null); rc=$?
warnings=$(grep -c "warning:" <<<"$err")
if [ $rc = 0 ] && [ -s "$dir/c.svg" ] && [ "$warnings" -le 2 ] && grep -q "(and 199,999 more alike, e.g. graph_2_node_0" <<<"$err" &&
   grep -q "simplified: the unconnected nodes" <<<"$err"; then ok "200,000 one-node clusters: ${err:0:300}"
else bad "200,000 one-node clusters: exit $rc, $warnings warning lines: ${err:0:600}"; fi
n=$(timeout 300 "$gp" render "$dir/clusters.dot" -o "$dir/c.svg" --verbose 2>&1 >/dev/null | grep -c "has no label")
[ "$n" = 200000 ] && ok "--verbose prints every warning" || bad "--verbose printed $n warnings, expected 200000"

err=$(timeout 300 "$gp" render "$dir/nested.dot" -o "$dir/n.svg" 2>&1 >/dev/null); rc=$?
if [ $rc = 0 ] && [ -s "$dir/n.svg" ] && grep -q "simplified: " <<<"$err"; then ok "20,000 nested child graphs: ${err:0:300}"
else bad "20,000 nested child graphs: exit $rc: ${err:0:600}"; fi
err=$(timeout 300 "$gp" analyze "$dir/nested.dot" 2>&1 >/dev/null); rc=$?
[ $rc = 0 ] && ok "analyze of 20,000 nested child graphs" || bad "analyze nested: exit $rc: ${err:0:300}"

err=$(GRAPHPROF_LAYOUT_MEMORY_MB=1 timeout 300 "$gp" render "$dot" -o "$dir/m.svg" 2>&1 >/dev/null); rc=$?
if [ $rc = 3 ] && grep -q "$dot: the Graphviz layout" <<<"$err" && [ ! -e "$dir/m.svg" ]; then ok "failed layout: ${err:0:200}"
else bad "failed layout: exit $rc: ${err:0:300}"; fi
exit $status
