#!/bin/bash
# doc_examples.sh GRAPHPROF REPO: runs every offline example command of README.md and docs/*.md as
# written, in a folder laid out with the committed fixtures under the names the examples use.
#
# An example is a line of a fenced code block that starts with `graphprof SUBCOMMAND` (or `$ `
# before it). Skipped: the subcommands that need a GPU (run, sweep, profile, info, list), synopsis
# lines (placeholders such as FILE.dot, [options], a|b, ...), and the blocks after a line holding
# `<!-- doc-examples: gpu -->` (their inputs come from a GPU command). An example passes when it
# exits 0, 1 (a regression) or 5 (not trustworthy): 2, 3, 4 or 6 mean the example does not run as
# written (a wrong option, a file name that does not exist, ...).
set -u
bin=$1 repo=$2
data=$repo/tests/data
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# The fixtures, under the names the examples use.
mkdir -p "$dir/out/dot" "$dir/moved/dot" "$dir/baseline" "$dir/cand"
cp "$data/h200/traced_run.json" "$dir/out/report.json"  # chain, fork-join, while; every node timed
cp "$data/h200/traced_dot/"*.dot "$dir/out/dot/"
cp "$data/dot/fork-join_graph_verbose.dot" "$dir/out/dot/fork-join_depth-8_elements-4096_width-8_graph_verbose.dot"
cp "$data/dot/memcpy_capture.dot" "$dir/out/dot/memcpy_bytes-4096_copies-16_host_copies-1_capture.dot"
cp "$data/h200/traced_run.json" "$dir/moved/report.json"
cp "$data/h200/traced_dot/"*.dot "$dir/moved/dot/"
cp "$data/dot/fork-join_capture_verbose.dot" "$dir/g.dot"
cp "$data/dot/chain100_capture_verbose.dot" "$dir/model_step.dot"
cp "$data/gate/A/"*.json "$dir/baseline/"
cp "$data/gate/S10/"*.json "$dir/cand/"
cp "$data/reports/base.json" "$dir/base.json"
cp "$data/reports/regression.json" "$dir/cand.json"
cp "$data/reports/regression.json" "$dir/new.json"
(cd "$dir" && "$bin" compare -q base.json cand.json --json cmp.json >/dev/null 2>&1)
[ -s "$dir/cmp.json" ] || { echo "fixture: compare --json wrote no cmp.json"; exit 1; }

ran=0 failed=0
for doc in "$repo/README.md" "$repo"/docs/*.md; do
  # FILE:LINE<TAB>COMMAND for each example line.
  examples=$(awk -v f="${doc#"$repo"/}" '
    /<!-- doc-examples: gpu -->/ { gpu = 1; next }
    /^[[:space:]]*```/ { if (inblock) { inblock = 0; gpu = 0 } else inblock = 1; next }
    inblock && !gpu {
      line = $0; sub(/^[[:space:]]+/, "", line); sub(/^\$ /, "", line)
      if (line !~ /^graphprof [a-z-]/) next
      sub(/[[:space:]]+#.*$/, "", line)
      split(line, w, " ")
      if (w[2] ~ /^(run|sweep|profile|info|list)$/) next
      if (line ~ /[][|<>]|\.\.\.|…/) next                        # synopsis: [opt], a|b, <pid>, ...
      if (line ~ /(^| )[A-Z][A-Z_]*(\.[a-z]+)?( |$)/) next        # placeholders: FILE.dot, BASELINE
      print f ":" NR "\t" line
    }' "$doc")
  [ -n "$examples" ] || continue
  while IFS=$'\t' read -r where cmd; do
    ran=$((ran + 1))
    read -r -a words <<<"$cmd"
    out=$(cd "$dir" && "$bin" "${words[@]:1}" 2>&1 >/dev/null)
    rc=$?
    case $rc in
      0 | 1 | 5) ;;
      *) echo "$where: \`$cmd\` exited $rc: $out"; failed=$((failed + 1)) ;;
    esac
  done <<<"$examples"
done
echo "$ran doc examples run, $failed failed"
[ "$ran" -gt 10 ] || { echo "fewer examples than expected: is the extraction broken?"; exit 1; }
[ "$failed" = 0 ]
