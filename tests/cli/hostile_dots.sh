#!/bin/bash
# Hostile DOT dumps through the real binary (issue 11). Usage: hostile_dots.sh GRAPHPROF DIR [dense]
# Each bad dump must end in exit 3 with its file name and what is wrong: never 6, never a signal.
set -u
bin=$1 dir=$2
mkdir -p "$dir"
fail=0
expect() {  # expect RC REGEX -- ARGS...
  local rc=$1 re=$2
  shift 3
  local out got
  out=$("$bin" "$@" 2>&1)
  got=$?
  if [ "$got" != "$rc" ] || ! grep -Eq -- "$re" <<<"$out"; then
    echo "FAIL: graphprof $* -> exit $got (want $rc), output: ${out:0:300} (want /$re/)"
    fail=1
  fi
}
node() { printf '"graph_%s_node_%s"[shape="octagon" label="%s\\n_Z1kv\\n"];\n' "$1" "$2" "$2"; }

if [ "${3:-}" = dense ]; then
  # 400 kernels, each after up to 20 of the 80 before it: ~7,900 links, far more than drawn.
  {
    echo 'digraph dot {'; echo 'subgraph cluster_3 {'
    for i in $(seq 0 399); do node 3 "$i"; done
    awk 'BEGIN { srand(7); for (i = 1; i < 400; i++) { lo = i > 80 ? i - 80 : 0;
           for (k = 0; k < 20; k++) { f = lo + int(rand() * (i - lo)); if (!seen[f "," i]++)
             printf "\"graph_3_node_%d\" -> \"graph_3_node_%d\";\n", f, i } } }'
    echo '}'; echo '}'
  } > "$dir/dense.dot"
  expect 0 "simplified: links implied by a longer path are not drawn \(transitive reduction\): [0-9,]+ links -> " -- \
    render "$dir/dense.dot" -o "$dir/dense.svg" --no-collapse
  grep -q "simplified: links implied" "$dir/dense.svg" || { echo "FAIL: the picture does not say what was simplified"; fail=1; }
  exit $fail
fi

# A record label nested 50,000 braces deep (was SIGSEGV in the recursive record parser).
{ printf 'digraph dot {\nsubgraph cluster_1 {\n"graph_1_node_0"[shape="record" label="'
  head -c 50000 /dev/zero | tr '\0' '{'; printf 'KERNEL"];\n}\n}\n'; } > "$dir/deep.dot"
expect 3 "^graphprof: .*deep.dot: node graph_1_node_0: record label nested more than 64 braces deep" -- analyze "$dir/deep.dot"
expect 3 "deep.dot: node graph_1_node_0: record label nested" -- render "$dir/deep.dot" -o "$dir/deep.svg"

# Numbers beyond 64 bits (cluster_99999999999 was exit 6 "stoi").
{ echo 'digraph dot {'; echo 'subgraph cluster_99999999999999999999999 {'; node 1 0; echo '}'; echo '}'; } > "$dir/cluster.dot"
expect 3 "^graphprof: .*cluster.dot: subgraph cluster_99999999999999999999999: the number .* is too large" -- analyze "$dir/cluster.dot"
{ echo 'digraph dot {'; echo 'subgraph cluster_1 {'; node 1 0; node 1 1
  echo '"graph_1_node_0" -> "graph_1_node_1" [headlabel="99999999999"];'; echo '}'; echo '}'; } > "$dir/port.dot"
expect 3 "^graphprof: .*port.dot: headlabel of an edge into graph_1_node_1: port 99999999999 is too large" -- analyze "$dir/port.dot"
{ echo 'digraph dot {'; node 1 99999999999999999999; echo '}'; } > "$dir/index.dot"
expect 3 "^graphprof: .*index.dot: not a CUDA graph dump: .*below 2\^63" -- analyze "$dir/index.dot"

# A Latin-1 byte in a label: analyze --json writes valid UTF-8 (was exit 6, nothing written).
printf 'digraph dot {\nsubgraph cluster_1 {\n"graph_1_node_0"[shape="octagon" label="0\\nk_caf\xe9\\n"];\n}\n}\n' \
  > "$dir/latin1.dot"
rm -f "$dir/latin1.json"
expect 0 "1 node" -- analyze "$dir/latin1.dot" --json "$dir/latin1.json"
grep -q $'k_caf\xef\xbf\xbd' "$dir/latin1.json" 2>/dev/null || { echo "FAIL: latin1.json lacks k_caf + U+FFFD"; fail=1; }

# Graph ids above 32 bits are read as they are (were wrapped).
{ echo 'digraph dot {'; echo 'subgraph cluster_99999999999 {'; node 99999999999 0; echo '}'; echo '}'; } > "$dir/big_id.dot"
expect 0 "top level +graph_99999999999: depth 1" -- analyze "$dir/big_id.dot"
exit $fail
