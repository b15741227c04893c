#!/bin/bash
# `run --json -` and `sweep --json -`: stdout holds the JSON report alone (the tables and the
# "report written to -" line go to stderr), so `graphprof run --json - | jq` works.
# Usage: run_json_stdout.sh GRAPHPROF DIR. Skips (77) without a GPU.
set -u
bin=$1 dir=$2
mkdir -p "$dir"
"$bin" info >/dev/null 2>&1 || { echo "no GPU here"; exit 77; }
fail=0
quick=(-w chain --mode graph -p kernels=10 -r 1 --budget 0.05 --min-time 0.01)
for cmd in run sweep; do
  trace=(); [ $cmd = run ] && trace=(--trace none)
  "$bin" $cmd "${quick[@]}" "${trace[@]}" --json - >"$dir/$cmd.json" 2>"$dir/$cmd.err"
  rc=$?
  first=$(head -c 1 "$dir/$cmd.json") last=$(tail -n 1 "$dir/$cmd.json")
  if [ $rc != 0 ] || [ "$first" != "{" ] || [ "$last" != "}" ] || ! grep -q '"schema_version"' "$dir/$cmd.json"; then
    echo "FAIL: $cmd --json - -> exit $rc, stdout starts '$first', ends '$last' (want the JSON alone)"
    head -5 "$dir/$cmd.json"; tail -3 "$dir/$cmd.err"; fail=1
  fi
  grep -q "report written to -" "$dir/$cmd.err" || { echo "FAIL: $cmd: 'report written to -' is not on stderr"; fail=1; }
done
exit $fail
