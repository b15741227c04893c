#!/bin/bash
# Offline commands on inputs a new user brings (a fresh-eyes review, 2026-11-30): kernel names
# outside ASCII, loader warnings in every command, output paths that cannot be written, a graph
# without edges, a report with one timed node. Usage: offline_edge_cases.sh GRAPHPROF DATA DIR
set -u
bin=$1 data=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
utf8_ok() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; }

# Kernel names of 50 'é' and of 50 '€' (2 and 3 bytes a character): the analyze table cuts them
# in the middle between characters (a byte cut printed invalid UTF-8) and pads them by columns,
# so the launch configurations line up; render draws them without Graphviz falling back to Latin-1.
e50=$(printf 'é%.0s' $(seq 50)) e24=$(printf 'é%.0s' $(seq 24)) e15=$(printf 'é%.0s' $(seq 15))
u50=$(printf '€%.0s' $(seq 50)) u24=$(printf '€%.0s' $(seq 24)) u15=$(printf '€%.0s' $(seq 15))
{ echo 'digraph dot {'; echo 'subgraph cluster_1 {'
  i=0
  for n in _Z3fooPf "${e50}" "${u50}"; do
    printf '"graph_1_node_%d"[style="bold" shape="record" label="{KERNEL\n| {ID | %d (topoId: 0) | %s\\<\\<\\<4,256,0\\>\\>\\>}\n}"];\n' \
      $i $i "$n"
    i=$((i + 1))
  done
  echo '}'; echo '}'; } > "$dir/unicode.dot"
"$bin" analyze "$dir/unicode.dot" > "$dir/unicode.txt" 2>&1 || bad "analyze unicode.dot: exit $?"
utf8_ok "$dir/unicode.txt" || bad "analyze printed invalid UTF-8: $(cat -v "$dir/unicode.txt" | grep -a '\.\.\.')"
for want in "         1  foo                                      <<<4,256,0>>> x1" \
            "         1  ${e24}…${e15} <<<4,256,0>>> x1" "         1  ${u24}…${u15} <<<4,256,0>>> x1"; do
  grep -qxF -- "$want" "$dir/unicode.txt" || bad "analyze table lacks the aligned row '$want': $(grep -a 'x1' "$dir/unicode.txt")"
done
"$bin" render "$dir/unicode.dot" -o "$dir/unicode.svg" > /dev/null 2> "$dir/unicode.err" || bad "render unicode.dot: exit $?"
utf8_ok "$dir/unicode.svg" || bad "render wrote invalid UTF-8 into unicode.svg"
[ -s "$dir/unicode.err" ] && bad "render unicode.dot complained: $(head -c 300 "$dir/unicode.err")"
grep -qF "${e24:0:20}" "$dir/unicode.svg" || bad "unicode.svg lacks the name's first characters"

# An edge to a node that is never declared: analyze (text and --json -) and render all warn.
{ echo 'digraph dot {'; echo 'subgraph cluster_1 {'
  echo '"graph_1_node_0"[shape="octagon" label="0\n_Z1kv\n"];'
  echo '"graph_1_node_0" -> "graph_1_node_7";'; echo '}'; echo '}'; } > "$dir/dangling.dot"
for args in "analyze $dir/dangling.dot" "analyze $dir/dangling.dot --json -" "render $dir/dangling.dot -o $dir/dangling.svg"; do
  # shellcheck disable=SC2086
  err=$("$bin" $args 2>&1 >/dev/null)
  grep -q "^graphprof: warning: .*dangling.dot: graph_1_node_7 has no label" <<<"$err" ||
    bad "graphprof $args does not warn about graph_1_node_7: '$err'"
done

# An edge between two graphs is no CUDA dump (was counted, then left out of depth and width).
{ echo 'digraph dot {'; echo '"graph_1_node_0"[shape="octagon" label="0\n_Z1kv\n"];'
  echo '"graph_2_node_0"[shape="octagon" label="0\n_Z1kv\n"];'; echo '"graph_1_node_0" -> "graph_2_node_0";'; echo '}'; } > "$dir/across.dot"
out=$("$bin" analyze "$dir/across.dot" 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "^graphprof: .*across.dot: not a CUDA graph dump: the edge graph_1_node_0 -> graph_2_node_0 joins two graphs" <<<"$out" ||
  bad "across.dot -> exit $rc, '$out' (want 3 and 'joins two graphs')"

# A graph without edges says "none" rather than leaving the line blank.
{ echo 'digraph dot {'; echo '"graph_2_node_0"[shape="octagon" label="0\n_Z1kv\n"];'; echo '}'; } > "$dir/single.dot"
"$bin" analyze "$dir/single.dot" | grep -qx "  edges by kind     none" || bad "single.dot: no 'edges by kind     none' line"

# Output paths that cannot be written: exit 2 naming the option, before anything is written.
reports=$data/reports
expect_usage() {  # expect_usage REGEX -- ARGS...
  local re=$1; shift 2
  local out rc
  out=$("$bin" "$@" 2>&1); rc=$?
  [ "$rc" = 2 ] && grep -Eq -- "$re" <<<"$out" || bad "graphprof $* -> exit $rc, '$out' (want 2 and /$re/)"
}
expect_usage "^graphprof: --csv /nonexistent/x.csv: folder /nonexistent does not exist" -- \
  report "$reports/base.json" -o "$dir/r.html" --csv /nonexistent/x.csv
[ -e "$dir/r.html" ] && bad "report wrote r.html although --csv could not be written"
expect_usage "^graphprof: --markdown /nonexistent/x.md: folder /nonexistent does not exist" -- \
  compare "$reports/base.json" "$reports/base.json" --json "$dir/c.json" --markdown /nonexistent/x.md
[ -e "$dir/c.json" ] && bad "compare wrote c.json although --markdown could not be written"
expect_usage "^graphprof: -o /nonexistent/m.json: folder /nonexistent does not exist" -- \
  merge "$data/gate/A/run1.json" "$data/gate/A/run2.json" -o /nonexistent/m.json
expect_usage "^graphprof: -o /nonexistent/x.svg: folder /nonexistent does not exist" -- \
  render "$dir/single.dot" -o /nonexistent/x.svg
expect_usage "^graphprof: --json /nonexistent/x.json: folder /nonexistent does not exist" -- \
  analyze "$dir/single.dot" --json /nonexistent/x.json

# "-" writes an output to stdout, and the command's own messages then go to stderr, so the output
# can be piped (a "wrote -" line used to follow the SVG, the JSON, the CSV or the Markdown).
last_line() { "$bin" "$@" 2>/dev/null | tail -n 1; }
[ "$(last_line render "$dir/single.dot" -o - --format svg)" = "</svg>" ] || bad "render -o - is not just the SVG"
[ "$(last_line merge "$data/gate/A/run1.json" "$data/gate/A/run2.json" -o -)" = "}" ] || bad "merge -o - is not just the JSON"
last_line report "$reports/base.json" --csv - | grep -q "written" && bad "report --csv - is not just the CSV"
for opt in --markdown --junit; do
  out=$("$bin" compare "$reports/base.json" "$reports/aa_noise.json" $opt - 2>/dev/null)
  grep -q "^PASS (exit 0)" <<<"$out" && bad "compare $opt - mixes the terminal output into stdout"
  err=$("$bin" compare "$reports/base.json" "$reports/aa_noise.json" $opt - 2>&1 >/dev/null)
  grep -q "^PASS (exit 0)" <<<"$err" || bad "compare $opt -: the terminal output is not on stderr"
done

# A folder where a report belongs: exit 3 saying so (was "FOLDER:1:1: file is empty").
mkdir -p "$dir/folder.json"
for args in "report $dir/folder.json -o $dir/f.html" "analyze $dir/single.dot --report $dir/folder.json"; do
  # shellcheck disable=SC2086
  out=$("$bin" $args 2>&1); rc=$?
  [ "$rc" = 3 ] && grep -q "^graphprof: .*folder.json: is a folder, not a file" <<<"$out" ||
    bad "graphprof $args -> exit $rc, '$out' (want 3 and 'is a folder, not a file')"
done

# A --format that disagrees with the name (was a PDF silently written into x.svg); upper case is fine.
expect_usage "^graphprof: --format pdf disagrees with -o $dir/x.svg" -- render "$dir/single.dot" -o "$dir/x.svg" --format pdf
"$bin" render "$dir/single.dot" -o "$dir/X.SVG" --format SVG >/dev/null 2>&1 || bad "render -o X.SVG --format SVG failed"

# One timed node: "1 node timed", "over 1 node" (were "1 nodes").
traced=$data/h200
out=$("$bin" analyze "$traced/traced_dot/while_elements-4096_max_steps-1000_tolerance-0.001_graph.dot" \
  --report "$traced/traced_run.json" 2>&1)
grep -q "(1 node timed, 2 GPU nodes without a time)" <<<"$out" || bad "no '(1 node timed, 2 GPU nodes ...)': $(grep -a 'times from' <<<"$out")"
grep -q "over 1 node)" <<<"$out" || bad "dominant_kernel does not say 'over 1 node)'"

# --json /dev/stdout (or /dev/fd/1) is stdout like '-': the JSON alone, no table before it and no
# "analysis written to" line after it (only '-' was recognized: the three were mixed on stdout).
for out_arg in /dev/stdout /dev/fd/1; do
  "$bin" analyze "$dir/single.dot" --json "$out_arg" > "$dir/stdout_json.txt" 2>/dev/null || bad "analyze --json $out_arg: exit $?"
  [ "$(head -c 1 "$dir/stdout_json.txt")" = "{" ] && [ "$(tail -n 1 "$dir/stdout_json.txt")" = "}" ] &&
    grep -q '"critical_path"' "$dir/stdout_json.txt" || bad "analyze --json $out_arg: stdout is not the JSON alone: $(head -c 200 "$dir/stdout_json.txt")"
done
exit $fail
